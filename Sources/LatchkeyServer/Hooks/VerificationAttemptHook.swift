import Foundation
import LatchkeyWire

/// GoTrue's verification attempt hooks: `password-verification` sees every password sign-in of
/// an existing, unbanned account, `mfa-verification` every TOTP or phone factor code checked,
/// each with whether it was right (`valid`). The hook may answer `{"decision": "reject", "message": "…"}`, which refuses
/// the attempt even when it was right; the password hook may add `"should_logout_user": true`.
///
/// An answer without a decision (or 204) lets the attempt go on as it would have. A hook that
/// fails (times out, answers garbage) refuses the attempt with GoTrue's hook error: a right
/// password or code does not get through a hook that cannot be asked.
struct VerificationAttemptHook: Sendable {
    /// Which attempts the hook sees.
    enum Kind: String, Sendable {
        case password = "password-verification"
        case mfa = "mfa-verification"
    }

    /// The hook's refusal of an attempt.
    struct Rejection: Sendable, Equatable {
        /// The message the client is answered (GoTrue's default when the hook gave none).
        var message: String
        /// Whether every session of the user ends (password hook only).
        var shouldLogoutUser: Bool
    }

    let dispatcher: any HookDispatcher
    let kind: Kind

    /// The factor a code was checked against, for the MFA hook.
    struct Factor: Sendable {
        var id: UUID
        var type: String
    }

    /// The hook's rejection of an attempt by `userID` (`nil`: go on), or GoTrue's hook error.
    func decide(userID: UUID, valid: Bool, factor: Factor? = nil, ipAddress: String) async throws(AuthError) -> Rejection? {
        var input: [String: JSONValue] = [
            "metadata": HookMetadata(name: kind.rawValue, now: dispatcher.clock.now(), ipAddress: ipAddress).json,
            "user_id": .string(userID.lowercasedString),
            "valid": .bool(valid),
        ]
        if let factor {
            input["factor_id"] = .string(factor.id.lowercasedString)
            input["factor_type"] = .string(factor.type)
        }
        let payload: Data
        do {
            payload = try JSONEncoder().encode(JSONValue.object(input))
        } catch {
            throw AuthError.hookFailed("Error marshaling JSON input.")
        }
        guard let answer = try await dispatcher.dispatch(payload) else { return nil }
        let output: Output
        do {
            output = try JSONDecoder().decode(Output.self, from: answer)
        } catch {
            throw AuthError.hookFailed("Error unmarshaling JSON output.")
        }
        guard output.decision == "reject" else { return nil }
        let message = output.message.flatMap { $0.isEmpty ? nil : String($0.prefix(1000)) } ?? kind.defaultRejectionMessage
        return Rejection(message: message, shouldLogoutUser: kind == .mfa || output.shouldLogoutUser == true)
    }

    private struct Output: Decodable {
        var decision: String?
        var message: String?
        var shouldLogoutUser: Bool?

        enum CodingKeys: String, CodingKey {
            case decision, message
            case shouldLogoutUser = "should_logout_user"
        }
    }
}

extension VerificationAttemptHook.Kind {
    /// GoTrue's message for a rejection that names none.
    var defaultRejectionMessage: String {
        switch self {
        case .password: "Further password verification attempts will be rejected."
        case .mfa: "Further MFA verification attempts will be rejected."
        }
    }
}
