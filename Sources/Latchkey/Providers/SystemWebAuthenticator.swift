#if canImport(AuthenticationServices) && (os(iOS) || os(macOS) || os(visionOS))
import AuthenticationServices
import Foundation

/// The system's browser sheet (`ASWebAuthenticationSession`) as a ``WebAuthenticator``.
///
/// ```swift
/// var configuration = SessionManagerConfiguration()
/// configuration.webAuthenticator = SystemWebAuthenticator { view.window! }
/// ```
///
/// A custom-scheme callback (`com.example.app://auth`) works on every supported version; an
/// `https` callback needs iOS 17.4, macOS 14.4 or visionOS 1.1, and the host as an associated
/// domain of the app. Closing the sheet throws ``WebAuthenticationError/cancelled``.
public struct SystemWebAuthenticator: WebAuthenticator {
    private let anchor: @MainActor @Sendable () -> ASPresentationAnchor

    /// A sheet presented from the window `anchor` returns: the window the user tapped in
    /// (`ASPresentationAnchor` is `UIWindow` on iOS and visionOS, `NSWindow` on macOS).
    public init(anchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor) {
        self.anchor = anchor
    }

    public func authenticate(url: URL, callbackURL: URL, ephemeral: Bool) async throws -> URL {
        try await Self.run(url: url, callbackURL: callbackURL, ephemeral: ephemeral, anchor: anchor)
    }

    @MainActor
    private static func run(
        url: URL, callbackURL: URL, ephemeral: Bool, anchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor
    ) async throws -> URL {
        // presentationContextProvider is a weak reference: the provider, and the session, live
        // until the sheet ends.
        let provider = PresentationContextProvider(anchor: anchor)
        var started: ASWebAuthenticationSession?
        defer { withExtendedLifetime((provider, started)) {} }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
            // The sheet answers once; a start that fails may also call the completion handler.
            let pending = LockedValue<CheckedContinuation<URL, any Error>?>(continuation)
            let finish: @Sendable (Result<URL, any Error>) -> Void = { result in
                pending.withLock { waiting in
                    waiting?.resume(with: result)
                    waiting = nil
                }
            }
            let completion: @Sendable (URL?, (any Error)?) -> Void = { callback, error in
                if let callback {
                    finish(.success(callback))
                } else if let error = error as? ASWebAuthenticationSessionError, error.code == .canceledLogin {
                    finish(.failure(WebAuthenticationError.cancelled))
                } else {
                    finish(.failure(error ?? WebAuthenticationError.cannotStart(reason: "the sheet ended without a URL")))
                }
            }
            let session: ASWebAuthenticationSession
            let scheme = callbackURL.scheme?.lowercased() ?? ""
            if #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) {
                let callback: ASWebAuthenticationSession.Callback =
                    scheme == "https"
                    ? .https(host: callbackURL.host ?? "", path: callbackURL.path.isEmpty ? "/" : callbackURL.path)
                    : .customScheme(scheme)
                session = ASWebAuthenticationSession(url: url, callback: callback, completionHandler: completion)
            } else {
                guard scheme != "https", !scheme.isEmpty else {
                    finish(.failure(WebAuthenticationError.cannotStart(reason: "an https callback needs iOS 17.4, macOS 14.4 or visionOS 1.1")))
                    return
                }
                session = ASWebAuthenticationSession(url: url, callbackURLScheme: scheme, completionHandler: completion)
            }
            session.prefersEphemeralWebBrowserSession = ephemeral
            session.presentationContextProvider = provider
            started = session
            if !session.start() {
                finish(.failure(WebAuthenticationError.cannotStart(reason: "the sheet could not start")))
            }
        }
    }
}

/// Tells the sheet which window to present from.
@MainActor
private final class PresentationContextProvider: NSObject, ASWebAuthenticationPresentationContextProviding {
    let anchor: @MainActor @Sendable () -> ASPresentationAnchor

    init(anchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor) {
        self.anchor = anchor
    }

    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
        anchor()
    }
}
#endif
