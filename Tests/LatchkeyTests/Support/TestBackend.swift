import Foundation
@testable import Latchkey

/// An in-test ``AuthBackend`` whose answers the test controls: for the single-flight, failure
/// policy and lifecycle logic, where timing must be exact. End-to-end behaviour is tested against
/// the real server in `EndToEnd/`.
final class TestBackend: AuthBackend, @unchecked Sendable {
    struct State {
        var refreshCalls = 0
        var signInCalls = 0
        var userCalls = 0
        var signOutCalls: [SignOutScope] = []
        var refreshResults: [Result<Void, BackendError>] = []
        var userError: BackendError?
        var gate: CheckedContinuation<Void, Never>?
        var holdRefreshes = false
        var pendingRefreshes: [CheckedContinuation<Void, Never>] = []
        var tokenCounter = 0
        var expiresIn: TimeInterval = 3600
    }

    let state = LockedValue(State())
    let userID = "6f1c0a62-5b0b-4f4e-9a3e-0d9d2b8f1e11"

    var refreshCalls: Int { state.withLock { $0.refreshCalls } }
    var signInCalls: Int { state.withLock { $0.signInCalls } }

    /// The next refreshes fail with these errors (then succeed).
    func failNextRefreshes(_ errors: BackendError...) {
        state.withLock { $0.refreshResults = errors.map { .failure($0) } }
    }

    /// Refreshes wait until ``releaseRefreshes()``.
    func holdRefreshes() { state.withLock { $0.holdRefreshes = true } }

    func releaseRefreshes() {
        let pending = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.holdRefreshes = false
            defer { state.pendingRefreshes = [] }
            return state.pendingRefreshes
        }
        pending.forEach { $0.resume() }
    }

    var pendingRefreshCount: Int { state.withLock { $0.pendingRefreshes.count } }

    func makeSession(expiresIn: TimeInterval? = nil) -> Session {
        let (counter, ttl) = state.withLock { state -> (Int, TimeInterval) in
            state.tokenCounter += 1
            return (state.tokenCounter, state.expiresIn)
        }
        return Session(
            accessToken: "access-\(counter)", refreshToken: "refresh-\(counter)", expiresIn: expiresIn ?? ttl,
            expiresAt: Date().addingTimeInterval(expiresIn ?? ttl),
            user: User(id: userID, email: "ada@example.com"))
    }

    func signUp(email: String, password: String, data: [String: JSONValue]) async throws -> SignUpResult {
        .signedIn(makeSession())
    }

    func signIn(email: String, password: String) async throws -> Session {
        state.withLock { $0.signInCalls += 1 }
        try await Task.sleep(nanoseconds: 20_000_000)
        guard password == "correct horse" else {
            throw BackendError.server(status: 400, code: "invalid_credentials", message: "Invalid login credentials", retryAfter: nil)
        }
        return makeSession()
    }

    func refresh(refreshToken: String) async throws -> Session {
        let hold = state.withLock { state -> Bool in
            state.refreshCalls += 1
            return state.holdRefreshes
        }
        if hold {
            await withCheckedContinuation { continuation in
                state.withLock { $0.pendingRefreshes.append(continuation) }
            }
        }
        let next = state.withLock { state -> Result<Void, BackendError>? in
            state.refreshResults.isEmpty ? nil : state.refreshResults.removeFirst()
        }
        if case .failure(let error) = next { throw error }
        return makeSession()
    }

    func signOut(accessToken: String, scope: SignOutScope) async throws {
        state.withLock { $0.signOutCalls.append(scope) }
    }

    func user(accessToken: String) async throws -> User {
        let error = state.withLock { state -> BackendError? in
            state.userCalls += 1
            return state.userError
        }
        if let error { throw error }
        return User(id: userID, email: "ada@example.com")
    }

    func updateUser(accessToken: String, _ update: UserUpdate) async throws -> User {
        var user = User(id: userID, email: update.email ?? "ada@example.com")
        user.userMetadata = update.data ?? [:]
        return user
    }

    func resendConfirmation(email: String) async throws {}
    func recoverPassword(email: String) async throws {}
    func verify(type: VerificationType, email: String, token: String) async throws -> Session { makeSession() }
}
