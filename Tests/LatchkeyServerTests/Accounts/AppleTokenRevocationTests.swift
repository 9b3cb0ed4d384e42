import Crypto
import Foundation
import LatchkeyTestSupport
import LatchkeyTesting
import Logging
import NIOHTTP1
import Testing

@testable import LatchkeyServer

/// Sign in with Apple and account deletion (App Review guideline 5.1.1(v)): the refresh token
/// a sign-in gives (a native app's `apple_authorization_code` traded at Apple's token
/// endpoint, or the browser flow's code exchange) is kept, and `DELETE /user` revokes it at
/// Apple's revoke endpoint: here a local stand-in that checks the client secret as Apple does.
@Suite("Apple token revocation at account deletion")
struct AppleTokenRevocationTests {
    static let teamID = "TEAM123456"
    static let bundleID = "com.example.app"

    /// A server with Apple (ID tokens from `provider`, the REST API at `apple`), the Apple key,
    /// self-deletion, and every log line kept.
    static func with(
        appleKey: Bool = true,
        _ body: (TestServer, TestIdentityProvider, AppleAPIStandIn, LogCapture) async throws -> Void
    ) async throws {
        let key = P256.Signing.PrivateKey()
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("apple-\(UUID().uuidString).p8")
        try key.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        let logs = LogCapture()
        try await AppleAPIStandIn.with(teamID: teamID, key: key.publicKey) { apple in
            try await TestIdentityProvider.with { provider in
                try await TestServer.with(clock: ManualServerClock(Date()), logger: logs.logger) { configuration in
                    configuration.allowSelfDeletion = true
                    configuration.external.allowLoopbackProviders = true
                    configuration.external.apple = ProviderSettings(enabled: true, clientIDs: ["com.example.services"])
                    configuration.external.iosBundleID = bundleID
                    configuration.external.issuerOverrides = ["apple": provider.issuer]
                    configuration.external.appleAPIURL = apple.baseURL
                    configuration.additionalRedirectURLs = ["http://localhost:3000"]
                    if appleKey {
                        configuration.external.appleTeamID = teamID
                        configuration.external.appleKeyID = "KEY1234567"
                        configuration.external.applePrivateKeyFile = keyFile.path
                    }
                } _: { server in
                    try await body(server, provider, apple, logs)
                }
            }
        }
    }

    /// Signs in natively with Apple as `subject`, sending `code` as the app's authorization code.
    static func signIn(
        _ server: TestServer, _ provider: TestIdentityProvider, subject: String, email: String, code: String?
    ) async throws -> (TestSession, TestResponse) {
        let token = try provider.idToken(subject: subject, audience: bundleID, email: email, issuedAt: server.clock.now())
        var body: [String: any Sendable] = ["provider": "apple", "id_token": token]
        if let code { body["apple_authorization_code"] = code }
        let response = try await server.request(.POST, "/token?grant_type=id_token", json: body)
        return (try #require(TestSession(response), "\(response.text)"), response)
    }

    /// Deletes the account of `session` (whose address is `email`) with a mailed nonce.
    static func delete(_ server: TestServer, _ session: TestSession, email: String) async throws -> TestResponse {
        #expect(try await server.request(.GET, "/reauthenticate", bearer: session.accessToken).status == 200)
        let nonce = try server.emailCode(to: email)
        return try await server.request(.DELETE, "/user", json: ["nonce": nonce], bearer: session.accessToken)
    }

    /// The `token_revoked` audit entries' traits, newest first.
    static func revocationAudits(_ server: TestServer) async throws -> [[String: Any]] {
        let (status, data) = try await server.server.admin("GET", "admin/audit?per_page=1000")
        #expect(status == 200)
        let entries = (try JSONSerialization.jsonObject(with: data)) as? [[String: Any]] ?? []
        return entries.compactMap { $0["payload"] as? [String: Any] }.filter { $0["action"] as? String == "token_revoked" }
            .compactMap { $0["traits"] as? [String: Any] }
    }

    @Test("native: the authorization code is traded for a refresh token; DELETE /user revokes exactly that token, for the app's client")
    func native() async throws {
        try await Self.with { server, provider, apple, logs in
            let (refreshA, refreshB) = ("apple-refresh-\(UUID().uuidString)", "apple-refresh-\(UUID().uuidString)")
            let (codeA, codeB) = ("apple-code-\(UUID().uuidString)", "apple-code-\(UUID().uuidString)")
            apple.issue(code: codeA, refreshToken: refreshA)
            apple.issue(code: codeB, refreshToken: refreshB)
            let (ada, answer) = try await Self.signIn(server, provider, subject: "001.ada", email: "ada@example.com", code: codeA)
            let (bob, _) = try await Self.signIn(server, provider, subject: "002.bob", email: "bob@example.com", code: codeB)

            // The token is in no answer: the sign-in, GET /user, the admin's view of the user.
            let me = try await server.request(.GET, "/user", bearer: ada.accessToken)
            let (adminStatus, adminUser) = try await server.server.admin("GET", "admin/users/\(ada.userID)")
            #expect(me.status == 200 && adminStatus == 200)
            for text in [answer.text, me.text, String(decoding: adminUser, as: UTF8.self)] {
                #expect(!text.contains(refreshA) && !text.contains(codeA))
            }

            let deleted = try await Self.delete(server, ada, email: "ada@example.com")
            #expect(deleted.status == 200, "\(deleted.text)")
            #expect(await eventually { apple.revoked.count == 1 })
            #expect(apple.revoked == [.init(clientID: Self.bundleID, token: refreshA, tokenTypeHint: "refresh_token")])
            #expect(apple.refusedClientSecrets == 0)
            #expect(await eventually { (try? await Self.revocationAudits(server).count) == 1 })
            let audit = try #require(try await Self.revocationAudits(server).first)
            #expect(audit["revoked"] as? Bool == true && audit["provider"] as? String == "apple")

            // Bob's token stays: his account is still there.
            #expect(try await server.request(.GET, "/user", bearer: bob.accessToken).status == 200)
            // Neither token nor code was ever logged.
            let lines = logs.lines.joined(separator: "\n")
            for secret in [refreshA, refreshB, codeA, codeB] { #expect(!lines.contains(secret)) }
        }
    }

    @Test("Apple's revoke endpoint failing: the account is still deleted; the failure is logged without the token and audited")
    func revokeFails() async throws {
        try await Self.with { server, provider, apple, logs in
            let refresh = "apple-refresh-\(UUID().uuidString)"
            apple.issue(code: "code-1", refreshToken: refresh)
            let (ada, _) = try await Self.signIn(server, provider, subject: "001.ada", email: "ada@example.com", code: "code-1")
            apple.setFailing(true)
            let deleted = try await Self.delete(server, ada, email: "ada@example.com")
            #expect(deleted.status == 200, "\(deleted.text)")
            #expect(try await server.request(.GET, "/user", bearer: ada.accessToken).status == 403, "the account is gone")
            #expect(await eventually { (try? await Self.revocationAudits(server).count) == 1 })
            let audit = try #require(try await Self.revocationAudits(server).first)
            #expect(audit["revoked"] as? Bool == false)
            #expect((audit["error"] as? String)?.contains("503") == true, "\(audit)")
            #expect(apple.revoked.isEmpty)
            #expect(await eventually { logs.lines.contains { $0.contains("not revoked") } })
            #expect(!logs.lines.joined(separator: "\n").contains(refresh))
        }
    }

    @Test("without the Apple key: no code is traded, nothing is kept, deletion works and revokes nothing")
    func withoutTheKey() async throws {
        try await Self.with(appleKey: false) { server, provider, apple, _ in
            apple.issue(code: "code-1", refreshToken: "apple-refresh-1")
            let (ada, _) = try await Self.signIn(server, provider, subject: "001.ada", email: "ada@example.com", code: "code-1")
            let deleted = try await Self.delete(server, ada, email: "ada@example.com")
            #expect(deleted.status == 200, "\(deleted.text)")
            #expect(apple.revoked.isEmpty && apple.refusedClientSecrets == 0)
            #expect(try await Self.revocationAudits(server).isEmpty)
        }
    }

    @Test("a code Apple refuses does not stop the sign-in")
    func refusedCode() async throws {
        try await Self.with { server, provider, apple, _ in
            let (ada, _) = try await Self.signIn(server, provider, subject: "001.ada", email: "ada@example.com", code: "never-issued")
            #expect(try await server.request(.GET, "/user", bearer: ada.accessToken).status == 200)
            let deleted = try await Self.delete(server, ada, email: "ada@example.com")
            #expect(deleted.status == 200)
            #expect(apple.revoked.isEmpty)
        }
    }

    @Test("the browser flow: the refresh token of Apple's code exchange is kept and revoked at deletion, for the services ID")
    func browser() async throws {
        try await Self.with { server, provider, apple, logs in
            provider.signInNext(subject: "001234.apple", email: "relay@privaterelay.appleid.com", name: "Ada Lovelace")
            let browser = BrowserSignInTests.Browser(server)
            let page = try await browser.follow(BrowserSignInTests.authorize(server, provider: "apple"))
            #expect(page.status == 200, "\(page.text)")
            let action = try #require(page.text.firstMatch(of: /action="([^"]+)"/)?.1).replacingOccurrences(of: "&amp;", with: "&")
            var fields: [String: String] = [:]
            for match in page.text.matches(of: /name="([^"]+)" value="([^"]*)"/) {
                fields[String(match.1)] = String(match.2).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
            }
            let landed = try await browser.send(String(action), method: .POST, form: fields)
            let location = try #require(landed.headers.first(name: "Location"))
            let fragment = BrowserSignInTests.fragment(location)
            let access = try #require(fragment["access_token"], "\(location)")
            let appleRefresh = try #require(fragment["provider_refresh_token"], "\(location)")

            let me = try await server.request(.GET, "/user", bearer: access)
            #expect(me.status == 200 && !me.text.contains(appleRefresh))
            let sessionJSON: [String: Any] = ["access_token": access, "refresh_token": fragment["refresh_token"] ?? "", "user": me.json]
            let session = try #require(
                TestSession(TestResponse(status: 200, headers: [:], body: try JSONSerialization.data(withJSONObject: sessionJSON))))
            let deleted = try await Self.delete(server, session, email: "relay@privaterelay.appleid.com")
            #expect(deleted.status == 200, "\(deleted.text)")
            #expect(await eventually { apple.revoked.count == 1 })
            #expect(apple.revoked == [.init(clientID: "com.example.services", token: appleRefresh, tokenTypeHint: "refresh_token")])
            #expect(!logs.lines.joined(separator: "\n").contains(appleRefresh))
        }
    }
}
