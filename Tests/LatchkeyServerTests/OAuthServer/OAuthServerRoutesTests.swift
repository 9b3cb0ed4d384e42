import Foundation
import NIOHTTP1
import Testing

@testable import LatchkeyServer

/// The OAuth 2.1 server while it is off (the default), and SCIM and Web3 sign-in, which are not
/// served: their routes answer what GoTrue answers while they are disabled, checking the caller
/// first where GoTrue does.
@Suite("Features off or not served: the OAuth 2.1 server while off, SCIM, Web3")
struct OAuthServerRoutesTests {
    @Test("while off, the OAuth 2.1 server's public routes are 404 feature_disabled, also under /auth/v1, as SCIM's are")
    func publicRoutes() async throws {
        try await TestServer.with { server in
            let oauth: [(HTTPMethod, String)] = [
                (.GET, "/.well-known/oauth-authorization-server"), (.POST, "/oauth/clients/register"), (.POST, "/oauth/token"),
                (.GET, "/oauth/userinfo"), (.GET, "/oauth/authorize?client_id=x&response_type=code"),
                (.GET, "/oauth/authorizations/0b9f2d2e"), (.POST, "/oauth/authorizations/0b9f2d2e/consent"),
            ]
            for prefix in ["", "/auth/v1"] {
                for (method, path) in oauth {
                    let response = try await server.request(method, prefix + path, json: method == .GET ? nil : ["client_name": "app"])
                    response.expectError(404, "feature_disabled")
                    #expect(response["msg"] as? String == "OAuth server is disabled", "\(prefix)\(path)")
                }
            }
            for path in ["/scim/v2/ServiceProviderConfig", "/scim/v2/ResourceTypes", "/scim/v2/Schemas"] {
                let response = try await server.request(.GET, path)
                response.expectError(404, "feature_disabled")
                #expect(response["msg"] as? String == "SCIM server is disabled", "\(path)")
            }
        }
    }

    @Test("the user's grants need a signed-in user and the client routes the administrator key, before the feature answer")
    func callerFirst() async throws {
        try await TestServer.with { server in
            let session = try await server.signUp("grants@example.com", "correct horse battery")
            for method in [HTTPMethod.GET, .DELETE] {
                #expect(try await server.request(method, "/user/oauth/grants").status == 401)
                try await server.request(method, "/user/oauth/grants", bearer: session.accessToken).expectError(404, "feature_disabled")
            }
            let admin: [(HTTPMethod, String)] = [
                (.POST, "/admin/oauth/clients"), (.GET, "/admin/oauth/clients"), (.GET, "/admin/oauth/clients/c1"),
                (.PUT, "/admin/oauth/clients/c1"), (.DELETE, "/admin/oauth/clients/c1"), (.POST, "/admin/oauth/clients/c1/regenerate_secret"),
            ]
            for (method, path) in admin {
                let body: [String: any Sendable]? = method == .GET || method == .DELETE ? nil : ["client_name": "app"]
                #expect(try await server.request(method, path, json: body).status == 401, "\(path) without a key")
                #expect(try await server.request(method, path, json: body, bearer: session.accessToken).status == 403, "\(path) as a user")
                try await server.request(method, path, json: body, bearer: server.server.serviceRoleKey).expectError(404, "feature_disabled")
            }
        }
    }

    @Test("grant_type=web3 is GoTrue's 422 web3_provider_disabled; other unknown grants stay unsupported_grant_type")
    func web3() async throws {
        try await TestServer.with { server in
            let web3 = try await server.request(
                .POST, "/token?grant_type=web3", json: ["chain": "ethereum", "message": String(repeating: "m", count: 80), "signature": "0x00"])
            web3.expectError(422, "web3_provider_disabled")
            #expect(web3["msg"] as? String == "Web3 provider is disabled")
            try await server.request(.POST, "/token?grant_type=web4", json: [:]).expectError(400, "unsupported_grant_type")
        }
    }
}
