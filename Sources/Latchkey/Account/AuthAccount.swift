import Foundation
import Logging

/// The user's account: signing in with a password, signing up, anonymous users, and changes to
/// the profile, the email address and the password. Reached from the manager as
/// ``SessionManager/account``.
///
/// ```swift
/// try await manager.account.signIn(email: "ada@example.com", password: password)
/// let user = try await manager.account.update(UserUpdate(data: ["display_name": .string("Ada")]))
/// ```
///
/// A session obtained here is stored and published by the manager exactly as every other one
/// (``SessionEvent/signedIn(_:)``); changes to the user emit ``SessionEvent/userUpdated(_:)``.
/// Every method throws ``AuthFailure``.
public struct AuthAccount: Sendable {
    let manager: SessionManager

    /// Signs in with email and password, stores the session, and emits
    /// ``SessionEvent/signedIn(_:)``. Identical concurrent attempts (a double tap) share one
    /// request; different ones run one after the other.
    /// - Parameter captchaToken: The token of the server's CAPTCHA, when it asks for one
    ///   (``CaptchaToken``).
    /// - Throws: ``AuthFailure`` (e.g. ``AuthFailure/Category/invalidCredentials``).
    @discardableResult
    public func signIn(email: String, password: String, captchaToken: String? = nil) async throws -> Session {
        try await CaptchaToken.$current.withValue(captchaToken) {
            try await manager.signInWithPassword(email: email, password: password)
        }
    }

    /// Creates an account. Returns the session when the server confirms at once, or
    /// ``SignUpResult/confirmationRequired(_:)`` when the email must be confirmed first (then
    /// ``AuthEmail/verify(type:email:token:)`` with the emailed code, or
    /// ``AuthEmail/resendConfirmation(email:captchaToken:)``).
    /// - Parameters:
    ///   - data: The new user's ``User/userMetadata``.
    ///   - captchaToken: The token of the server's CAPTCHA, when it asks for one (``CaptchaToken``).
    /// - Throws: ``AuthFailure`` (e.g. ``AuthFailure/Category/accountExists``).
    public func signUp(
        email: String, password: String, data: [String: JSONValue] = [:], captchaToken: String? = nil
    ) async throws -> SignUpResult {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        manager.logger.info("signing up", metadata: ["operation": "sign_up", "email": "\(LogRedaction.email(email))"])
        let result = try await AuthFailure.translating {
            try await CaptchaToken.$current.withValue(captchaToken) { try await manager.backend.signUp(email: email, password: password, data: data) }
        }
        switch result {
        case .signedIn(let session):
            return .signedIn(try await manager.commitSignIn(session))
        case .confirmationRequired:
            return result
        }
    }

    /// Signs in a new anonymous user (when the server allows it). The user keeps its data and
    /// id when it later adds an email address and password with ``update(_:)``; until the
    /// address is confirmed, ``User/isAnonymous`` stays true.
    /// - Parameter captchaToken: The token of the server's CAPTCHA, when it asks for one
    ///   (``CaptchaToken``).
    /// - Throws: ``AuthFailure``.
    @discardableResult
    public func signInAnonymously(data: [String: JSONValue] = [:], captchaToken: String? = nil) async throws -> Session {
        try await AuthFailure.translating {
            let session = try await CaptchaToken.$current.withValue(captchaToken) { try await manager.backend.signInAnonymously(data: data) }
            return try await manager.commitSignIn(session)
        }
    }

    /// Changes the user's email, password or metadata, and emits
    /// ``SessionEvent/userUpdated(_:)``.
    /// - Throws: ``AuthFailure``; ``AuthFailure/Category/permission`` with code
    ///   `reauthentication_needed` for a password change without the nonce a server that
    ///   requires one mailed (``reauthenticate()``).
    @discardableResult
    public func update(_ update: UserUpdate) async throws -> User {
        let (session, generation) = try await manager.sessionForRequest()
        return try await AuthFailure.translating {
            let user = try await manager.backend.updateUser(accessToken: session.accessToken, update)
            await manager.updateStoredUser(user, generation: generation)
            return user
        }
    }

    /// Re-fetches the user from the server, updating the stored copy and emitting
    /// ``SessionEvent/userUpdated(_:)``. A deleted or banned account, or a revoked session,
    /// signs out.
    /// - Throws: ``AuthFailure``.
    @discardableResult
    public func refreshUser() async throws -> User {
        try await manager.fetchUser()
    }

    /// Mails the signed-in user a nonce to confirm a password change with: put it in
    /// ``UserUpdate/nonce`` beside the new password. Servers that require it answer a password
    /// change without one with ``AuthFailure/Category/permission`` (code
    /// `reauthentication_needed`).
    /// - Throws: ``AuthFailure``.
    public func reauthenticate() async throws {
        let (session, _) = try await manager.sessionForRequest()
        try await AuthFailure.translating { try await manager.backend.reauthenticate(accessToken: session.accessToken) }
    }

    /// Deletes the signed-in user's account on the server, then signs out here as the server
    /// ended the session: the stored session is wiped, every cleanup step
    /// (``SessionManager/addCleanupStep(_:_:)``) runs, and ``SessionEvent/signedOut(_:)`` carries
    /// ``SignOutReason/userDeleted``. Needs Latchkey's server with `--allow-self-deletion`
    /// (GoTrue has no such route).
    ///
    /// The server asks for a recent reauthentication: ``AccountReauthentication/nonce(_:)`` from
    /// ``reauthenticate()``, or ``AccountReauthentication/recentSecondFactor`` for an account with
    /// a verified second factor (verify it again first when it was not in the last minutes), or
    /// ``AccountReauthentication/sessionOnly`` for an anonymous user.
    ///
    /// ```swift
    /// try await manager.account.reauthenticate()           // mails a nonce
    /// try await manager.account.delete(reauthentication: .nonce(codeFromEmail))
    /// ```
    /// - Throws: ``AuthFailure``, and nothing is deleted or signed out: code
    ///   `reauthentication_needed` (no nonce), `reauthentication_not_valid` (a wrong or expired
    ///   one), `insufficient_aal` (verify a second factor again), or a network failure. A server
    ///   without account deletion answers ``AuthFailure/Category/unknown`` or
    ///   ``AuthFailure/Category/invalidInput``.
    public func delete(reauthentication: AccountReauthentication) async throws {
        let (session, generation) = try await manager.sessionForRequest()
        try await AuthFailure.translating {
            try await manager.backend.deleteUser(accessToken: session.accessToken, nonce: reauthentication.nonce)
        }
        await manager.endSession(.userDeleted, ifGeneration: generation)
    }
}
