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
/// domain of the app. Closing the sheet, or cancelling the task that waits for it (which closes
/// the sheet), throws ``WebAuthenticationError/cancelled``; no window to present from throws
/// ``WebAuthenticationError/cannotStart(reason:)``.
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
        let scheme = callbackURL.scheme?.lowercased() ?? ""
        guard !scheme.isEmpty, scheme != "http" else {
            throw WebAuthenticationError.cannotStart(reason: "the callback URL needs a custom scheme or https")
        }
        let host = callbackURL.host ?? ""
        guard scheme != "https" || !host.isEmpty else { throw WebAuthenticationError.cannotStart(reason: "an https callback URL needs a host") }
        // presentationContextProvider is a weak reference: the provider, and the session, live
        // until the sheet ends.
        let provider = PresentationContextProvider(anchor: anchor)
        let holder = SessionHolder()
        defer { withExtendedLifetime((provider, holder)) {} }
        // The sheet answers once; a start that fails may also call the completion handler, and a
        // cancelled task answers before the sheet does.
        let pending = LockedValue<CheckedContinuation<URL, any Error>?>(nil)
        let finish: @Sendable (Result<URL, any Error>) -> Void = { result in
            pending.withLock { waiting in
                waiting?.resume(with: result)
                waiting = nil
            }
        }
        let completion: @Sendable (URL?, (any Error)?) -> Void = { callback, error in
            if let callback {
                finish(.success(callback))
            } else if let error = error as? ASWebAuthenticationSessionError {
                switch error.code {
                case .canceledLogin:
                    finish(.failure(WebAuthenticationError.cancelled))
                case .presentationContextNotProvided, .presentationContextInvalid:
                    finish(.failure(WebAuthenticationError.cannotStart(reason: "no window to present the sheet from")))
                @unknown default:
                    finish(.failure(error))
                }
            } else {
                finish(.failure(error ?? WebAuthenticationError.cannotStart(reason: "the sheet ended without a URL")))
            }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
                pending.withLock { $0 = continuation }
                if Task.isCancelled {
                    finish(.failure(WebAuthenticationError.cancelled))
                    return
                }
                let session: ASWebAuthenticationSession
                if #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) {
                    let path = callbackURL.path(percentEncoded: false)
                    let callback: ASWebAuthenticationSession.Callback =
                        scheme == "https" ? .https(host: host, path: path.isEmpty ? "/" : path) : .customScheme(scheme)
                    session = ASWebAuthenticationSession(url: url, callback: callback, completionHandler: completion)
                } else {
                    guard scheme != "https" else {
                        finish(.failure(WebAuthenticationError.cannotStart(reason: "an https callback needs iOS 17.4, macOS 14.4 or visionOS 1.1")))
                        return
                    }
                    session = ASWebAuthenticationSession(url: url, callbackURLScheme: scheme, completionHandler: completion)
                }
                session.prefersEphemeralWebBrowserSession = ephemeral
                session.presentationContextProvider = provider
                holder.keep(session)
                if !session.start() {
                    finish(.failure(WebAuthenticationError.cannotStart(reason: "the sheet could not start")))
                }
            }
        } onCancel: {
            // The task was cancelled (the screen went away): close the sheet, and answer now
            // rather than when the person acts.
            finish(.failure(WebAuthenticationError.cancelled))
            Task { @MainActor in holder.kept()?.cancel() }
        }
    }
}

/// The sheet of one sign-in, for a cancelled task to close (set on the main actor, read from
/// the cancellation handler's main-actor task; the lock orders the two).
private final class SessionHolder: @unchecked Sendable {
    private let session = LockedValue<ASWebAuthenticationSession?>(nil)

    func keep(_ session: ASWebAuthenticationSession) { self.session.withLock { $0 = session } }
    func kept() -> ASWebAuthenticationSession? { session.withLock { $0 } }
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
