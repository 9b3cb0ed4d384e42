import Foundation
import NIOHTTP1
import Testing

@testable import LatchkeyServer

/// `/sso`: SAML is not served; the routes answer GoTrue's error for a disabled SAML.
@Suite("SSO routes")
struct SSORoutesTests {
    @Test("POST /sso, GET /sso/saml/metadata and POST /sso/saml/acs are 404 saml_provider_disabled, also under /auth/v1")
    func samlDisabled() async throws {
        try await TestServer.with { server in
            let calls: [(HTTPMethodProbe, String)] = [(.post, "/sso"), (.get, "/sso/saml/metadata"), (.post, "/sso/saml/acs")]
            for prefix in ["", "/auth/v1"] {
                for (method, path) in calls {
                    let response = try await server.request(
                        method.nio, prefix + path, json: method == .get ? nil : ["domain": "example.com", "redirect_to": "https://evil.example"])
                    response.expectError(404, "saml_provider_disabled")
                    #expect(response["msg"] as? String == "SAML 2.0 is disabled", "\(prefix)\(path)")
                }
            }
            let newShape = try await server.request(.POST, "/sso", json: ["provider_id": "x"], headers: [("X-Supabase-Api-Version", "2024-01-01")])
            #expect(newShape["code"] as? String == "saml_provider_disabled")
            #expect(newShape["message"] as? String == "SAML 2.0 is disabled")
            // A body that is not JSON gets the same answer: nothing is read before the refusal.
            let garbage = try await server.request(.POST, "/sso", rawBody: "{not json")
            garbage.expectError(404, "saml_provider_disabled")
        }
    }
}
