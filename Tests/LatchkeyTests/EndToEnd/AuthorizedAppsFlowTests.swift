import Foundation
import LatchkeyServer
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `manager.account.authorizedApps()` and `revoke(_:)` against the real server in process, with
/// its OAuth server on: the user approves a second app, sees it listed, and takes it back.
@Suite("End to end: apps that can sign in as the user", .timeLimit(.minutes(5)))
struct AuthorizedAppsFlowTests {
    @Test("An approved app is listed with its scopes; revoking it empties the list and a second revoke says it is gone")
    func listAndRevoke() async throws {
        try await withTestServer(configure: {
            $0.oauthServer.enabled = true
            // The consent screen is the server's own /health here: the test reads the id from the URL.
            $0.oauthServer.authorizationPath = "/health"
        }) { server in
            let app = E2EApp(server: server)
            let (manager, session) = try await app.signUp()
            #expect(try await manager.account.authorizedApps().isEmpty)

            let redirect = "https://notes.example.com/callback"
            let (created, body) = try await server.server.admin(
                "POST", "admin/oauth/clients", json: ["client_name": "Example Notes", "redirect_uris": [redirect]])
            #expect(created == 201)
            let client = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            let clientID = try #require(client["client_id"] as? String)

            var query = URLComponents(string: server.baseURL.absoluteString + "/oauth/authorize")!
            query.queryItems = [
                .init(name: "client_id", value: clientID), .init(name: "redirect_uri", value: redirect), .init(name: "scope", value: "email profile"),
                .init(name: "code_challenge", value: String(repeating: "A", count: 43)), .init(name: "code_challenge_method", value: "S256"),
            ]
            let (_, landed) = try await URLSession.shared.cancellableData(for: URLRequest(url: query.url!))
            let consentPage = try #require(landed.url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false) })
            let authorizationID = try #require(consentPage.queryItems?.first { $0.name == "authorization_id" }?.value)
            let (read, _) = try await server.server.admin("GET", "oauth/authorizations/\(authorizationID)", bearer: session.accessToken)
            #expect(read == 200)
            let (approved, _) = try await server.server.admin(
                "POST", "oauth/authorizations/\(authorizationID)/consent", json: ["action": "approve"], bearer: session.accessToken)
            #expect(approved == 200)

            let apps = try await manager.account.authorizedApps()
            #expect(apps.map(\.clientID) == [clientID])
            #expect(apps.first?.name == "Example Notes" && apps.first?.scopes == ["email", "profile"])

            try await manager.account.revoke(try #require(apps.first))
            #expect(try await manager.account.authorizedApps().isEmpty)
            await #expect(throws: AuthFailure.self) { try await manager.account.revoke(clientID: clientID) }
            #expect(await manager.state.isSignedIn, "the user's own session is untouched")
        }
    }
}
