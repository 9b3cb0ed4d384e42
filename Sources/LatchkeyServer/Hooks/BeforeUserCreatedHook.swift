import Foundation
import LatchkeyWire

/// GoTrue's before user created hook (`before-user-created`): a new account — by sign-up,
/// one-time code, a provider's first sign-in or an invitation — is sent to the hook (as
/// `GET /user` would show it) before it is stored; a hook's error refuses it with that error,
/// and nothing is stored.
struct BeforeUserCreatedHook: Sendable {
    let dispatcher: any HookDispatcher

    /// Throws the hook's refusal of `user`, or GoTrue's hook error when the hook fails.
    func check(_ user: UserRecord) async throws(AuthError) {
        try await dispatcher.call("before-user-created", user: user)
    }
}
