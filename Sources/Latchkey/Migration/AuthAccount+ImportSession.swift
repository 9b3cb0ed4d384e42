import Foundation
import Logging

extension AuthAccount {
    /// Takes over a session another client holds — an app's supabase-swift session (its
    /// `setSession(accessToken:refreshToken:)`), a web app's, a test's — so the user is signed in
    /// here without signing in again.
    ///
    /// While the access token is still good for more than a minute, the server is asked only who
    /// the user is (`GET /user`, which also proves the token); an expired token, or one the
    /// server no longer takes, is traded for a new session with `refreshToken` — one refresh at
    /// most. The session is then saved like any sign-in and ``SessionEvent/signedIn(_:)`` is
    /// emitted. Remove the other client's copy only after this returns: until then its session
    /// is the user's only one.
    ///
    /// ```swift
    /// // At the first launch after replacing supabase-swift with Latchkey:
    /// if await manager.currentSession == nil, let old = try await supabase.auth.session {
    ///     _ = try await manager.account.importSession(accessToken: old.accessToken, refreshToken: old.refreshToken)
    ///     try await supabase.auth.signOut(scope: .local)  // the old copy, once the new one is saved
    /// }
    /// ```
    ///
    /// - Throws: ``AuthFailure``: ``AuthFailure/Category/sessionRevoked`` when neither token is
    ///   good any more; on any failure nothing is saved and the other client's session is
    ///   untouched, so the import can be tried again.
    @discardableResult
    public func importSession(accessToken: String, refreshToken: String) async throws -> Session {
        manager.logger.info("importing a session", metadata: ["operation": "import_session"])
        do {
            let now = manager.clock.now()
            if let expiry = Self.expiry(of: accessToken), expiry.timeIntervalSince(now) > 60 {
                do {
                    let user = try await manager.backend.user(accessToken: accessToken)
                    let lifetime = expiry.timeIntervalSince(now).rounded(.down)
                    return try await manager.commitSignIn(
                        Session(accessToken: accessToken, refreshToken: refreshToken, expiresIn: lifetime, expiresAt: expiry, user: user))
                } catch let error as BackendError where !error.isTransient {
                    // The server no longer takes the access token (signed with a retired key,
                    // its session refreshed elsewhere…): the refresh token decides.
                    manager.logger.info(
                        "imported access token refused: refreshing", metadata: ["operation": "import_session", "failure": "\(AuthFailure(error))"])
                }
            }
            return try await manager.commitSignIn(try await manager.backend.refresh(refreshToken: refreshToken))
        } catch {
            let failure = AuthFailure(error)
            manager.logger.info("session import failed", metadata: ["operation": "import_session", "failure": "\(failure)"])
            throw failure
        }
    }

    /// The `exp` of a JWT, read without checking it (the server checks the token).
    static func expiry(of accessToken: String) -> Date? {
        guard let exp = JWTPayload.claims(of: accessToken)?["exp"] as? NSNumber else { return nil }
        return Date(timeIntervalSince1970: exp.doubleValue)
    }
}
