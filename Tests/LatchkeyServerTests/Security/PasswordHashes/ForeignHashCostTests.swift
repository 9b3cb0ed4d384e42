import Foundation
import HummingbirdBcrypt
import LatchkeyTesting
import NIOConcurrencyHelpers
import Testing

@testable import LatchkeyServer

/// Imported password hashes cannot stall the server: their cost is capped at import, and they
/// are checked on a bounded pool of their own that native sign-ins and shutdown never wait for.
@Suite("Foreign password hashes cannot stall the server")
struct ForeignHashCostTests {
    /// A well-formed bcrypt hash of cost 31 (days of one core per check).
    static let cost31 = "$2b$31$" + String(repeating: "a", count: 53)

    @Test("POST /admin/users refuses a bcrypt hash above cost 14 with a 400 and creates nothing")
    func adminRefusesCostlyBcrypt() async throws {
        try await TestServer.with { server in
            let key = server.server.serviceRoleKey
            let created = try await server.request(
                .POST, "/admin/users", json: ["email": "slow@example.com", "password_hash": Self.cost31, "email_confirm": true], bearer: key)
            #expect(created.status == 400, "\(created.text)")
            #expect(created.errorCode == "validation_failed")
            #expect(created.text.contains("cost"))
            let listed = try await server.request(.GET, "/admin/users", bearer: key)
            #expect(!listed.text.contains("slow@example.com"))
            // Cost 14 is still accepted.
            let fourteen = "$2b$14$" + String(repeating: "a", count: 53)
            #expect(throws: Never.self) { try StoredPasswordHash(importing: fourteen) }
        }
    }

    @Test("a stored bcrypt hash above the cap is never computed at sign-in: it never matches")
    func storedCostlyHashIsNotComputed() async throws {
        let hasher = PasswordHasher(
            cost: 4, threads: 1,
            foreignCheck: { _, _ in
                Issue.record("a cost-31 hash was computed")
                return true
            })
        #expect(try await hasher.check("anything", against: Self.cost31) == PasswordCheck(matches: false, needsRehash: false))
        try await hasher.shutdown()
    }

    /// A gate the injected foreign check waits at, and how many checks reached it.
    final class Gate: Sendable {
        let entered = NIOLockedValueBox(0)
        let open = NIOLockedValueBox(false)

        func wait() {
            entered.withLockedValue { $0 += 1 }
            while !open.withLockedValue({ $0 }) { usleep(1000) }
        }
    }

    /// Waits until `condition` holds; `false` if it never did within a generous bound.
    static func until(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<60_000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return condition()
    }

    @Test("foreign hashes being checked hold neither native sign-ins nor shutdown; beyond the queue they are refused with a 429")
    func foreignChecksAreIsolated() async throws {
        let gate = Gate()
        let native = Bcrypt.hash("native password", cost: 4)
        let foreign = Bcrypt.hash("imported password", cost: 5)
        let hasher = PasswordHasher(cost: 4, threads: 1, foreignThreads: 1, foreignQueue: 1) { stored, password in
            gate.wait()
            return PasswordHasher.matches(stored, password)
        }
        // Without isolation the checks below would wait for the gate: it opens by itself after a
        // minute, so such a failure shows as a failed expectation instead of a hang.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(60))
            gate.open.withLockedValue { $0 = true }
        }
        defer { watchdog.cancel() }
        // Fills the foreign pool's thread and its one queued place.
        let held = (0..<2).map { _ in Task { try await hasher.check("wrong", against: foreign) } }
        #expect(await Self.until { gate.entered.withLockedValue { $0 } == 1 && hasher.foreignChecks == 2 })
        // While the foreign thread is held, a native check completes, and a third foreign check is refused.
        let checked = try await hasher.check("native password", against: native)
        #expect(gate.open.withLockedValue { !$0 }, "the native check waited for the foreign hashes")
        #expect(checked == PasswordCheck(matches: true, needsRehash: false))
        let refused = await #expect(throws: AuthError.self) { try await hasher.check("wrong", against: foreign) }
        #expect(refused?.code == "over_request_rate_limit")
        // Shutting down does not wait for the held hash either.
        try await hasher.shutdown()
        #expect(gate.open.withLockedValue { !$0 }, "shutdown waited for a hash")
        gate.open.withLockedValue { $0 = true }
        for task in held { _ = try? await task.value }
    }
}
