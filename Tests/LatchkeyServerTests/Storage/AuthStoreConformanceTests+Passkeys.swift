import Foundation
import Testing

@testable import LatchkeyServer

/// Passkeys and WebAuthn challenges, against every store.
extension AuthStoreConformanceTests {
    static func passkey(of user: UserRecord, credential: [UInt8], at date: Date = t0) -> PasskeyRecord {
        PasskeyRecord(
            userID: user.id, credentialID: credential, publicKey: [0xA5, 0x01, 0x02], attestationType: "none",
            aaguid: UUID(uuidString: "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4"), signCount: 7, transports: ["internal", "hybrid"],
            backupEligible: true, backedUp: false, friendlyName: "Google Password Manager", createdAt: date, updatedAt: date)
    }

    @Test("a passkey round-trips; is found by credential id; updates; a taken credential id writes nothing", arguments: StoreKind.available)
    func passkeyRoundTrip(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let ada = Self.user("ada-passkey@example.com")
            let bob = Self.user("bob-passkey@example.com")
            try await store.insertUser(ada, audit: nil)
            try await store.insertUser(bob, audit: nil)
            let first = Self.passkey(of: ada, credential: Array(0..<64))
            let second = Self.passkey(of: ada, credential: [9, 9, 9], at: Self.t0.addingTimeInterval(10))
            try await store.changePasskeys(of: ada.id) { current in
                #expect(current.isEmpty)
                return PasskeyPlan(changes: [.insert(second), .insert(first)], result: ())
            }
            #expect(try await store.passkeys(userID: ada.id) == [first, second], "oldest first")
            #expect(try await store.passkey(credentialID: Array(0..<64)) == first)
            #expect(try await store.passkey(credentialID: [1]) == nil)
            #expect(try await store.passkeys(userID: bob.id).isEmpty)

            var used = first
            used.signCount = 8
            used.backedUp = true
            used.friendlyName = "Work"
            used.lastUsedAt = Self.t0.addingTimeInterval(60)
            used.updatedAt = Self.t0.addingTimeInterval(60)
            try await store.changePasskeys(of: ada.id) { [used] _ in PasskeyPlan(changes: [.update(used)], result: ()) }
            #expect(try await store.passkey(credentialID: first.credentialID) == used)

            let copy = Self.passkey(of: bob, credential: Array(0..<64))
            let audit = AuditEntry(action: .passkeyCreated, actorID: bob.id, actorUsername: bob.email, ipAddress: "192.0.2.1", createdAt: Self.t0)
            await #expect(throws: StoreError.duplicateCredential) {
                try await store.changePasskeys(of: bob.id) { _ in PasskeyPlan(changes: [.audit(audit), .insert(copy)], result: ()) }
            }
            #expect(try await store.passkeys(userID: bob.id).isEmpty)
            let entries = try await store.auditEntries(offset: 0, limit: 10)
            #expect(!entries.contains { $0.id == audit.id }, "the plan's audit entry rolled back too")

            // A plan that throws (its answer to the client) writes nothing, and the error reaches the caller.
            await #expect(throws: AuthError.passkeyNotFound) {
                try await store.changePasskeys(of: ada.id) { _ throws -> PasskeyPlan<Void> in throw AuthError.passkeyNotFound }
            }
            try await store.changePasskeys(of: ada.id) { _ in PasskeyPlan(changes: [.delete(id: second.id)], result: ()) }
            #expect(try await store.passkeys(userID: ada.id).map(\.id) == [first.id])
            #expect(try await store.deleteUser(id: ada.id, audit: nil))
            #expect(try await store.passkey(credentialID: first.credentialID) == nil, "a passkey goes with its account")
        }
    }

    @Test("a challenge is spent once, only by its kind and user; saving deletes expired ones", arguments: StoreKind.available)
    func webAuthnChallenges(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let ada = Self.user("ada-challenge@example.com")
            try await store.insertUser(ada, audit: nil)
            let registration = WebAuthnChallengeRecord(
                kind: .registration, userID: ada.id, challenge: Array(0..<32), createdAt: Self.t0, expiresAt: Self.t0.addingTimeInterval(300))
            let signIn = WebAuthnChallengeRecord(
                kind: .authentication, userID: nil, challenge: Array(repeating: 3, count: 32), createdAt: Self.t0,
                expiresAt: Self.t0.addingTimeInterval(300))
            try await store.saveWebAuthnChallenge(registration, deletingExpiredBefore: Self.t0)
            try await store.saveWebAuthnChallenge(signIn, deletingExpiredBefore: Self.t0)

            #expect(try await store.consumeWebAuthnChallenge(id: registration.id, kind: .authentication, userID: ada.id) == nil)
            #expect(try await store.consumeWebAuthnChallenge(id: registration.id, kind: .registration, userID: UUID()) == nil)
            #expect(try await store.consumeWebAuthnChallenge(id: registration.id, kind: .registration, userID: nil) == nil)
            #expect(try await store.consumeWebAuthnChallenge(id: signIn.id, kind: .authentication, userID: ada.id) == nil)
            #expect(try await store.consumeWebAuthnChallenge(id: registration.id, kind: .registration, userID: ada.id) == registration)
            #expect(try await store.consumeWebAuthnChallenge(id: registration.id, kind: .registration, userID: ada.id) == nil, "spent")

            // Saving another one later deletes the sign-in challenge that expired meanwhile.
            let later = WebAuthnChallengeRecord(
                kind: .authentication, userID: nil, challenge: [1], createdAt: Self.t0.addingTimeInterval(400),
                expiresAt: Self.t0.addingTimeInterval(700))
            try await store.saveWebAuthnChallenge(later, deletingExpiredBefore: Self.t0.addingTimeInterval(400))
            #expect(try await store.consumeWebAuthnChallenge(id: signIn.id, kind: .authentication, userID: nil) == nil)
            #expect(try await store.consumeWebAuthnChallenge(id: later.id, kind: .authentication, userID: nil) == later)
        }
    }
}
