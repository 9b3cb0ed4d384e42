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
        let payload: Data
        do {
            let encoder = JSONEncoder()
            let input: JSONValue = .object([
                "metadata": HookMetadata(name: "before-user-created", now: dispatcher.clock.now()).json,
                "user": try JSONDecoder().decode(JSONValue.self, from: encoder.encode(UserResponse(user))),
            ])
            payload = try encoder.encode(input)
        } catch {
            throw AuthError.hookFailed("Error marshaling JSON input.")
        }
        guard let answer = try await dispatcher.dispatch(payload) else { return }
        guard (try? JSONDecoder().decode(JSONValue.self, from: answer)) != nil else {
            throw AuthError.hookFailed("Error unmarshaling JSON output.")
        }
    }
}
