import Foundation
import LatchkeyWire

/// Where a hook's JSON payload goes and its answer comes from: an HTTPS endpoint
/// (``HTTPHookDispatcher``) or a PostgreSQL function (``PostgresFunctionDispatcher``), as the
/// hook's URI says.
protocol HookDispatcher: Sendable {
    /// The clock a hook's `metadata.time` is read from.
    var clock: any ServerClock { get }
    /// The hook's answer to `payload` (`nil`: it had nothing to say), or GoTrue's hook error;
    /// the hook's own `{"error": …}` answer is thrown as the client's error.
    func dispatch(_ payload: Data) async throws(AuthError) -> Data?
}

extension HTTPHookDispatcher: HookDispatcher {}

extension HookDispatcher {
    /// Calls a hook whose answer only accepts or refuses: sends `fields` with the hook's
    /// `metadata` (named `name`) and `user` as `GET /user` shows it. `204` or any JSON accepts;
    /// throws the hook's refusal, or GoTrue's hook error when the hook fails.
    func call(_ name: String, user: UserRecord, _ fields: [String: JSONValue] = [:]) async throws(AuthError) {
        let payload: Data
        do {
            let encoder = JSONEncoder()
            var input = fields
            input["metadata"] = HookMetadata(name: name, now: clock.now()).json
            input["user"] = try JSONDecoder().decode(JSONValue.self, from: encoder.encode(UserResponse(user)))
            payload = try encoder.encode(JSONValue.object(input))
        } catch {
            throw AuthError.hookFailed("Error marshaling JSON input.")
        }
        guard let answer = try await dispatch(payload) else { return }
        guard (try? JSONDecoder().decode(JSONValue.self, from: answer)) != nil else {
            throw AuthError.hookFailed("Error unmarshaling JSON output.")
        }
    }
}
