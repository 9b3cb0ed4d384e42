import Foundation
import LatchkeyWire

/// GoTrue's after user created hook (`after-user-created`): a new account — by sign-up, one-time
/// code, a provider's first sign-in, an invitation or a generated sign-up link — is sent to the
/// hook (as `GET /user` shows it) once it is stored. The account stays whatever the hook says: a
/// hook's error or failure is the client's answer, and for `POST /signup` (email or phone) and
/// the one-time codes that sign up, GoTrue's 500 "Error invoking hook".
struct AfterUserCreatedHook: Sendable {
    let dispatcher: any HookDispatcher

    /// Tells the hook `user` was created; throws its error, or GoTrue's hook error when it fails.
    func notify(_ user: UserRecord) async throws(AuthError) {
        try await dispatcher.call("after-user-created", user: user)
    }

    /// Tells the hook `user` signed up; any failure is GoTrue's 500 "Error invoking hook".
    func notifySignedUp(_ user: UserRecord) async throws(AuthError) {
        do {
            try await notify(user)
        } catch {
            throw AuthError.hookFailed("Error invoking hook")
        }
    }
}
