import Foundation
import LatchkeyWire
import Testing

@testable import LatchkeyServer

/// `latchkey import firebase`'s use case on each store: the mapping, re-runs that update and
/// never duplicate, and the rows it refuses.
@Suite("Firebase import")
struct FirebaseImportTests {
    static let now = Date(timeIntervalSince1970: 1_900_000_000)
    static let published = FirebaseScryptHashTests.published

    /// An export file of `users` (JSON objects), written to a temporary file.
    static func export(_ users: [[String: Any]]) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-export-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: ["users": users], options: [.prettyPrinted]).write(to: file)
        return file
    }

    static var sample: [[String: Any]] {
        [
            [
                "localId": "kYi4EvWQlQTKSfnJ3dRSP6IH3ed2", "email": "User1@Test.com", "emailVerified": true,
                "passwordHash": published.hash, "salt": published.salt, "displayName": "Test User 1", "createdAt": "1508893925000",
                "lastSignedInAt": "1508893926000",
                "providerUserInfo": [["providerId": "google.com", "rawId": "1122334455", "email": "user1@gmail.com", "displayName": "Test"]],
                "customAttributes": #"{"admin": true}"#,
            ],
            ["localId": "8f0d2c1e-3b4a-4c5d-9e6f-7a8b9c0d1e2f", "email": "uuid@test.com", "emailVerified": false, "createdAt": 1_508_893_925_000],
            ["localId": "disabled-uid", "email": "off@test.com", "emailVerified": true, "disabled": true],
            ["localId": "phone-uid", "phoneNumber": "+15555550100"],
            ["localId": "hash-uid", "email": "badhash@test.com", "passwordHash": "***", "salt": "c2FsdA=="],
            ["email": "no-uid@test.com"],
        ]
    }

    func run(_ store: any AuthStore, _ file: URL, config: FirebaseHashConfig? = nil) async throws -> ImportReport {
        try await FirebaseImport(store: store, hashConfig: config ?? FirebaseHashConfigTests.published, confirmUnverified: false, now: { Self.now })
            .run(file: file)
    }

    @Test("the mapping: UIDs, addresses, names, times, bans, claims and identities", arguments: StoreKind.available)
    func mapping(kind: StoreKind) async throws {
        let file = try Self.export(Self.sample)
        defer { try? FileManager.default.removeItem(at: file) }
        try await kind.withStore { store in
            let report = try await run(store, file)
            #expect(report.read == 6 && report.created == 4 && report.updated == 0 && report.refused.count == 2)
            #expect(report.refused.map(\.position) == [5, 6])
            #expect(report.refused[0].reason.contains("base64"))
            #expect(report.refused[1].uid == nil && report.refused[1].reason.contains("localId"))
            #expect(!report.refused.contains { $0.reason.contains("@") || $0.reason.contains("***") }, "reasons name no value")

            let derived = FirebaseAccountMapping.userID(forUID: "kYi4EvWQlQTKSfnJ3dRSP6IH3ed2")
            #expect(derived == FirebaseAccountMapping.userID(forUID: "kYi4EvWQlQTKSfnJ3dRSP6IH3ed2"), "the same id on every run")
            #expect(derived.uuidString.lowercased().dropFirst(14).first == "5", "a version-5 UUID")
            let user = try #require(try await store.user(id: derived))
            #expect(user.email == "user1@test.com")
            #expect(user.emailConfirmedAt == Date(timeIntervalSince1970: 1_508_893_925))
            #expect(user.createdAt == Date(timeIntervalSince1970: 1_508_893_925))
            #expect(user.lastSignInAt == Date(timeIntervalSince1970: 1_508_893_926))
            #expect(user.userMetadata["display_name"] == .string("Test User 1"))
            #expect(user.appMetadata["admin"] == .bool(true))
            #expect(user.providers == ["email", "firebase", "google"])
            #expect(user.passwordHash == FirebaseScryptHashTests.publishedText)
            let identities = try await store.identities(userID: derived)
            #expect(Set(identities.map { "\($0.provider):\($0.subject)" }) == ["firebase:kYi4EvWQlQTKSfnJ3dRSP6IH3ed2", "google:1122334455"])

            let kept = try #require(try await store.user(id: UUID(uuidString: "8f0d2c1e-3b4a-4c5d-9e6f-7a8b9c0d1e2f")!), "a UUID UID is the id")
            #expect(kept.emailConfirmedAt == nil && kept.passwordHash == nil && kept.providers == ["email", "firebase"])
            let keptIdentities = try await store.identities(userID: kept.id)
            #expect(
                keptIdentities.map { "\($0.provider):\($0.subject)" } == ["firebase:8f0d2c1e-3b4a-4c5d-9e6f-7a8b9c0d1e2f"],
                "every UID is a firebase identity")
            let disabled = try #require(try await store.user(email: "off@test.com"))
            #expect(disabled.isBanned(at: Self.now))
        }
    }

    @Test(
        "a phone-only account keeps its number, confirmed, signs in with it and its UID; its phone entry is no identity; a re-run is unchanged",
        arguments: StoreKind.available)
    func phoneOnly(kind: StoreKind) async throws {
        let entry: [String: Any] = [
            "localId": "phone-uid", "phoneNumber": "+1 555 555 0100", "createdAt": "1508893925000",
            "providerUserInfo": [["providerId": "phone", "rawId": "+15555550100", "phoneNumber": "+15555550100"]],
        ]
        let file = try Self.export([entry, ["localId": "nothing-uid"], ["localId": "bad-phone-uid", "phoneNumber": "+0123"]])
        defer { try? FileManager.default.removeItem(at: file) }
        try await kind.withStore { store in
            let report = try await run(store, file)
            #expect(report.created == 1 && report.refused.map(\.reason) == ["no email address or phone number", "phoneNumber is not E.164"])
            let id = FirebaseAccountMapping.userID(forUID: "phone-uid")
            let user = try #require(try await store.user(id: id))
            #expect(user.email.isEmpty && !user.isAnonymous && user.emailConfirmedAt == nil)
            #expect(user.phone == "15555550100" && user.phoneConfirmedAt == Date(timeIntervalSince1970: 1_508_893_925))
            #expect(user.providers == ["phone", "firebase"] && user.appMetadata["provider"] == .string("phone"))
            let identities = try await store.identities(userID: id)
            #expect(identities.map { "\($0.provider):\($0.subject)" } == ["firebase:phone-uid"], "the phone entry is the number, not an identity")
            #expect(identities.first?.email == nil && identities.first?.identityData["phone"] == .string("15555550100"))
            let again = try await run(store, file)
            #expect(again.unchanged == 1 && again.created == 0 && again.updated == 0)
        }
    }

    @Test("a re-run updates nothing twice; a changed export updates; a password used here is kept", arguments: StoreKind.available)
    func rerun(kind: StoreKind) async throws {
        var users = Array(Self.sample.prefix(3))
        let file = try Self.export(users)
        defer { try? FileManager.default.removeItem(at: file) }
        try await kind.withStore { store in
            #expect(try await run(store, file).created == 3)
            let again = try await run(store, file)
            #expect(again.read == 3 && again.created == 0 && again.updated == 0 && again.unchanged == 3 && again.refused.isEmpty)

            // The user signs in here (bcrypt now) and confirms; an admin bans the UUID user.
            let id = FirebaseAccountMapping.userID(forUID: "kYi4EvWQlQTKSfnJ3dRSP6IH3ed2")
            var moved = try #require(try await store.user(id: id))
            moved.passwordHash = "$2b$04$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyzABCDE"
            moved.userMetadata["theme"] = .string("dark")
            try await store.updateUser(moved, audit: nil)

            users[0]["displayName"] = "Renamed"
            users[2]["disabled"] = false
            let changed = try Self.export(users)
            defer { try? FileManager.default.removeItem(at: changed) }
            let third = try await run(store, changed)
            #expect(third.created == 0 && third.updated == 2 && third.unchanged == 1)
            let after = try #require(try await store.user(id: id))
            #expect(after.passwordHash == moved.passwordHash, "a password used in Latchkey is never replaced by the old one")
            #expect(after.userMetadata == ["display_name": .string("Renamed"), "theme": .string("dark")])
            #expect(try await store.identities(userID: id).count == 2, "no identity twice")
            #expect(try await store.user(email: "off@test.com")?.isBanned(at: Self.now) == false, "enabled again in Firebase")
            let (all, total) = try await store.listUsers(offset: 0, limit: 10)
            #expect(total == 3 && all.count == 3)
        }
    }

    @Test("an address another user holds is refused, and that user is untouched", arguments: StoreKind.available)
    func emailConflict(kind: StoreKind) async throws {
        let file = try Self.export([Self.sample[1]])
        defer { try? FileManager.default.removeItem(at: file) }
        try await kind.withStore { store in
            let owner = AuthStoreConformanceTests.user("uuid@test.com")
            try await store.insertUser(owner, audit: nil)
            let report = try await run(store, file)
            #expect(report.created == 0 && report.refused.map(\.reason) == ["the email address belongs to another user"])
            #expect(try await store.user(email: "uuid@test.com") == owner)
        }
    }

    @Test("an account with a password and no hash config is refused; one without a password is not")
    func withoutConfig() async throws {
        let file = try Self.export([Self.sample[0], Self.sample[2]])
        defer { try? FileManager.default.removeItem(at: file) }
        try await StoreKind.sqlite.withStore { store in
            let report = try await FirebaseImport(store: store, hashConfig: nil, confirmUnverified: true, now: { Self.now }).run(file: file)
            #expect(report.created == 1 && report.refused.map(\.reason) == ["has a password hash, and no hash config was given"])
        }
    }
}
