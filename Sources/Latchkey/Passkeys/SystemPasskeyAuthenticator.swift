#if canImport(AuthenticationServices) && (os(iOS) || os(macOS) || os(visionOS))
import AuthenticationServices
import Foundation

/// The platform authenticator (passkeys in iCloud Keychain, Face ID, Touch ID, a nearby phone)
/// through `ASAuthorizationController`, as a ``PasskeyAuthenticator``.
///
/// ```swift
/// var configuration = SessionManagerConfiguration()
/// configuration.passkeyAuthenticator = SystemPasskeyAuthenticator { view.window! }
/// ```
///
/// The app needs the relying party as an associated domain (`webcredentials:example.com` in the
/// Associated Domains capability) and the server's `/.well-known/apple-app-site-association` to
/// list the app under `webcredentials` (`latchkey serve --apple-app-ids TEAMID.com.example.app`);
/// otherwise the system refuses every request (``PasskeyAuthenticatorError/failed(reason:)``).
///
/// Closing the sheet, or cancelling the task that waits for it (which closes the sheet), throws
/// ``PasskeyAuthenticatorError/cancelled``. ``PasskeyRequestOptions/Mediation/autoFill`` runs
/// `performAutoFillAssistedRequests()` on iOS and visionOS; on macOS it asks with a sheet.
public struct SystemPasskeyAuthenticator: PasskeyAuthenticator {
    private let anchor: @MainActor @Sendable () -> ASPresentationAnchor

    /// An authenticator whose sheets are presented from the window `anchor` returns
    /// (`ASPresentationAnchor` is `UIWindow` on iOS and visionOS, `NSWindow` on macOS).
    public init(anchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor) {
        self.anchor = anchor
    }

    public func createPasskey(_ options: PasskeyCreationOptions) async throws -> PasskeyRegistration {
        try await Self.registration(options, anchor: anchor)
    }

    public func assertPasskey(_ options: PasskeyRequestOptions) async throws -> PasskeyAssertion {
        try await Self.assertion(options, anchor: anchor)
    }

    @MainActor
    private static func registration(
        _ options: PasskeyCreationOptions, anchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor
    ) async throws -> PasskeyRegistration {
        let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: options.relyingParty.id)
        let request = provider.createCredentialRegistrationRequest(
            challenge: options.challenge, name: options.user.name, userID: options.user.id)
        request.displayName = options.user.displayName
        request.userVerificationPreference = preference(options.userVerification)
        // Platform passkeys attest nothing an app can check; the server asks for `none`.
        request.attestationPreference = ASAuthorizationPublicKeyCredentialAttestationKind.none
        // The account's passkeys: the system refuses to make a second one for the same account
        // in the same keychain (`.matchedExcludedCredential`, iOS 18 / macOS 15). Platform
        // requests take `excludedCredentials` from iOS 17.4 / macOS 14.4; earlier systems
        // ignore the list.
        if #available(iOS 17.4, macOS 14.4, visionOS 1.1, *), !options.excludedCredentialIDs.isEmpty {
            request.excludedCredentials = options.excludedCredentialIDs.map {
                ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0)
            }
        }
        guard case .registration(let registration) = try await perform(request, autoFill: false, anchor: anchor) else {
            throw PasskeyAuthenticatorError.failed(reason: "the system answered with another kind of credential")
        }
        return registration
    }

    @MainActor
    private static func assertion(
        _ options: PasskeyRequestOptions, anchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor
    ) async throws -> PasskeyAssertion {
        let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: options.relyingPartyID)
        let request = provider.createCredentialAssertionRequest(challenge: options.challenge)
        request.userVerificationPreference = preference(options.userVerification)
        if !options.allowedCredentialIDs.isEmpty {
            request.allowedCredentials = options.allowedCredentialIDs.map { ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0) }
        }
        guard case .assertion(let assertion) = try await perform(request, autoFill: options.mediation == .autoFill, anchor: anchor) else {
            throw PasskeyAuthenticatorError.failed(reason: "the system answered with another kind of credential")
        }
        return assertion
    }

    /// Runs one request in an `ASAuthorizationController` and returns the credential it gives,
    /// read into plain values.
    @MainActor
    private static func perform(
        _ request: ASAuthorizationRequest, autoFill: Bool, anchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor
    ) async throws -> ControllerDelegate.Answer {
        let controller = ControllerHolder(ASAuthorizationController(authorizationRequests: [request]))
        // `delegate` and `presentationContextProvider` are weak: this one lives until the end.
        let delegate = ControllerDelegate(anchor: anchor)
        controller.controller.delegate = delegate
        controller.controller.presentationContextProvider = delegate
        defer { withExtendedLifetime((controller, delegate)) {} }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ControllerDelegate.Answer, any Error>) in
                delegate.continuation = continuation
                if Task.isCancelled {
                    delegate.finish(.failure(PasskeyAuthenticatorError.cancelled))
                    return
                }
                #if os(iOS) || os(visionOS)
                if autoFill {
                    controller.controller.performAutoFillAssistedRequests()
                    return
                }
                #endif
                controller.controller.performRequests()
            }
        } onCancel: {
            // The task was cancelled (the screen went away): close the sheet; the delegate then
            // answers `canceled`, which ends the wait.
            Task { @MainActor in controller.controller.cancel() }
        }
    }

    private static func preference(_ verification: PasskeyUserVerification) -> ASAuthorizationPublicKeyCredentialUserVerificationPreference {
        switch verification {
        case .required: .required
        case .preferred: .preferred
        case .discouraged: .discouraged
        }
    }
}

/// The controller of one request, for a cancelled task to close from the main actor (it is
/// only touched there).
private final class ControllerHolder: @unchecked Sendable {
    let controller: ASAuthorizationController

    init(_ controller: ASAuthorizationController) {
        self.controller = controller
    }
}

/// Receives the controller's answer, reads it into plain values, and tells the controller where
/// to present; both protocols are main-actor ones.
@MainActor
private final class ControllerDelegate: NSObject, ASAuthorizationControllerDelegate, ASAuthorizationControllerPresentationContextProviding {
    /// What the system gave, as plain values.
    enum Answer: Sendable {
        case registration(PasskeyRegistration)
        case assertion(PasskeyAssertion)
    }

    let anchor: @MainActor @Sendable () -> ASPresentationAnchor
    var continuation: CheckedContinuation<Answer, any Error>?

    init(anchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor) {
        self.anchor = anchor
    }

    /// Resumes the waiting task once; later answers are ignored.
    func finish(_ result: Result<Answer, any Error>) {
        continuation?.resume(with: result)
        continuation = nil
    }

    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor {
        anchor()
    }

    func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization) {
        finish(Result { try Self.answer(authorization.credential) })
    }

    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
        finish(.failure(Self.passkeyError(error)))
    }

    /// The new passkey or the assertion in `credential`.
    static func answer(_ credential: any ASAuthorizationCredential) throws -> Answer {
        switch credential {
        case let created as ASAuthorizationPlatformPublicKeyCredentialRegistration:
            guard let attestationObject = created.rawAttestationObject else {
                throw PasskeyAuthenticatorError.failed(reason: "the new passkey carries no attestation object")
            }
            return .registration(
                PasskeyRegistration(
                    credentialID: created.credentialID, clientDataJSON: created.rawClientDataJSON, attestationObject: attestationObject,
                    transports: ["internal", "hybrid"], attachment: attachment(created.attachment)))
        case let signed as ASAuthorizationPlatformPublicKeyCredentialAssertion:
            // Declared implicitly unwrapped: read as optionals rather than trapped on.
            let authenticatorData: Data? = signed.rawAuthenticatorData
            let signature: Data? = signed.signature
            let userID: Data? = signed.userID
            guard let authenticatorData, let signature else {
                throw PasskeyAuthenticatorError.failed(reason: "the assertion carries no signature")
            }
            return .assertion(
                PasskeyAssertion(
                    credentialID: signed.credentialID, clientDataJSON: signed.rawClientDataJSON, authenticatorData: authenticatorData,
                    signature: signature, userHandle: userID, attachment: attachment(signed.attachment)))
        default:
            throw PasskeyAuthenticatorError.failed(reason: "the system answered with another kind of credential")
        }
    }

    static func attachment(_ attachment: ASAuthorizationPublicKeyCredentialAttachment) -> String? {
        switch attachment {
        case .platform: "platform"
        case .crossPlatform: "cross-platform"
        @unknown default: nil
        }
    }

    /// The ``PasskeyAuthenticatorError`` an `ASAuthorizationError` stands for.
    static func passkeyError(_ error: any Error) -> PasskeyAuthenticatorError {
        guard let error = error as? ASAuthorizationError else {
            return .failed(reason: "the system failed: \((error as NSError).domain) \((error as NSError).code)")
        }
        if error.code == .canceled { return .cancelled }
        if #available(iOS 18, macOS 15, visionOS 2, *), error.code == .matchedExcludedCredential { return .credentialExcluded }
        return .failed(reason: "ASAuthorizationError \(error.code.rawValue)")
    }
}
#endif
