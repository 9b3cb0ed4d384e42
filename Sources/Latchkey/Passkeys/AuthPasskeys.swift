import Foundation
import Logging

/// The signed-in account's passkeys: adding one with the device's authenticator, listing,
/// renaming and removing them. Reached from the manager as ``SessionManager/passkeys``; signing
/// in with one is ``AuthAccount/signInWithPasskey(mediation:captchaToken:)``.
///
/// ```swift
/// var configuration = SessionManagerConfiguration()
/// configuration.passkeyAuthenticator = SystemPasskeyAuthenticator { view.window! }
/// // …
/// switch try await manager.passkeys.register(name: "iPhone") {
/// case .registered(let passkey): print("added", passkey.friendlyName)
/// case .cancelled: break  // the person closed the sheet: say nothing
/// }
/// let passkeys = try await manager.passkeys.list()
/// try await manager.passkeys.delete(passkeys[0])
/// ```
///
/// The server must have passkeys on (`latchkey serve --passkeys-enabled`, GoTrue's
/// `GOTRUE_PASSKEY_ENABLED`); otherwise every method throws ``AuthFailure/Category/permission``
/// with code `passkey_disabled`. ``GoTrueServerSettings/passkeysEnabled`` says so beforehand.
/// Every method throws ``AuthFailure``.
public struct AuthPasskeys: Sendable {
    let manager: SessionManager

    /// The longest name the server accepts for a passkey.
    public static let maximumNameLength = 120

    /// Adds a passkey to the signed-in account: the server issues a challenge, the
    /// ``SessionManagerConfiguration/passkeyAuthenticator`` creates the passkey after asking the
    /// person, the server verifies it, and, when `name` is given, the passkey is renamed to it.
    ///
    /// The session is not changed: the person stays signed in as they were. A rename that
    /// fails after the passkey was verified (the network went away) leaves the server's default
    /// name, and the passkey is still returned: rename it later with ``rename(_:to:)``.
    /// - Parameter name: What to call the passkey (e.g. the device's name): 1 to
    ///   ``maximumNameLength`` characters once trimmed. `nil` keeps the server's default
    ///   ("Passkey").
    /// - Returns: ``PasskeyRegistrationResult/cancelled`` when the person closed the sheet.
    /// - Throws: ``AuthFailure``: ``AuthFailure/Category/invalidInput`` with code
    ///   `validation_failed` for an unusable name (before anything is asked),
    ///   `webauthn_credential_exists` when this authenticator already holds a passkey of the
    ///   account, `webauthn_challenge_expired` when the person took too long (try again);
    ///   ``AuthFailure/Category/permission`` with `too_many_passkeys`, `passkey_disabled`, or
    ///   `insufficient_aal` (an account with a second factor needs its code first);
    ///   ``AuthFailure/Category/invalidCredentials`` with `webauthn_verification_failed` when the
    ///   server refused the new passkey.
    public func register(name: String? = nil) async throws -> PasskeyRegistrationResult {
        let name = try name.map(Self.validName)
        let authenticator = try manager.requirePasskeyAuthenticator()
        let challenge = try await manager.authorized("register_passkey") { [backend = manager.backend] token in
            try await backend.passkeyRegistrationOptions(accessToken: token)
        }
        let registration: PasskeyRegistration
        do {
            registration = try await authenticator.createPasskey(challenge.options)
        } catch PasskeyAuthenticatorError.cancelled {
            await manager.log("adding a passkey was cancelled", "register_passkey")
            return .cancelled
        } catch {
            throw AuthFailure(passkeyAuthenticator: error)
        }
        var passkey = try await manager.authorized("register_passkey") { [backend = manager.backend] token in
            try await backend.verifyPasskeyRegistration(accessToken: token, challengeID: challenge.id, registration: registration)
        }
        await manager.log("passkey registered", "register_passkey", ["passkey_id": "\(passkey.id)"])
        if let name, name != passkey.friendlyName {
            do {
                passkey = try await rename(passkeyID: passkey.id, to: name)
            } catch {
                await manager.log("could not name the new passkey", "register_passkey", ["passkey_id": "\(passkey.id)"])
            }
        }
        return .registered(passkey)
    }

    /// The signed-in account's passkeys, oldest first, as the server lists them now.
    /// - Throws: ``AuthFailure`` (``AuthFailure/Category/notSignedIn`` when signed out).
    public func list() async throws -> [Passkey] {
        try await manager.authorized("list_passkeys") { [backend = manager.backend] token in
            try await backend.listPasskeys(accessToken: token)
        }
    }

    /// Renames `passkey`; returns it with its new name.
    /// - Throws: ``AuthFailure``: ``AuthFailure/Category/invalidInput`` with code
    ///   `validation_failed` for an unusable name, or a passkey the account does not have.
    @discardableResult
    public func rename(_ passkey: Passkey, to name: String) async throws -> Passkey {
        try await rename(passkeyID: passkey.id, to: name)
    }

    /// Renames the passkey with ``Passkey/id`` `passkeyID`.
    /// - Throws: ``AuthFailure``, as ``rename(_:to:)``.
    @discardableResult
    public func rename(passkeyID: String, to name: String) async throws -> Passkey {
        let name = try Self.validName(name)
        return try await manager.authorized("rename_passkey") { [backend = manager.backend] token in
            try await backend.renamePasskey(accessToken: token, passkeyID: passkeyID, friendlyName: name)
        }
    }

    /// Removes `passkey` from the account: it can no longer sign in (the authenticator may
    /// still offer it until the person removes it there too).
    /// - Throws: ``AuthFailure``: ``AuthFailure/Category/invalidInput`` with code
    ///   `validation_failed` for a passkey the account does not have;
    ///   ``AuthFailure/Category/permission`` with `insufficient_aal` when the account's second
    ///   factor must be verified first.
    public func delete(_ passkey: Passkey) async throws {
        try await delete(passkeyID: passkey.id)
    }

    /// Removes the passkey with ``Passkey/id`` `passkeyID`.
    /// - Throws: ``AuthFailure``, as ``delete(_:)``.
    public func delete(passkeyID: String) async throws {
        try await manager.authorized("delete_passkey") { [backend = manager.backend] token in
            try await backend.deletePasskey(accessToken: token, passkeyID: passkeyID)
        }
        await manager.log("passkey removed", "delete_passkey", ["passkey_id": "\(passkeyID)"])
    }

    /// `name` trimmed, or ``AuthFailure/Category/invalidInput`` (`validation_failed`) when
    /// nothing or more than ``maximumNameLength`` characters are left.
    static func validName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= maximumNameLength else {
            throw AuthFailure(.invalidInput, code: "validation_failed", detail: "a passkey's name has 1 to \(maximumNameLength) characters")
        }
        return trimmed
    }
}
