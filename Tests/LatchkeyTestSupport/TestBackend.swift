import Foundation
import Latchkey

/// An in-test ``AuthBackend`` whose answers the test controls: for the single-flight, failure
/// policy and lifecycle logic, where timing must be exact. End-to-end behaviour is tested against
/// the real server in `EndToEnd/`.
package final class TestBackend: AuthBackend, Sendable {
    package struct State: Sendable {
        package var refreshCalls = 0
        package var signInCalls = 0
        package var userCalls = 0
        package var signOutCalls: [SignOutScope] = []
        package var refreshResults: [Result<Void, BackendError>] = []
        package var userError: BackendError?
        package var tokenCounter = 0
        package var expiresIn: TimeInterval = 3600
    }

    package let state = Locked(State())
    package let userID = "6f1c0a62-5b0b-4f4e-9a3e-0d9d2b8f1e11"
    /// Holds refreshes at the server while the test says so.
    private let refreshGate = Gate()

    package init() {}

    package var refreshCalls: Int { state.withLock { $0.refreshCalls } }
    package var signInCalls: Int { state.withLock { $0.signInCalls } }

    /// The next refreshes fail with these errors (then succeed).
    package func failNextRefreshes(_ errors: BackendError...) {
        state.withLock { $0.refreshResults = errors.map { .failure($0) } }
    }

    /// Refreshes wait until ``releaseRefreshes()``.
    package func holdRefreshes() { refreshGate.hold() }

    package func releaseRefreshes() { refreshGate.release() }

    /// How many refreshes are waiting.
    package var pendingRefreshCount: Int { refreshGate.waitingCount }

    package func makeSession(expiresIn: TimeInterval? = nil) -> Session {
        let (counter, ttl) = state.withLock { state -> (Int, TimeInterval) in
            state.tokenCounter += 1
            return (state.tokenCounter, state.expiresIn)
        }
        return Session(
            accessToken: "access-\(counter)", refreshToken: "refresh-\(counter)", expiresIn: expiresIn ?? ttl,
            expiresAt: Date().addingTimeInterval(expiresIn ?? ttl),
            user: User(id: userID, email: "ada@example.com"))
    }

    package func signUp(email: String, password: String, data: [String: JSONValue]) async throws -> SignUpResult {
        .signedIn(makeSession())
    }

    package func signIn(email: String, password: String) async throws -> Session {
        state.withLock { $0.signInCalls += 1 }
        try await Task.sleep(nanoseconds: 20_000_000)
        guard password == "correct horse" else {
            throw BackendError.server(status: 400, code: "invalid_credentials", message: "Invalid login credentials", retryAfter: nil)
        }
        return makeSession()
    }

    package func refresh(refreshToken: String) async throws -> Session {
        state.withLock { $0.refreshCalls += 1 }
        await refreshGate.pass()
        let next = state.withLock { state -> Result<Void, BackendError>? in
            state.refreshResults.isEmpty ? nil : state.refreshResults.removeFirst()
        }
        if case .failure(let error) = next { throw error }
        return makeSession()
    }

    package func signOut(accessToken: String, scope: SignOutScope) async throws {
        state.withLock { $0.signOutCalls.append(scope) }
    }

    package func user(accessToken: String) async throws -> User {
        let error = state.withLock { state -> BackendError? in
            state.userCalls += 1
            return state.userError
        }
        if let error { throw error }
        return User(id: userID, email: "ada@example.com")
    }

    package func updateUser(accessToken: String, _ update: UserUpdate) async throws -> User {
        var user = User(id: userID, email: update.email ?? "ada@example.com")
        user.userMetadata = update.data ?? [:]
        return user
    }

    package func resendConfirmation(email: String) async throws {}
    package func recoverPassword(email: String) async throws {}
    package func verify(type: VerificationType, email: String, token: String) async throws -> Session { makeSession() }
}
