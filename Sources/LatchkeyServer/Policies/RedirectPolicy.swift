import Foundation

/// Where email links may send a user (with a session in the URL fragment).
///
/// `redirect_to` is honoured only when it has the scheme, host and port of the site URL or of an
/// additional allowed URL, and its path is at or below that URL's path; or, as GoTrue and RFC 8252
/// §7.3 allow for native apps (a terminal app's one-request listener), when its host is a
/// loopback address (`127.0.0.1`, `[::1]`), on any port. Anything else falls back to the site
/// URL, so a crafted link can never deliver a session to another site.
struct RedirectPolicy: Sendable {
    /// The configured site URL; `nil` means the server itself.
    var configuredSiteURL: String?
    var origin: ServerOrigin
    var additionalURLs: [String]

    /// Where users land by default: the configured site URL, else the server's own URL.
    var siteURL: String { configuredSiteURL ?? origin.url }

    init(siteURL: String?, origin: ServerOrigin, additionalURLs: [String]) {
        self.configuredSiteURL = siteURL
        self.origin = origin
        self.additionalURLs = additionalURLs
    }

    /// Where `candidate` (a request's `redirect_to`) may send the user: the URL as parsed (never
    /// the raw text, so nothing such as a CR or LF the parser escaped reaches a `Location`
    /// header), or the site URL.
    func resolve(_ candidate: String?) -> String {
        let siteURL = siteURL
        guard let candidate, let url = URL(string: candidate), let scheme = url.scheme?.lowercased(),
            !url.absoluteString.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " })
        else { return siteURL }
        if scheme == "http" || scheme == "https", url.user == nil, Self.isLoopbackLiteral(url.host) { return url.absoluteString }
        for prefix in [siteURL] + additionalURLs {
            guard let base = URL(string: prefix), base.scheme?.lowercased() == scheme,
                base.host?.lowercased() == url.host?.lowercased(), base.port == url.port,
                base.user == nil, url.user == nil
            else { continue }
            let basePath = base.path.trimmingTrailingSlash()
            if basePath.isEmpty || url.path == basePath || url.path.hasPrefix(basePath + "/") { return url.absoluteString }
        }
        return siteURL
    }

    /// Whether `host` is a loopback IP address written out (`127.x.y.z`, `::1`), not a name.
    static func isLoopbackLiteral(_ host: String?) -> Bool {
        guard var host = host?.lowercased() else { return false }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in part.count <= 3 && !part.isEmpty && part.allSatisfy(\.isASCII) && UInt8(part) != nil }
    }
}
