import Foundation
import LatchkeyTesting
import Testing

@testable import LatchkeyServer

/// `POST /token?grant_type=id_token` with provider `firebase`: an app moved from Firebase trades
/// the ID token its users still hold for a session. A local issuer stands in for Google's
/// `securetoken` keys (the loopback switch), and the users are those `latchkey import firebase`
/// made.
@Suite("Firebase ID tokens")
struct FirebaseIDTokenTests {
    static let project = "demo-latchkey"
    static let uuidUID = "8f0d2c1e-3b4a-4c5d-9e6f-7a8b9c0d1e2f"
    static let firebaseUID = "kYi4EvWQlQTKSfnJ3dRSP6IH3ed2"

    /// Imports two Firebase users into a new SQLite store, then runs `body` against a server on
    /// it that accepts the project's tokens (`project`, or none).
    static func with(project: String? = Self.project, _ body: (TestServer, TestIdentityProvider) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-firebase-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let export = directory.appendingPathComponent("users.json")
        try JSONSerialization.data(withJSONObject: [
            "users": [
                ["localId": uuidUID, "email": "uuid@example.com", "emailVerified": true, "createdAt": "1508893925000"],
                ["localId": firebaseUID, "email": "grace@example.com", "emailVerified": true, "createdAt": "1508893925000"],
            ]
        ]).write(to: export)
        let store = try SQLiteAuthStore(path: directory.appendingPathComponent("latchkey.sqlite").path)
        let report = try await FirebaseImport(store: store, hashConfig: nil, confirmUnverified: false, now: { Date() }).run(file: export)
        #expect(report.created == 2, "\(report)")
        try await TestIdentityProvider.with(algorithm: .rs256) { provider in
            try await TestServer.with(clock: ManualServerClock(Date()), store: store) { configuration in
                configuration.external.firebaseProjectID = project
                configuration.external.allowLoopbackProviders = true
                configuration.external.issuerOverrides = ["firebase": provider.issuer]
            } _: { server in
                try await body(server, provider)
            }
        }
    }

    static func exchange(_ server: TestServer, _ token: String) async throws -> TestResponse {
        try await server.request(.POST, "/token?grant_type=id_token", json: ["provider": "firebase", "id_token": token])
    }

    @Test("an imported user's Firebase ID token signs them in: a UUID UID is the user, another UID its firebase identity")
    func importedUsersSignIn() async throws {
        try await Self.with { server, provider in
            let first = try await Self.exchange(
                server, try provider.idToken(subject: Self.uuidUID, audience: Self.project, email: "uuid@example.com", issuedAt: server.clock.now()))
            #expect(first.status == 200, "\(first.text)")
            #expect(TestSession(first)?.userID == Self.uuidUID)

            let token = try provider.idToken(
                subject: Self.firebaseUID, audience: Self.project, email: "grace@example.com", issuedAt: server.clock.now(),
                claims: ["firebase": ["sign_in_provider": "password"]])
            let second = try await Self.exchange(server, token)
            #expect(second.status == 200, "\(second.text)")
            let session = try #require(TestSession(second))
            #expect(session.userID == FirebaseAccountMapping.userID(forUID: Self.firebaseUID).uuidString.lowercased())
            #expect(session.email == "grace@example.com")
            // The session is a Latchkey session like any other: it refreshes.
            let refreshed = try await server.request(.POST, "/token?grant_type=refresh_token", json: ["refresh_token": session.refreshToken])
            #expect(refreshed.status == 200)
        }
    }

    @Test("refused: another project's token, an expired one, a forged one, and any token when no project is set")
    func refusals() async throws {
        try await Self.with { server, provider in
            let otherProject = try provider.idToken(subject: Self.uuidUID, audience: "someone-elses-project", issuedAt: server.clock.now())
            #expect(try await Self.exchange(server, otherProject).status == 400)
            let expired = try provider.idToken(
                subject: Self.uuidUID, audience: Self.project, issuedAt: server.clock.now().addingTimeInterval(-7200), lifetime: 3600)
            #expect(try await Self.exchange(server, expired).status == 400)
            var forged = try provider.idToken(subject: Self.uuidUID, audience: Self.project, issuedAt: server.clock.now())
            forged.removeLast(4)
            forged += "AAAA"
            #expect(try await Self.exchange(server, forged).status == 400)
        }
        try await Self.with(project: nil) { server, provider in
            let token = try provider.idToken(subject: Self.uuidUID, audience: Self.project, issuedAt: server.clock.now())
            let response = try await Self.exchange(server, token)
            #expect(response.status == 400)
            #expect(response["error_code"] as? String == "provider_disabled")
        }
    }
}
