import Foundation
import Latchkey

/// An in-test ``AuthBackend`` whose answers the test controls: for the single-flight, failure
/// policy and lifecycle logic, where timing must be exact. End-to-end behaviour is tested against
/// the real server in `EndToEnd/`.
package final class TestBackend: AuthBackend, Sendable {
    package struct State: Sendable {
        package var refreshCalls = 0
        /// The refresh tokens presented, in order.
        package var refreshedWith: [String] = []
        package var signInCalls = 0
        package var userCalls = 0
        package var signOutCalls: [SignOutScope] = []
        package var refreshResults: [Result<Void, BackendError>] = []
        package var userError: BackendError?
        package var tokenCounter = 0
        package var expiresIn: TimeInterval = 3600
        /// The user's factors (sessions and users carry them).
        package var factors: [Factor] = []
        /// Set: access tokens are unsigned JWTs carrying `aal` (the session's level) and `amr`.
        package var sessionAAL: String?
        package var verifyCalls = 0
        /// The access tokens verifications were sent with, in order.
        package var verifiedWith: [String] = []
        package var enrollCalls = 0
        package var unenrollCalls = 0
    }

    package let state = Locked(State())
    package let userID = "6f1c0a62-5b0b-4f4e-9a3e-0d9d2b8f1e11"
    /// Holds refreshes at the server while the test says so.
    private let refreshGate = Gate()
    /// Holds second-factor verifications while the test says so.
    package let verifyGate = Gate()
    /// The code ``verifyFactor(accessToken:factorID:challengeID:code:)`` accepts.
    package static let validTOTPCode = "123456"

    package init() {}

    package var refreshCalls: Int { state.withLock { $0.refreshCalls } }
    /// The refresh tokens presented, in order.
    package var refreshedWith: [String] { state.withLock { $0.refreshedWith } }
    package var signInCalls: Int { state.withLock { $0.signInCalls } }
    package var userCalls: Int { state.withLock { $0.userCalls } }

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
        let (aal, factors) = state.withLock { ($0.sessionAAL, $0.factors) }
        let access = aal.map { Self.unsignedJWT(counter: counter, aal: $0) } ?? "access-\(counter)"
        return Session(
            accessToken: access, refreshToken: "refresh-\(counter)", expiresIn: expiresIn ?? ttl,
            expiresAt: Date().addingTimeInterval(expiresIn ?? ttl),
            user: User(id: userID, email: "ada@example.com", factors: factors))
    }

    /// Turns on multi-factor answers: tokens carry `aal`, and the user has `factors`.
    package func enableMFA(factors: [Factor] = [Factor(id: "factor-1", friendlyName: "Phone", status: .verified)]) {
        state.withLock {
            $0.factors = factors
            $0.sessionAAL = "aal1"
        }
    }

    /// A JWT-shaped token (not signed) whose payload carries `aal` and `amr`.
    package static func unsignedJWT(counter: Int, aal: String) -> String {
        func encode(_ object: [String: Any]) -> String {
            let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            return data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        var amr: [[String: Any]] = [["method": "password", "timestamp": 1_700_000_000]]
        if aal == "aal2" { amr.insert(["method": "totp", "timestamp": 1_700_000_100], at: 0) }
        return encode(["alg": "none", "typ": "JWT"]) + "." + encode(["aal": aal, "amr": amr, "n": counter]) + ".sig"
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
        // A new session starts at aal1.
        state.withLock { if $0.sessionAAL != nil { $0.sessionAAL = "aal1" } }
        return makeSession()
    }

    package func refresh(refreshToken: String) async throws -> Session {
        state.withLock {
            $0.refreshCalls += 1
            $0.refreshedWith.append(refreshToken)
        }
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
        return User(id: userID, email: "ada@example.com", factors: state.withLock { $0.factors })
    }

    package func updateUser(accessToken: String, _ update: UserUpdate) async throws -> User {
        var user = User(id: userID, email: update.email ?? "ada@example.com")
        user.userMetadata = update.data ?? [:]
        return user
    }

    package func resendConfirmation(email: String) async throws {}
    package func recoverPassword(email: String) async throws {}
    package func verify(type: VerificationType, email: String, token: String) async throws -> Session { makeSession() }

    package func enrollTOTPFactor(accessToken: String, friendlyName: String?, issuer: String?) async throws -> TOTPEnrollment {
        let id = state.withLock { state -> String in
            state.enrollCalls += 1
            let id = "factor-\(state.factors.count + 1)"
            state.factors.append(Factor(id: id, friendlyName: friendlyName, status: .unverified))
            if state.sessionAAL == nil { state.sessionAAL = "aal1" }
            return id
        }
        return TOTPEnrollment(
            factorID: id, friendlyName: friendlyName, secret: "JBSWY3DPEHPK3PXP",
            uri: "otpauth://totp/\(issuer ?? "example"):ada@example.com?secret=JBSWY3DPEHPK3PXP", qrCodeSVG: "<svg/>")
    }

    package func challengeFactor(accessToken: String, factorID: String) async throws -> FactorChallenge {
        guard state.withLock({ $0.factors.contains { $0.id == factorID } }) else {
            throw BackendError.server(status: 404, code: "mfa_factor_not_found", message: "Factor not found", retryAfter: nil)
        }
        return FactorChallenge(id: "challenge-\(UUID().uuidString)", factorID: factorID, expiresAt: Date().addingTimeInterval(300))
    }

    package func verifyFactor(accessToken: String, factorID: String, challengeID: String, code: String) async throws -> Session {
        state.withLock {
            $0.verifyCalls += 1
            $0.verifiedWith.append(accessToken)
        }
        await verifyGate.pass()
        guard code == Self.validTOTPCode else {
            throw BackendError.server(status: 422, code: "mfa_verification_failed", message: "Invalid TOTP code entered", retryAfter: nil)
        }
        state.withLock { state in
            state.sessionAAL = "aal2"
            state.factors = state.factors.map { factor in
                var factor = factor
                if factor.id == factorID { factor.status = .verified }
                return factor
            }
        }
        return makeSession()
    }

    package func unenrollFactor(accessToken: String, factorID: String) async throws {
        state.withLock { state in
            state.unenrollCalls += 1
            state.factors.removeAll { $0.id == factorID }
            if !state.factors.contains(where: { $0.status == .verified }) { state.sessionAAL = "aal1" }
        }
    }
}
