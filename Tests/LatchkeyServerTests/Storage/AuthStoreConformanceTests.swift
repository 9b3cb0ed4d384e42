import Foundation
import Testing

@testable import LatchkeyServer

/// The one conformance suite every ``AuthStore`` must pass, run unchanged against each store
/// kind: SQLite always; PostgreSQL when `LATCHKEY_TEST_POSTGRES_URL` names a server
/// (`scripts/test.sh` starts a throwaway one). Each test gets a fresh, empty store.
///
/// Users, email-link tokens and the audit log are here; sessions and refresh-token rotation in
/// `AuthStoreConformanceTests+Sessions.swift`.
@Suite("AuthStore conformance")
struct AuthStoreConformanceTests {
    /// Dates on whole seconds, which every store keeps exactly (PostgreSQL keeps microseconds).
    static let t0 = Date(timeIntervalSince1970: 1_900_000_000)
    let tokens = OpaqueTokens(jwtSecret: String(repeating: "c", count: 40))

    static func user(_ email: String, createdAt: Date = t0) -> UserRecord {
        UserRecord(
            email: email, passwordHash: "$2b$04$abcdefghijklmnopqrstuv", emailConfirmedAt: createdAt,
            appMetadata: ["provider": .string("email"), "providers": .array([.string("email")])],
            userMetadata: ["display_name": .string("Ada"), "age": .number(36), "tags": .array([.bool(true), .null])],
            createdAt: createdAt, updatedAt: createdAt)
    }

    static func audit(_ action: AuditEntry.Action, _ user: UserRecord, at date: Date = t0) -> AuditEntry {
        AuditEntry(action: action, actorID: user.id, actorUsername: user.email, ipAddress: "127.0.0.1", createdAt: date)
    }

    // The PostgreSQL half runs only when a test server is configured. This test is here so that
    // a run without one says so in its output, instead of silently running SQLite alone.
    @Test("PostgreSQL conformance runs", .enabled(if: PostgresTestDatabase.isAvailable, PostgresTestDatabase.skipReason))
    func postgresIsTested() {
        #expect(StoreKind.available.contains(.postgres))
    }

    // MARK: Users

    @Test("users round-trip by id and by email, every field intact", arguments: StoreKind.available)
    func userRoundTrip(kind: StoreKind) async throws {
        try await kind.withStore { store in
            var user = Self.user("ada@example.com")
            user.confirmationSentAt = Self.t0.addingTimeInterval(-60)
            user.bannedUntil = Self.t0.addingTimeInterval(3600)
            user.newEmail = "new@example.com"
            try await store.insertUser(user, audit: Self.audit(.userSignedUp, user))
            #expect(try await store.user(id: user.id) == user)
            #expect(try await store.user(email: "ada@example.com") == user)
            #expect(try await store.user(id: UUID()) == nil)
            #expect(try await store.user(email: "nobody@example.com") == nil)
            #expect(try await store.auditEntries(offset: 0, limit: 10).map(\.action) == [.userSignedUp])
        }
    }

    @Test("a taken email is duplicateEmail, on insert and on update, and nothing is written", arguments: StoreKind.available)
    func duplicateEmail(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let ada = Self.user("ada@example.com")
            try await store.insertUser(ada, audit: nil)
            await #expect(throws: StoreError.duplicateEmail) {
                try await store.insertUser(Self.user("ada@example.com"), audit: Self.audit(.userSignedUp, ada))
            }
            var bob = Self.user("bob@example.com")
            try await store.insertUser(bob, audit: nil)
            bob.email = "ada@example.com"
            await #expect(throws: StoreError.duplicateEmail) { try await store.updateUser(bob, audit: Self.audit(.userModified, bob)) }
            #expect(try await store.user(id: bob.id)?.email == "bob@example.com")
            #expect(try await store.auditEntries(offset: 0, limit: 10).isEmpty, "the failed calls' audit entries were rolled back")
            #expect(try await store.listUsers(offset: 0, limit: 10).total == 2)
        }
    }

    @Test("updateUser replaces every field", arguments: StoreKind.available)
    func updateUser(kind: StoreKind) async throws {
        try await kind.withStore { store in
            var user = Self.user("ada@example.com")
            try await store.insertUser(user, audit: nil)
            user.email = "ada.lovelace@example.com"
            user.passwordHash = nil
            user.emailConfirmedAt = nil
            user.lastSignInAt = Self.t0.addingTimeInterval(10)
            user.userMetadata = ["display_name": .string("Countess"), "nested": .object(["a": .number(1.5)])]
            user.updatedAt = Self.t0.addingTimeInterval(10)
            try await store.updateUser(user, audit: Self.audit(.userModified, user))
            #expect(try await store.user(id: user.id) == user)
            #expect(try await store.user(email: "ada@example.com") == nil)
        }
    }

    @Test("deleting a user removes their sessions, tokens and links, and says whether it existed", arguments: StoreKind.available)
    func deleteCascades(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let user = Self.user("gone@example.com")
            try await store.insertUser(user, audit: nil)
            let refresh = OpaqueTokens.random()
            let session = SessionRecord(
                userID: user.id, createdAt: Self.t0, updatedAt: Self.t0, refreshedAt: Self.t0, notAfter: nil, authMethod: "password")
            try await store.createSession(session, refreshTokenHash: OpaqueTokens.hash(refresh), updatingUser: nil, audit: nil)
            let link = OneTimeToken(userID: user.id, kind: .recovery, tokenHash: OpaqueTokens.hash("link"), relatesTo: user.email, createdAt: Self.t0)
            try await store.saveOneTimeToken(link, updatingUser: nil, audit: nil)

            #expect(try await store.deleteUser(id: user.id, audit: Self.audit(.userDeleted, user)) == true)
            #expect(try await store.user(id: user.id) == nil)
            #expect(try await store.sessionWithUser(id: session.id) == nil)
            #expect(try await store.consumeOneTimeToken(hash: link.tokenHash, kinds: [.recovery]) == nil)
            let outcome = try await rotate(refresh, in: store)
            #expect(outcome.refusal == .refreshTokenNotFound, "the user's tokens went with them")
            #expect(try await store.deleteUser(id: user.id, audit: Self.audit(.userDeleted, user)) == false)
            #expect(try await store.auditEntries(offset: 0, limit: 10).map(\.action) == [.userDeleted], "audited once, when it existed")
        }
    }

    @Test("listUsers pages oldest first and counts them all", arguments: StoreKind.available)
    func pagination(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let users = (0..<7).map { Self.user("user\($0)@example.com", createdAt: Self.t0.addingTimeInterval(Double($0))) }
            for user in users.shuffled() { try await store.insertUser(user, audit: nil) }
            let first = try await store.listUsers(offset: 0, limit: 3)
            #expect(first.total == 7)
            #expect(first.users.map(\.email) == users[0..<3].map(\.email))
            #expect(try await store.listUsers(offset: 3, limit: 3).users.map(\.email) == users[3..<6].map(\.email))
            #expect(try await store.listUsers(offset: 6, limit: 3).users.map(\.email) == [users[6].email])
            let beyond = try await store.listUsers(offset: 50, limit: 3)
            #expect(beyond.users.isEmpty && beyond.total == 7)
        }
    }

    @Test("listUsers newest first, filtered by address or full name without case; % and _ match themselves", arguments: StoreKind.available)
    func listingOrderAndFilter(kind: StoreKind) async throws {
        try await kind.withStore { store in
            var users = (0..<4).map { Self.user("member\($0)@example.com", createdAt: Self.t0.addingTimeInterval(Double($0))) }
            users[1].userMetadata["full_name"] = .string("Ada LOVELACE")
            users[2].email = "percent_sign@example.com"
            var anonymous = Self.user("unused@example.com", createdAt: Self.t0.addingTimeInterval(10))
            anonymous.email = ""
            anonymous.isAnonymous = true
            for user in users + [anonymous] { try await store.insertUser(user, audit: nil) }

            let newest = try await store.listUsers(offset: 0, limit: 10, listing: UserListing())
            #expect(newest.users.map(\.id) == ([anonymous] + users.reversed()).map(\.id), "every user, the one without an address too")
            #expect(newest.total == 5)
            let oldest = try await store.listUsers(offset: 1, limit: 2, listing: UserListing(newestFirst: false))
            #expect(oldest.users.map(\.id) == users[1...2].map(\.id))

            let byName = try await store.listUsers(offset: 0, limit: 10, listing: UserListing(filter: "lovelace"))
            #expect(byName.users.map(\.id) == [users[1].id] && byName.total == 1)
            let byAddress = try await store.listUsers(offset: 0, limit: 10, listing: UserListing(filter: "MEMBER"))
            #expect(byAddress.users.map(\.id) == [users[3].id, users[1].id, users[0].id] && byAddress.total == 3)
            let literal = try await store.listUsers(offset: 0, limit: 10, listing: UserListing(filter: "t_s"))
            #expect(literal.users.map(\.id) == [users[2].id], "_ is not a wildcard")
            let none = try await store.listUsers(offset: 0, limit: 10, listing: UserListing(filter: "%"))
            #expect(none.users.isEmpty && none.total == 0, "% is not a wildcard")
        }
    }

    // MARK: Email-link tokens

    @Test("email-link tokens: one per kind, spent once, only for the kinds asked", arguments: StoreKind.available)
    func oneTimeTokens(kind: StoreKind) async throws {
        try await kind.withStore { store in
            var user = Self.user("link@example.com")
            try await store.insertUser(user, audit: nil)
            let old = OneTimeToken(
                userID: user.id, kind: .confirmation, tokenHash: OpaqueTokens.hash("old"), relatesTo: user.email, createdAt: Self.t0)
            try await store.saveOneTimeToken(old, updatingUser: nil, audit: nil)
            user.confirmationSentAt = Self.t0.addingTimeInterval(5)
            let new = OneTimeToken(
                userID: user.id, kind: .confirmation, tokenHash: OpaqueTokens.hash("new"), relatesTo: user.email,
                createdAt: Self.t0.addingTimeInterval(5))
            try await store.saveOneTimeToken(new, updatingUser: user, audit: Self.audit(.userConfirmationRequested, user))
            #expect(try await store.user(id: user.id)?.confirmationSentAt == user.confirmationSentAt, "the user was saved with the token")

            #expect(try await store.consumeOneTimeToken(hash: old.tokenHash, kinds: [.confirmation]) == nil, "replaced by the newer one")
            #expect(try await store.consumeOneTimeToken(hash: new.tokenHash, kinds: [.recovery]) == nil, "wrong kind")
            let consumed = try #require(try await store.consumeOneTimeToken(hash: new.tokenHash, kinds: [.recovery, .confirmation]))
            #expect(consumed.token == new)
            #expect(consumed.user == user)
            #expect(try await store.consumeOneTimeToken(hash: new.tokenHash, kinds: [.confirmation]) == nil, "spent")
        }
    }

    @Test("whether a user has a token of a kind: the two of an email change are told apart and spent one by one", arguments: StoreKind.available)
    func emailChangeTokens(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let user = Self.user("change@example.com")
            let other = Self.user("other@example.com")
            try await store.insertUser(user, audit: nil)
            try await store.insertUser(other, audit: nil)
            let toCurrent = OneTimeToken(
                userID: user.id, kind: .emailChangeCurrent, tokenHash: OpaqueTokens.hash("current"), relatesTo: user.email, createdAt: Self.t0)
            let toNew = OneTimeToken(
                userID: user.id, kind: .emailChange, tokenHash: OpaqueTokens.hash("new"), relatesTo: "moved@example.com", createdAt: Self.t0)
            try await store.saveOneTimeToken(toCurrent, updatingUser: nil, audit: nil)
            try await store.saveOneTimeToken(toNew, updatingUser: nil, audit: nil)
            #expect(try await store.hasOneTimeToken(userID: user.id, kind: .emailChangeCurrent))
            #expect(try await store.hasOneTimeToken(userID: user.id, kind: .emailChange))
            #expect(try await store.hasOneTimeToken(userID: other.id, kind: .emailChange) == false, "another user's")
            #expect(try await store.hasOneTimeToken(userID: user.id, kind: .recovery) == false, "another kind")
            #expect(try await store.consumeOneTimeToken(hash: toCurrent.tokenHash, kinds: [.emailChange, .emailChangeCurrent])?.token == toCurrent)
            #expect(try await store.hasOneTimeToken(userID: user.id, kind: .emailChangeCurrent) == false, "spent")
            #expect(try await store.hasOneTimeToken(userID: user.id, kind: .emailChange), "the other one stays")
        }
    }

    // MARK: Audit

    @Test("the audit log reads newest first, pages, and keeps every field", arguments: StoreKind.available)
    func auditLog(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let user = Self.user("audit@example.com")
            var entries: [AuditEntry] = []
            for (index, action) in [AuditEntry.Action.userSignedUp, .login, .tokenRefreshed, .logout].enumerated() {
                var entry = Self.audit(action, user, at: Self.t0.addingTimeInterval(Double(index)))
                entry.traits = ["index": .number(Double(index)), "note": .string("ünïcode ✓")]
                entries.append(entry)
                try await store.appendAudit(entry)
            }
            var anonymous = AuditEntry(action: .userRecoveryRequested, actorID: nil, actorUsername: nil, ipAddress: "::1", createdAt: Self.t0)
            anonymous.traits = [:]
            try await store.appendAudit(anonymous)
            entries.append(anonymous)
            #expect(try await store.auditEntries(offset: 0, limit: 100) == entries.reversed())
            #expect(try await store.auditEntries(offset: 1, limit: 2) == Array(entries.reversed()[1...2]))
            #expect(try await store.auditEntries(offset: 10, limit: 2).isEmpty)
        }
    }
}
