import Foundation
public import LatchkeyWire
import Logging

/// What Sign in with Apple hands the app, as plain values: the ID token, and the person's name,
/// which Apple gives only the first time the person authorizes the app.
///
/// On Apple platforms make one from the `ASAuthorizationAppleIDCredential` with
/// `AppleSignInCredential(_:)`, then sign in with
/// ``AuthAccount/signInWithApple(_:nonce:)``, which stores the name in the user's metadata
/// the first time and sends the authorization code, with which Latchkey's server revokes the
/// app's Apple tokens when the account is deleted. Its description never shows the token or
/// the code.
public struct AppleSignInCredential: Sendable, Hashable {
    /// The ID token (`identityToken` as UTF-8); secret.
    public var identityToken: String
    /// The name the person shared, on the first authorization only; `nil` afterwards.
    public var fullName: PersonNameComponents?
    /// The authorization code (`authorizationCode` as UTF-8); secret, valid five minutes and
    /// once. Sent with the sign-in so Latchkey's server can revoke the app's Apple tokens when
    /// the account is deleted.
    public var authorizationCode: String?

    public init(identityToken: String, fullName: PersonNameComponents? = nil, authorizationCode: String? = nil) {
        self.identityToken = identityToken
        self.fullName = fullName
        self.authorizationCode = authorizationCode
    }

    /// The `user_metadata` entries the name gives (`full_name`, `given_name`, `family_name`),
    /// or `nil` when there is nothing to store: no name came with this authorization, or the
    /// account already has a `full_name` (it is stored once, and a name the person changed
    /// later is theirs to keep).
    public func nameMetadata(existing: [String: JSONValue]) -> [String: JSONValue]? {
        guard let fullName else { return nil }
        func clean(_ part: String?) -> String? {
            let trimmed = part?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            return trimmed.isEmpty ? nil : trimmed
        }
        let given = clean(fullName.givenName)
        let middle = clean(fullName.middleName)
        let family = clean(fullName.familyName)
        let full = [given, middle, family].compactMap { $0 }.joined(separator: " ")
        guard !full.isEmpty else { return nil }
        if case .string(let stored) = existing["full_name"], !stored.isEmpty { return nil }
        var entries: [String: JSONValue] = ["full_name": .string(full)]
        if let given { entries["given_name"] = .string(given) }
        if let family { entries["family_name"] = .string(family) }
        return entries
    }
}

extension AppleSignInCredential: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "AppleSignInCredential(identityToken: <redacted>, fullName: \(fullName == nil ? "nil" : "<given>"))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self, children: ["identityToken": "<redacted>", "authorizationCode": authorizationCode == nil ? "nil" : "<redacted>"],
            displayStyle: .struct)
    }
}

extension AuthAccount {
    /// Signs in with Sign in with Apple's credential (an ID-token sign-in with provider
    /// ``IdentityProvider/apple``) and, the first time, stores the name Apple gave in the
    /// user's metadata (``AppleSignInCredential/nameMetadata(existing:)``), since Apple never
    /// gives it again.
    ///
    /// A name that cannot be stored (the connection dropped after the sign-in) does not fail
    /// the sign-in: it is logged, and the returned session's user has no `full_name`; store it
    /// with ``update(_:)`` if the app keeps it.
    /// - Parameter nonce: The nonce whose ``SignInNonce/hashed`` went in the request's `nonce`.
    /// - Throws: ``AuthFailure``, as ``signInWithIdToken(provider:idToken:nonce:accessToken:appleAuthorizationCode:)``.
    @discardableResult
    public func signInWithApple(_ credential: AppleSignInCredential, nonce: SignInNonce?) async throws -> Session {
        let session = try await signInWithIdToken(
            provider: .apple, idToken: credential.identityToken, nonce: nonce?.raw, appleAuthorizationCode: credential.authorizationCode)
        guard let name = credential.nameMetadata(existing: session.user.userMetadata) else { return session }
        do {
            try await update(UserUpdate(data: name))
        } catch {
            manager.logger.warning(
                "could not store the name Apple gave", metadata: ["operation": "sign_in_apple", "failure": "\(AuthFailure(error))"])
            return session
        }
        return await manager.currentSession ?? session
    }
}
