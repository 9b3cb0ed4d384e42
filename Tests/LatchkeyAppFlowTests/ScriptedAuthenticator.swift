import Foundation
import Latchkey
import LatchkeyAppFlow
import LatchkeyTestSupport

/// A ``BiometricAuthenticator`` whose answers the test scripts: availability, and the outcome
/// of each prompt (success by default). Records every prompt.
final class ScriptedAuthenticator: BiometricAuthenticator, Sendable {
    struct Prompt: Equatable {
        let reason: String
        let policy: BiometricPolicy
    }

    private struct State {
        var availability: BiometricAvailability = .available(.faceID)
        var outcomes: [BiometricError?] = []
        var prompts: [Prompt] = []
        var availabilityChecks = 0
    }

    private let state = Locked(State())
    /// Holds prompts on screen while the test says so.
    private let gate = Gate()

    func setAvailability(_ availability: BiometricAvailability) { state.withLock { $0.availability = availability } }
    /// The next prompts end with these outcomes (`nil`: success), then succeed.
    func script(_ outcomes: BiometricError?...) { state.withLock { $0.outcomes = outcomes } }
    var prompts: [Prompt] { state.withLock { $0.prompts } }
    var availabilityChecks: Int { state.withLock { $0.availabilityChecks } }
    /// Prompts stay on screen until ``release()``.
    func hold() { gate.hold() }
    func release() { gate.release() }

    func availability() async -> BiometricAvailability {
        state.withLock { state in
            state.availabilityChecks += 1
            return state.availability
        }
    }

    func authenticate(reason: String, policy: BiometricPolicy) async throws {
        state.withLock { $0.prompts.append(Prompt(reason: reason, policy: policy)) }
        await gate.pass()
        let outcome = state.withLock { state -> BiometricError? in
            state.outcomes.isEmpty ? nil : state.outcomes.removeFirst()
        }
        if let outcome { throw outcome }
    }
}
