import Foundation
import Logging

extension AuthAccount {
    /// Signs in with a passkey: the server issues a challenge, the
    /// ``SessionManagerConfiguration/passkeyAuthenticator`` offers the person the passkeys it
    /// holds for the server's relying party and signs with the one they pick, and the server
    /// answers with that passkey's account's session. The session is stored and published
    /// exactly as a password sign-in's (``SessionEvent/signedIn(_:)``); signing in to another
    /// account than the one signed in runs the cleanup steps first.
    ///
    /// No email address is needed: the passkey says whose it is.
    ///
    /// With ``PasskeyRequestOptions/Mediation/autoFill`` start it when the sign-in form appears
    /// (the username field's content type `.username`): the passkeys are offered among the
    /// keyboard's suggestions and the call returns when the person picks one. Cancel the task
    /// when the form goes away, and start again after a ``AuthFailure`` with code
    /// `webauthn_challenge_expired` (the server's challenge lasts 5 minutes by default).
    /// - Returns: ``PasskeySignInResult/cancelled`` when the person closed the sheet.
    /// - Throws: ``AuthFailure``: ``AuthFailure/Category/invalidCredentials`` with code
    ///   `no_passkey` when the authenticator holds no passkey for the server, or
    ///   `webauthn_verification_failed` when the server does not accept the passkey (it was
    ///   removed from the account); ``AuthFailure/Category/invalidInput`` with
    ///   `webauthn_challenge_expired` (try again); ``AuthFailure/Category/permission`` with
    ///   `passkey_disabled`; ``AuthFailure/Category/emailNotConfirmed``,
    ///   ``AuthFailure/Category/accountDisabled``, ``AuthFailure/Category/rateLimited(retryAfter:)``.
    @discardableResult
    public func signInWithPasskey(
        mediation: PasskeyRequestOptions.Mediation = .modal, captchaToken: String? = nil
    ) async throws -> PasskeySignInResult {
        let authenticator = try manager.requirePasskeyAuthenticator()
        manager.logger.info("signing in with a passkey", metadata: ["operation": "sign_in_passkey"])
        var challenge = try await AuthFailure.translating {
            try await CaptchaToken.$current.withValue(captchaToken) { try await manager.backend.passkeySignInOptions() }
        }
        challenge.options.mediation = mediation
        let assertion: PasskeyAssertion
        do {
            assertion = try await authenticator.assertPasskey(challenge.options)
        } catch PasskeyAuthenticatorError.cancelled {
            manager.logger.info("the passkey sign-in was cancelled", metadata: ["operation": "sign_in_passkey"])
            return .cancelled
        } catch {
            throw AuthFailure(passkeyAuthenticator: error)
        }
        do {
            let session = try await manager.backend.verifyPasskeySignIn(challengeID: challenge.id, assertion: assertion)
            return .signedIn(try await manager.commitSignIn(session))
        } catch {
            let failure = AuthFailure(error)
            manager.logger.info("passkey sign-in failed", metadata: ["operation": "sign_in_passkey", "failure": "\(failure)"])
            throw failure
        }
    }
}

extension SessionManager {
    /// The configured ``SessionManagerConfiguration/passkeyAuthenticator``, or an
    /// ``AuthFailure`` (code `passkey_authenticator_unavailable`) when there is none.
    nonisolated func requirePasskeyAuthenticator() throws -> any PasskeyAuthenticator {
        guard let authenticator = configuration.passkeyAuthenticator else {
            throw AuthFailure(.unknown, code: "passkey_authenticator_unavailable", detail: "no passkey authenticator is configured")
        }
        return authenticator
    }
}
