import Foundation
import Logging

/// The ways to sign in to the signed-in account: its email and password, Apple, Google…
/// Reached from the manager as ``SessionManager/identities``.
///
/// ```swift
/// let identities = try await manager.identities.list()
/// // Add Google to the account, in the browser sheet:
/// _ = try await manager.identities.link(provider: .google, redirectTo: URL(string: "com.example.app://auth")!)
/// // …or with an ID token the app already has:
/// try await manager.identities.link(provider: .apple, idToken: token, nonce: nonce.raw)
/// // Remove one (never the last):
/// try await manager.identities.unlink(identities[1])
/// ```
///
/// Linking needs the server to allow manual linking (GoTrue's
/// `GOTRUE_SECURITY_MANUAL_LINKING_ENABLED`); otherwise it answers
/// ``AuthFailure/Category/permission`` with code `manual_linking_disabled`. Every method throws
/// ``AuthFailure``.
public struct AuthIdentities: Sendable {
    let manager: SessionManager

    /// The signed-in user's identities as the server lists them now (`GET /user`); the stored
    /// user is updated with them. ``User/identities`` has them as of the last fetch, without a
    /// request.
    /// - Throws: ``AuthFailure`` (``AuthFailure/Category/notSignedIn`` when signed out).
    public func list() async throws -> [Identity] {
        try await manager.fetchUser().identities
    }

    /// Links `provider` to the signed-in account in the browser sheet of
    /// ``SessionManagerConfiguration/webAuthenticator``: the server gives the provider's
    /// page (`GET /user/identities/authorize`), the person signs in there, and the redirect
    /// comes back to `redirectTo` with a code traded for the account's session, now with the
    /// new identity.
    /// - Returns: ``WebSignInResult/cancelled`` when the user closed the sheet.
    /// - Throws: ``AuthFailure``: ``AuthFailure/Category/accountExists`` (code
    ///   `identity_already_exists`) when that provider account belongs to another user,
    ///   ``AuthFailure/Category/permission`` (`manual_linking_disabled`).
    public func link(
        provider: IdentityProvider, redirectTo: URL, scopes: String? = nil, ephemeral: Bool = false
    ) async throws
        -> WebSignInResult
    {
        let url = try await linkURL(provider: provider, redirectTo: redirectTo, scopes: scopes)
        return try await manager.completeInBrowser(url, redirectTo: redirectTo, ephemeral: ephemeral, operation: "link_identity")
    }

    /// Starts linking `provider` in a browser the app opens itself, and returns the URL to open.
    /// Hand the URL the browser comes back with to ``AuthAccount/session(from:)``.
    /// - Throws: ``AuthFailure``.
    public func linkURL(provider: IdentityProvider, redirectTo: URL, scopes: String? = nil) async throws -> URL {
        let pkce = try await AuthFailure.translating { try await manager.startPKCEFlow() }
        return try await manager.authorized("link_identity") { [backend = manager.backend] token in
            try await backend.linkIdentityURL(
                accessToken: token, provider: provider.rawValue, redirectTo: redirectTo.absoluteString, scopes: scopes,
                codeChallenge: pkce.challenge)
        }
    }

    /// Links `provider` to the signed-in account with an ID token the app got from it (Sign in
    /// with Apple, Google Sign-In), as ``AuthAccount/signInWithIdToken(provider:idToken:nonce:accessToken:appleAuthorizationCode:)``
    /// takes it. The server answers with new tokens for the same account, stored like a
    /// sign-in's.
    /// - Throws: ``AuthFailure``: ``AuthFailure/Category/accountExists`` (code
    ///   `identity_already_exists`) when that provider account belongs to another user.
    @discardableResult
    public func link(provider: IdentityProvider, idToken: String, nonce: String? = nil, accessToken: String? = nil) async throws -> Session {
        let session = try await manager.authorized("link_identity") { [backend = manager.backend] token in
            try await backend.signInWithIDToken(
                provider: provider.rawValue, idToken: idToken, nonce: nonce, accessToken: accessToken, linkingTo: token)
        }
        await manager.log("identity linked", "link_identity", ["provider": "\(provider)"])
        return try await AuthFailure.translating { try await manager.commitSignIn(session) }
    }

    /// Removes `identity` from the signed-in account: the person can no longer sign in with it.
    /// The stored user is fetched again afterwards.
    /// - Throws: ``AuthFailure``: ``AuthFailure/Category/invalidInput`` with code
    ///   `single_identity_not_deletable` for the account's only identity, or
    ///   `identity_not_found`.
    public func unlink(_ identity: Identity) async throws {
        try await unlink(identityID: identity.identityID)
    }

    /// Removes the identity with ``Identity/identityID`` `identityID` from the signed-in account.
    /// - Throws: ``AuthFailure``, as ``unlink(_:)``.
    public func unlink(identityID: String) async throws {
        try await manager.authorized("unlink_identity") { [backend = manager.backend] token in
            try await backend.unlinkIdentity(accessToken: token, identityID: identityID)
        }
        await manager.log("identity unlinked", "unlink_identity", ["identity_id": "\(identityID)"])
        do {
            try await manager.fetchUser()
        } catch {
            await manager.log("could not fetch the user after removing an identity", "unlink_identity")
        }
    }
}
