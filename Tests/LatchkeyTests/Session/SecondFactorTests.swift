import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

extension SessionEvent {
    var isSecondFactorRequired: Bool { if case .secondFactorRequired = self { true } else { false } }
    var isSecondFactorVerified: Bool { if case .secondFactorVerified = self { true } else { false } }
    var isRefreshFailed: Bool { if case .refreshFailed = self { true } else { false } }
}

/// The manager's multi-factor logic over ``TestBackend``: events, storage, failures and how a
/// verification shares the refresh's single flight. Against the real server in `EndToEnd/`.
@Suite("Second factor (TOTP)")
struct SecondFactorTests {
    let password = "correct horse"

    @Test("A password sign-in with a verified factor is aal1 and says a second factor is required")
    func signInRequiresSecondFactor() async throws {
        let harness = Harness()
        harness.backend.enableMFA()
        await harness.manager.restore()
        let events = EventRecorder(harness.manager)
        let session = try await harness.manager.account.signIn(email: "ada@example.com", password: password)
        #expect(session.assurance.level == .aal1)
        #expect(session.requiresSecondFactor)
        #expect(await events.wait { $0.contains(where: \.isSecondFactorRequired) })
        let kinds = events.all.filter { $0.isSignedIn || $0.isSecondFactorRequired }
        #expect(kinds.first?.isSignedIn == true, "signedIn first, then the second factor: \(kinds)")
        events.cancel()
    }

    @Test("No verified factor: no second-factor event")
    func noFactorNoEvent() async throws {
        let harness = Harness()
        harness.backend.enableMFA(factors: [Factor(id: "f-1", status: .unverified)])
        await harness.manager.restore()
        let events = EventRecorder(harness.manager)
        let session = try await harness.manager.account.signIn(email: "ada@example.com", password: password)
        #expect(!session.requiresSecondFactor)
        try await harness.manager.refresh()
        #expect(await events.wait { $0.contains(where: \.isTokenRefreshed) })
        #expect(!events.all.contains { $0.isSecondFactorRequired })
        events.cancel()
    }

    @Test("challengeAndVerify stores the aal2 session as a refresh would, and emits secondFactorVerified")
    func verifyStoresAAL2() async throws {
        let harness = Harness()
        harness.backend.enableMFA()
        await harness.manager.restore()
        let before = try await harness.manager.account.signIn(email: "ada@example.com", password: password)
        let signedInAt = try #require(try await harness.stored()).signedInAt
        let events = EventRecorder(harness.manager)
        let verified = try await harness.manager.mfa.challengeAndVerify(factorID: "factor-1", code: " 123 456 ")
        #expect(verified.assurance.level == .aal2)
        #expect(!verified.requiresSecondFactor)
        #expect(verified.refreshToken != before.refreshToken)
        let stored = try #require(try await harness.stored())
        #expect(stored.session.accessToken == verified.accessToken, "durable before anyone sees it")
        #expect(stored.signedInAt == signedInAt, "the session's age counts from the password sign-in")
        #expect(await harness.manager.currentSession == verified)
        #expect(harness.backend.state.withLock { $0.verifiedWith } == [before.accessToken])
        #expect(await events.wait { $0.contains(where: \.isSecondFactorVerified) })
        #expect(!events.all.contains { $0.isSignedIn }, "the same sign-in, not a new one")
        // A refresh keeps the level (the server's answer).
        let refreshed = try await harness.manager.refresh()
        #expect(refreshed.assurance.level == .aal2)
        events.cancel()
    }

    @Test("A wrong code leaves the session as it was: no sign-out, no retry, no refreshFailed")
    func wrongCode() async throws {
        let harness = Harness()
        harness.backend.enableMFA()
        await harness.manager.restore()
        let session = try await harness.manager.account.signIn(email: "ada@example.com", password: password)
        let events = EventRecorder(harness.manager)
        do {
            try await harness.manager.mfa.challengeAndVerify(factorID: "factor-1", code: "000000")
            Issue.record("expected a failure")
        } catch let failure as AuthFailure {
            #expect(failure.category == .invalidInput)
            #expect(failure.code == "mfa_verification_failed")
            #expect(failure.presentation.title == "Incorrect Code")
        }
        #expect(await harness.manager.state == .signedIn(session))
        #expect(try await harness.stored()?.session == session)
        try await Task.sleep(for: .milliseconds(50))
        #expect(!events.all.contains { $0.isRefreshFailed })
        // Then the right code works.
        #expect(try await harness.manager.mfa.challengeAndVerify(factorID: "factor-1", code: "123456").assurance.level == .aal2)
        events.cancel()
    }

    @Test("Launch restores an aal1 session of an account with a verified factor: initialSession, then secondFactorRequired")
    func restoreAnnounces() async throws {
        let harness = Harness()
        harness.backend.enableMFA()
        let issued = harness.clock.now()
        let session = harness.backend.makeSession()
        try await storeSession(session, in: harness.store, signedInAt: issued)
        let events = EventRecorder(harness.manager)
        // (Compared by token: a fractional expiry may come back one ulp off through the store.)
        #expect(await harness.manager.restore().session?.accessToken == session.accessToken)
        #expect(await events.wait { $0.contains(where: \.isSecondFactorRequired) })
        let order = events.all.filter { $0.isInitialSession || $0.isSecondFactorRequired }
        #expect(order.first?.isInitialSession == true)
        #expect(harness.backend.refreshCalls == 0, "no network on the launch path")
        events.cancel()
    }

    @Test("A verification waits for a refresh in flight, then uses the refreshed token; refreshes wait for a verification")
    func singleFlightWithRefresh() async throws {
        let harness = Harness { $0.automaticRefresh = false }
        harness.backend.enableMFA()
        await harness.manager.restore()
        try await harness.manager.account.signIn(email: "ada@example.com", password: password)

        // A refresh in flight: the verification does not start until it lands.
        harness.backend.holdRefreshes()
        let refreshing = Task { try await harness.manager.refresh() }
        #expect(await eventually { harness.backend.pendingRefreshCount == 1 })
        let verifying = Task { try await harness.manager.mfa.verify(factorID: "factor-1", challengeID: "c-1", code: "123456") }
        try await Task.sleep(for: .milliseconds(100))
        #expect(harness.backend.state.withLock { $0.verifyCalls } == 0, "the verification waits for the refresh")
        harness.backend.releaseRefreshes()
        let refreshed = try await refreshing.value
        let verified = try await verifying.value
        #expect(harness.backend.state.withLock { $0.verifiedWith } == [refreshed.accessToken], "sent with the newest token")
        #expect(verified.assurance.level == .aal2)

        // A verification in flight: refreshes and session() callers wait and get its session.
        harness.backend.state.withLock { $0.sessionAAL = "aal1" }
        try await harness.manager.account.signIn(email: "ada@example.com", password: password)
        let refreshesBefore = harness.backend.refreshCalls
        harness.backend.verifyGate.hold()
        let second = Task { try await harness.manager.mfa.challengeAndVerify(factorID: "factor-1", code: "123456") }
        #expect(await eventually { harness.backend.verifyGate.waitingCount == 1 })
        let waiting = Task { try await harness.manager.refresh() }
        try await Task.sleep(for: .milliseconds(100))
        #expect(harness.backend.refreshCalls == refreshesBefore, "no refresh while the verification rotates the tokens")
        harness.backend.verifyGate.release()
        let secondVerified = try await second.value
        #expect(try await waiting.value == secondVerified, "the waiting refresh gets the verified session")
        #expect(harness.backend.refreshCalls == refreshesBefore)
    }

    @Test("A wrong code in flight does not fail a refresh waiting behind it")
    func refreshAfterFailedVerify() async throws {
        let harness = Harness { $0.automaticRefresh = false }
        harness.backend.enableMFA()
        await harness.manager.restore()
        try await harness.manager.account.signIn(email: "ada@example.com", password: password)
        harness.backend.verifyGate.hold()
        let wrong = Task { try await harness.manager.mfa.challengeAndVerify(factorID: "factor-1", code: "000000") }
        #expect(await eventually { harness.backend.verifyGate.waitingCount == 1 })
        let waiting = Task { try await harness.manager.refresh() }
        try await Task.sleep(for: .milliseconds(50))
        harness.backend.verifyGate.release()
        await #expect(throws: AuthFailure.self) { try await wrong.value }
        let refreshed = try await waiting.value
        #expect(refreshed.assurance.level == .aal1)
        #expect(harness.backend.refreshCalls == 1)
    }

    @Test("Enroll, list and unenroll: the stored user follows the server")
    func enrollListUnenroll() async throws {
        let harness = Harness()
        harness.backend.enableMFA(factors: [])
        await harness.manager.restore()
        try await harness.manager.account.signIn(email: "ada@example.com", password: password)
        let enrollment = try await harness.manager.mfa.enrollTOTP(friendlyName: "Phone", issuer: "Example")
        #expect(enrollment.uri.contains("Example"))
        #expect(try await harness.manager.mfa.listFactors().map(\.status) == [.unverified])
        try await harness.manager.mfa.challengeAndVerify(factorID: enrollment.factorID, code: "123456")
        #expect(await harness.manager.currentSession?.user.factors.map(\.status) == [.verified])
        try await harness.manager.mfa.unenroll(factorID: enrollment.factorID)
        #expect(harness.backend.state.withLock { $0.unenrollCalls } == 1)
        #expect(await harness.manager.currentSession?.user.factors.isEmpty == true, "the user is fetched again")
        #expect(await harness.manager.currentSession?.assurance.level == .aal1, "tokens renewed after removing a verified factor")
        #expect(try await harness.stored()?.session.user.factors.isEmpty == true)
    }

    @Test("Signed out: every MFA call is notSignedIn")
    func signedOut() async throws {
        let harness = Harness()
        await harness.manager.restore()
        for call in [
            { try await harness.manager.mfa.enrollTOTP() as Any },
            { try await harness.manager.mfa.challenge(factorID: "f") as Any },
            { try await harness.manager.mfa.verify(factorID: "f", challengeID: "c", code: "123456") as Any },
            { try await harness.manager.mfa.listFactors() as Any },
        ] as [@Sendable () async throws -> Any] {
            await #expect(throws: AuthFailure(.notSignedIn)) { _ = try await call() }
        }
    }
}
