import Foundation
import Logging

extension AuthAccount {
    /// The apps that can sign in as the signed-in user through the server's OAuth 2.1 server:
    /// those the user allowed on the server's consent page and has not removed, the most
    /// recently allowed first. An empty list when there are none.
    ///
    /// ```swift
    /// for app in try await manager.account.authorizedApps() {
    ///     print(app.name ?? app.clientID, app.scopes, app.grantedAt)
    /// }
    /// ```
    /// - Throws: ``AuthFailure``: ``AuthFailure/Category/permission`` with code
    ///   `feature_disabled` when the server's OAuth server is off; ``AuthFailure/Category/notSignedIn``
    ///   when signed out; ``AuthFailure/Category/sessionRevoked`` (and the manager signs out)
    ///   when the server ended the session.
    public func authorizedApps() async throws -> [AuthorizedApp] {
        try await manager.authorized("list_authorized_apps") { [backend = manager.backend] token in
            try await backend.authorizedApps(accessToken: token)
        }
    }

    /// Removes `app`'s access: the server revokes the grant and ends every session the app holds
    /// for the user, so its tokens stop working at once; the user's own session here is kept.
    /// The app has to ask the user's consent again to sign in as them.
    /// - Throws: ``AuthFailure``: ``AuthFailure/Category/invalidInput`` with code
    ///   `oauth_consent_not_found` when the app has no access (removed already, from here or
    ///   elsewhere); ``AuthFailure/Category/permission`` with `feature_disabled` when the server's
    ///   OAuth server is off.
    public func revoke(_ app: AuthorizedApp) async throws {
        try await revoke(clientID: app.clientID)
    }

    /// Removes the access of the app whose OAuth client ID is `clientID`, as ``revoke(_:)``.
    /// - Throws: ``AuthFailure``, as ``revoke(_:)``; ``AuthFailure/Category/invalidInput`` with
    ///   code `validation_failed`, before anything is sent, when `clientID` is not a UUID.
    public func revoke(clientID: String) async throws {
        guard UUID(uuidString: clientID) != nil else {
            throw AuthFailure(.invalidInput, code: "validation_failed", detail: "the client ID is not a UUID")
        }
        try await manager.authorized("revoke_authorized_app") { [backend = manager.backend] token in
            try await backend.revokeAuthorizedApp(accessToken: token, clientID: clientID)
        }
        await manager.log("authorized app revoked", "revoke_authorized_app", ["client_id": "\(clientID)"])
    }
}
