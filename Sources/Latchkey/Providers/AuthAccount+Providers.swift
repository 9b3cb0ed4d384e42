import Foundation
import Logging

/// Signing in with a provider: an ID token the app got from Sign in with Apple or Google
/// Sign-In, or the provider's page in a browser sheet.
extension AuthAccount {
    /// Signs in with an ID token from `provider`, stores the session, and emits
    /// ``SessionEvent/signedIn(_:)``. The server checks the token against the provider's
    /// published keys; a first sign-in makes the account, or joins the account whose address
    /// the provider verified.
    ///
    /// - Parameters:
    ///   - idToken: The provider's ID token (Sign in with Apple: the credential's
    ///     `identityToken` as UTF-8; Google Sign-In: `user.idToken.tokenString`).
    ///   - nonce: The raw nonce (``SignInNonce/raw``) whose SHA-256 the app gave the provider,
    ///     when it gave one.
    ///   - accessToken: The provider's access token, when the ID token binds one (`at_hash`,
    ///     as Google's do).
    ///   - appleAuthorizationCode: With ``IdentityProvider/apple``, the credential's
    ///     `authorizationCode` as UTF-8. Latchkey's server (with the Sign in with Apple key)
    ///     trades it for Apple's refresh token, so that deleting the account revokes the app's
    ///     access to the Apple ID, as App Review guideline 5.1.1(v) asks; other servers ignore it.
    /// - Throws: ``AuthFailure``: ``AuthFailure/Category/invalidInput`` for a token the server
    ///   refuses (expired, for another app, a nonce that does not match),
    ///   ``AuthFailure/Category/permission`` when the provider is turned off.
    @discardableResult
    public func signInWithIdToken(
        provider: IdentityProvider, idToken: String, nonce: String? = nil, accessToken: String? = nil, appleAuthorizationCode: String? = nil
    ) async throws
        -> Session
    {
        manager.logger.info("signing in with an ID token", metadata: ["operation": "sign_in_id_token", "provider": "\(provider)"])
        do {
            let session = try await manager.backend.signInWithIDToken(
                provider: provider.rawValue, idToken: idToken, nonce: nonce, accessToken: accessToken, appleAuthorizationCode: appleAuthorizationCode,
                linkingTo: nil)
            return try await manager.commitSignIn(session)
        } catch {
            let failure = AuthFailure(error)
            manager.logger.info(
                "ID-token sign-in failed", metadata: ["operation": "sign_in_id_token", "provider": "\(provider)", "failure": "\(failure)"])
            throw failure
        }
    }

    /// Trades the ID token of a user still signed in with the Firebase SDK for a session, at
    /// the first launch of an app that has moved from Firebase to a Latchkey server: the user
    /// stays signed in and never sees a sign-in screen. The server must accept the Firebase
    /// project's tokens (`latchkey serve --firebase-project-id`) and the user must have been
    /// imported (`latchkey import firebase`), which keeps their UID.
    ///
    /// ```swift
    /// if await manager.currentSession == nil, let firebaseUser = Auth.auth().currentUser {
    ///     let idToken = try await firebaseUser.getIDToken()
    ///     _ = try await manager.account.migrateFromFirebase(idToken: idToken)
    ///     try Auth.auth().signOut()   // only once the Latchkey session is saved
    /// }
    /// ```
    ///
    /// Throws like ``signInWithIdToken(provider:idToken:nonce:accessToken:appleAuthorizationCode:)``; on a failure the
    /// Firebase session is untouched, so the app can try again or fall back to a sign-in.
    public func migrateFromFirebase(idToken: String) async throws -> Session {
        try await signInWithIdToken(provider: .firebase, idToken: idToken)
    }

    /// Signs in with `provider`'s page in the browser sheet of
    /// ``SessionManagerConfiguration/webAuthenticator``: builds the sign-in URL
    /// (``signInURL(provider:redirectTo:scopes:)``), opens it, and signs in with the redirect
    /// it ends at (``session(from:)``).
    ///
    /// ```swift
    /// switch try await manager.account.signInWithOAuth(provider: .google, redirectTo: URL(string: "com.example.app://auth")!) {
    /// case .signedIn(let session): show(session.user)
    /// case .cancelled: break  // the user closed the sheet
    /// }
    /// ```
    /// - Parameters:
    ///   - redirectTo: Where the server sends the browser back: a URL with the app's own
    ///     scheme (or an `https` URL of an associated domain), listed in the server's allowed
    ///     redirect URLs.
    ///   - scopes: Extra scopes to ask the provider for, separated by spaces.
    ///   - ephemeral: Whether the browser sheet forgets cookies afterwards, so no earlier
    ///     sign-in at the provider is reused.
    /// - Returns: ``WebSignInResult/cancelled`` when the user closed the sheet.
    /// - Throws: ``AuthFailure``: a refusal the redirect carries (its `error_code` in
    ///   ``AuthFailure/code``), ``AuthFailure/Category/unknown`` with code
    ///   `web_authentication_unavailable` when no browser sheet is configured.
    public func signInWithOAuth(
        provider: IdentityProvider, redirectTo: URL, scopes: String? = nil, ephemeral: Bool = false
    ) async throws
        -> WebSignInResult
    {
        let url = try await signInURL(provider: provider, redirectTo: redirectTo, scopes: scopes)
        return try await manager.completeInBrowser(url, redirectTo: redirectTo, ephemeral: ephemeral, operation: "sign_in_oauth")
    }

    /// Starts a sign-in with `provider` in a browser the app opens itself, and returns the URL
    /// to open (the server's `/authorize`). The PKCE verifier is kept in the credential store,
    /// so the sign-in survives the app being closed meanwhile; hand the URL the browser comes
    /// back with to ``session(from:)``. Starting another flow (a sign-in, a link, an email
    /// link) replaces it.
    /// - Throws: ``AuthFailure`` (``AuthFailure/Category/storage(_:)`` when the verifier cannot
    ///   be stored).
    public func signInURL(provider: IdentityProvider, redirectTo: URL, scopes: String? = nil) async throws -> URL {
        try await AuthFailure.translating {
            let pkce = try await manager.startPKCEFlow()
            return try manager.backend.authorizeURL(
                provider: provider.rawValue, redirectTo: redirectTo.absoluteString, scopes: scopes, codeChallenge: pkce.challenge)
        }
    }

    /// Signs in with the URL a provider sign-in (or an email link) came back to the app with:
    /// `?code=` is traded with the stored PKCE verifier (once); an implicit flow's
    /// `#access_token=…&refresh_token=…` is stored like any sign-in, with the user fetched
    /// with its token. The session is stored and ``SessionEvent/signedIn(_:)`` emitted.
    /// - Throws: ``AuthFailure``: an error redirect (`?error=…&error_code=…`) as its category,
    ///   with the `error_code` in ``AuthFailure/code`` and the description in
    ///   ``AuthFailure/detail``; ``AuthFailure/Category/invalidInput`` for a URL with neither a
    ///   code nor tokens, a code no flow here is waiting for (`flow_state_not_found`), or one
    ///   already used.
    @discardableResult
    public func session(from url: URL) async throws -> Session {
        try await manager.signIn(fromRedirect: url, operation: "sign_in_redirect")
    }
}

extension SessionManager {
    /// Opens `url` in the configured browser sheet and signs in with the redirect; a closed
    /// sheet forgets the verifier and answers ``WebSignInResult/cancelled``.
    func completeInBrowser(_ url: URL, redirectTo: URL, ephemeral: Bool, operation: String) async throws -> WebSignInResult {
        guard let browser = configuration.webAuthenticator else {
            throw AuthFailure(.unknown, code: "web_authentication_unavailable", detail: "no web authentication session is configured")
        }
        let callback: URL
        do {
            callback = try await browser.authenticate(url: url, callbackURL: redirectTo, ephemeral: ephemeral)
        } catch WebAuthenticationError.cancelled {
            logger.info("the browser sign-in was cancelled", metadata: ["operation": "\(operation)"])
            try? await store.delete(key: pkceVerifierKey)
            return .cancelled
        } catch WebAuthenticationError.cannotStart(let reason) {
            throw AuthFailure(.unknown, code: "web_authentication_unavailable", detail: reason)
        } catch {
            throw AuthFailure(error)
        }
        return .signedIn(try await signIn(fromRedirect: callback, operation: operation))
    }
}
