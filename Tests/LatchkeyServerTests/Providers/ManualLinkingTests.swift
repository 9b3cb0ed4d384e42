import Foundation
import LatchkeyTesting
import Testing

@testable import LatchkeyServer

/// `/user/identities…` with manual linking off: GoTrue's route group answers 404
/// `manual_linking_disabled` to a signed-in user before any provider work or parameter check.
@Suite("Manual linking off")
struct ManualLinkingTests {
    @Test("GET /user/identities/authorize is 404 manual_linking_disabled before the provider is reached; DELETE before the id is read")
    func refusedFirst() async throws {
        // An issuer on a closed loopback port: reaching it would fail with a 500, not the 404.
        let closed = "http://127.0.0.1:\(try TestAuthServer.restartablePort())/realms/none"
        try await TestServer.with(configure: {
            $0.external.allowLoopbackProviders = true
            $0.external.keycloak = ProviderSettings(enabled: true, clientIDs: ["latchkey"], secret: "", url: closed)
            $0.external.manualLinkingEnabled = false
        }) { server in
            let session = try await server.signUp("linking-off@example.com")
            let authorize = try await server.request(
                .GET, "/user/identities/authorize?provider=keycloak&skip_http_redirect=true", bearer: session.accessToken)
            authorize.expectError(404, "manual_linking_disabled")
            #expect(authorize["msg"] as? String == "Manual linking is disabled")
            let unknown = try await server.request(.GET, "/user/identities/authorize?provider=nowhere", bearer: session.accessToken)
            unknown.expectError(404, "manual_linking_disabled")
            try await server.request(.DELETE, "/user/identities/not-a-uuid", bearer: session.accessToken)
                .expectError(404, "manual_linking_disabled")
            // Signing in still comes first: no token is GoTrue's 401.
            #expect(try await server.request(.GET, "/user/identities/authorize?provider=keycloak").status == 401)
        }
    }
}
