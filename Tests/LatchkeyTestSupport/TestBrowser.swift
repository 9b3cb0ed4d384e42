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
/// `ASWebAuthenticationSession` does.
package final class TestBrowser: WebAuthenticator, @unchecked Sendable {
    private let session: URLSession
    private let cookies = NSLock()
    private var jar: [String: [String: String]] = [:]

    package init() {
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
            let (_, response) = try await session.cancellableData(for: request)
            guard let http = response as? HTTPURLResponse else { return next }
            if let setCookie = http.value(forHTTPHeaderField: "Set-Cookie") {
                let pair = setCookie.split(separator: ";")[0].split(separator: "=", maxSplits: 1).map(String.init)
                if pair.count == 2 { cookies.withLock { jar[host, default: [:]][pair[0]] = pair[1] } }
            }
            guard (300..<400).contains(http.statusCode), let location = http.value(forHTTPHeaderField: "Location"),
                let target = URL(string: location, relativeTo: next)
            else { return next }
            next = target.absoluteURL
        }
        throw WebAuthenticationError.cannotStart(reason: "too many redirects")
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
