import Foundation
import Latchkey

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A browser for tests that really browses: it follows redirects one at a time, keeping cookies
/// by host as browsers do, through the server's `/authorize`, a provider's authorization page
/// that consents at once (`TestIdentityProvider`) and the server's `/callback`.
///
/// As a ``WebAuthenticator`` it stops when it is sent to the callback URL, as
/// `ASWebAuthenticationSession` does. On the server's page that asks before linking an
/// identity (a link flow bound to no browser), it answers as the person at the browser would:
/// `linkDecision` (`link` by default).
package final class TestBrowser: WebAuthenticator, @unchecked Sendable {
    private let session: URLSession
    private let cookies = NSLock()
    private var jar: [String: [String: String]] = [:]
    private let linkDecision: String

    package init(linkDecision: String = "link") {
        self.linkDecision = linkDecision
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }

    /// Opens `url` and follows its redirects until `stop` says a URL is where to stop (not
    /// opened), or a page answers without redirecting (opened; its URL is returned).
    package func follow(_ url: URL, stoppingAt stop: (URL) -> Bool = { _ in false }) async throws -> URL {
        var next = url
        for _ in 0..<12 {
            if stop(next) { return next }
            var request = URLRequest(url: next)
            let host = next.host ?? ""
            let sent = cookies.withLock { jar[host] ?? [:] }
            if !sent.isEmpty { request.setValue(sent.map { "\($0.key)=\($0.value)" }.joined(separator: "; "), forHTTPHeaderField: "Cookie") }
            var (data, response) = try await session.cancellableData(for: request)
            guard var http = response as? HTTPURLResponse else { return next }
            keep(http, host: host)
            if http.statusCode == 200, let page = String(data: data, encoding: .utf8), page.contains("action=\"callback/link\""),
                let answer = URL(string: "callback/link", relativeTo: next)
            {
                var form = URLComponents()
                form.queryItems = Self.hiddenFields(page) + [URLQueryItem(name: "decision", value: linkDecision)]
                var post = URLRequest(url: answer.absoluteURL)
                post.httpMethod = "POST"
                post.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
                let kept = cookies.withLock { jar[host] ?? [:] }
                post.setValue(kept.map { "\($0.key)=\($0.value)" }.joined(separator: "; "), forHTTPHeaderField: "Cookie")
                post.httpBody = Data((form.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B").utf8)
                (data, response) = try await session.cancellableData(for: post)
                guard let answered = response as? HTTPURLResponse else { return next }
                http = answered
                keep(http, host: host)
            }
            guard (300..<400).contains(http.statusCode), let location = http.value(forHTTPHeaderField: "Location"),
                let target = URL(string: location, relativeTo: next)
            else { return next }
            next = target.absoluteURL
        }
        throw WebAuthenticationError.cannotStart(reason: "too many redirects")
    }

    private func keep(_ response: HTTPURLResponse, host: String) {
        if let setCookie = response.value(forHTTPHeaderField: "Set-Cookie") {
            let pair = setCookie.split(separator: ";")[0].split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { cookies.withLock { jar[host, default: [:]][pair[0]] = pair[1] } }
        }
    }

    /// A page's hidden form fields (`<input type="hidden" name="…" value="…">`), unescaped.
    private static func hiddenFields(_ page: String) -> [URLQueryItem] {
        page.components(separatedBy: "<input type=\"hidden\" ").dropFirst().compactMap { tag in
            let parts = tag.components(separatedBy: "\"")
            guard parts.count >= 4, parts[0] == "name=", parts[2] == " value=" else { return nil }
            let value = parts[3].replacingOccurrences(of: "&#x2F;", with: "/").replacingOccurrences(of: "&#x3D;", with: "=")
                .replacingOccurrences(of: "&#43;", with: "+").replacingOccurrences(of: "&amp;", with: "&")
            return URLQueryItem(name: parts[1], value: value)
        }
    }

    package func authenticate(url: URL, callbackURL: URL, ephemeral: Bool) async throws -> URL {
        let reached = try await follow(url) { $0.scheme == callbackURL.scheme && $0.host == callbackURL.host && $0.path == callbackURL.path }
        guard reached.scheme == callbackURL.scheme, reached.host == callbackURL.host, reached.path == callbackURL.path else {
            throw WebAuthenticationError.cannotStart(reason: "the browser stopped at \(reached.host ?? "?") without reaching the callback")
        }
        return reached
    }

    /// Redirects are followed by ``follow(_:stoppingAt:)``, one at a time.
    private final class NoRedirects: NSObject, URLSessionTaskDelegate {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
            completionHandler: @escaping (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }
}
