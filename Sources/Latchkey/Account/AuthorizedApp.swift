import Foundation

/// An app that can sign in as the user: one the user allowed, on the server's consent page, to
/// act for them through the server's OAuth 2.1 server (GoTrue's "grant"), and which keeps that
/// access until the user removes it with ``AuthAccount/revoke(_:)``.
///
/// What describes the app (``name``, ``uri``, ``logoURI``) is what the app itself registered:
/// show it as the app's claim, not as something the server vouches for.
public struct AuthorizedApp: Sendable, Hashable, Codable, Identifiable {
    /// The app's OAuth client ID (a lowercase UUID): what ``AuthAccount/revoke(clientID:)`` takes.
    public var clientID: String
    /// The app's name, when it registered one.
    public var name: String?
    /// The app's home page, when it registered one with an `https` or `http` URL; any other
    /// scheme (`javascript:`, an app's own) is left out, so it is safe to open as a link.
    public var uri: URL?
    /// The app's logo, when it registered one with an `https` URL; any other scheme is left out,
    /// so loading it never goes over plain HTTP or to a local file.
    public var logoURI: URL?
    /// The scopes the user granted, as the server names them (`openid`, `email`, `profile`,
    /// `phone`), in the server's order.
    public var scopes: [String]
    /// When the user granted the access (the latest approval).
    public var grantedAt: Date

    /// The client ID.
    public var id: String { clientID }

    /// An app with these values; ``uri`` and ``logoURI`` are kept only when their scheme is
    /// allowed (see each).
    public init(clientID: String, name: String? = nil, uri: URL? = nil, logoURI: URL? = nil, scopes: [String] = [], grantedAt: Date) {
        self.clientID = clientID
        self.name = name
        self.uri = uri.flatMap { Self.allowed($0, schemes: ["https", "http"]) }
        self.logoURI = logoURI.flatMap { Self.allowed($0, schemes: ["https"]) }
        self.scopes = scopes
        self.grantedAt = grantedAt
    }

    /// `url` when its scheme is one of `schemes` and it names a host.
    static func allowed(_ url: URL, schemes: Set<String>) -> URL? {
        guard let scheme = url.scheme?.lowercased(), schemes.contains(scheme), let host = url.host, !host.isEmpty else { return nil }
        return url
    }
}
