import Foundation
@testable import Latchkey

/// A ``BiometricAuthenticator`` whose answers the test scripts: availability, and the outcome
/// of each prompt (success by default). Records every prompt.
final class ScriptedAuthenticator: BiometricAuthenticator, @unchecked Sendable {
    struct Prompt: Equatable {
        let reason: String
        let policy: BiometricPolicy
    }

    private struct State {
        var availability: BiometricAvailability = .available(.faceID)
        var outcomes: [BiometricError?] = []
        var prompts: [Prompt] = []
        var availabilityChecks = 0
        var gate: [CheckedContinuation<Void, Never>] = []
        var holding = false
    }

    private let state = LockedValue(State())

    func setAvailability(_ availability: BiometricAvailability) { state.withLock { $0.availability = availability } }
    /// The next prompts end with these outcomes (`nil`: success), then succeed.
    func script(_ outcomes: BiometricError?...) { state.withLock { $0.outcomes = outcomes } }
    var prompts: [Prompt] { state.withLock { $0.prompts } }
    var availabilityChecks: Int { state.withLock { $0.availabilityChecks } }
    /// Prompts stay on screen until ``release()``.
    func hold() { state.withLock { $0.holding = true } }
    func release() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.holding = false
            defer { state.gate = [] }
            return state.gate
        }
        waiting.forEach { $0.resume() }
    }

    func availability() async -> BiometricAvailability {
        state.withLock { state in
            state.availabilityChecks += 1
            return state.availability
        }
    }

    func authenticate(reason: String, policy: BiometricPolicy) async throws {
        let holding = state.withLock { state -> Bool in
            state.prompts.append(Prompt(reason: reason, policy: policy))
            return state.holding
        }
        if holding {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    guard state.holding else { return true }
                    state.gate.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
        let outcome = state.withLock { state -> BiometricError? in
            state.outcomes.isEmpty ? nil : state.outcomes.removeFirst()
        }
        if let outcome { throw outcome }
    }
}
