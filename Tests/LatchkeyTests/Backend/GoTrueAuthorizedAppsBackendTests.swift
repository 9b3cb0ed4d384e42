import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

/// The user's OAuth grants (`/user/oauth/grants`) as GoTrue's `UserListOAuthGrants` and
/// `UserRevokeOAuthGrant` put them on the wire (and auth-js's `listGrants` / `revokeGrant` send
/// them), against a recording transport.
@Suite("GoTrue wire format: authorized apps")
struct GoTrueAuthorizedAppsBackendTests {
    static let base = URL(string: "https://project.example.co/auth/v1")!

    func makeBackend(_ body: String, status: Int = 200, headers: [String: String] = [:]) -> (GoTrueBackend, RecordingTransport) {
        let transport = RecordingTransport(HTTPResponse(status: status, headers: headers, body: Data(body.utf8)))
        return (GoTrueBackend(configuration: .init(baseURL: Self.base, apiKey: "anon-key"), transport: transport), transport)
    }

    @Test("List: GET /user/oauth/grants with the user's token; every member read, absent and null descriptions are nil")
    func list() async throws {
        let (backend, transport) = makeBackend(
            #"""
            [{"client":{"id":"9A1F7C2E-4B3D-4E5F-8A6B-7C8D9E0F1A2B","name":"Example Notes","uri":"https://notes.example.com",
                        "logo_uri":"https://cdn.example.com/notes.png"},
              "scopes":["openid","email","profile"],"granted_at":"2026-11-29T10:15:30.123456Z"},
             {"client":{"id":"0b2a7c1e-4f6d-4e57-9a51-2f0c3d8e9b10"},"scopes":["email"],"granted_at":"2026-11-28T08:00:00+02:00"},
             {"client":{"id":"1c3b8d2f-5a7e-4f68-8b62-3a1d4e9fac21","name":null,"uri":null,"logo_uri":null},"scopes":null,
              "granted_at":"2026-11-27T00:00:00Z"}]
            """#)
        let apps = try await backend.authorizedApps(accessToken: "user-jwt")
        #expect(apps.count == 3)
        #expect(apps[0].clientID == "9a1f7c2e-4b3d-4e5f-8a6b-7c8d9e0f1a2b", "lowercased, as the server names it elsewhere")
        #expect(apps[0].id == apps[0].clientID)
        #expect(apps[0].name == "Example Notes")
        #expect(apps[0].uri == URL(string: "https://notes.example.com"))
        #expect(apps[0].logoURI == URL(string: "https://cdn.example.com/notes.png"))
        #expect(apps[0].scopes == ["openid", "email", "profile"])
        #expect(abs(apps[0].grantedAt.timeIntervalSince1970 - 1_795_947_330.123456) < 0.000_01)
        #expect(
            apps[1]
                == AuthorizedApp(
                    clientID: "0b2a7c1e-4f6d-4e57-9a51-2f0c3d8e9b10", scopes: ["email"], grantedAt: Date(timeIntervalSince1970: 1_795_845_600)))
        #expect(apps[2].name == nil && apps[2].uri == nil && apps[2].logoURI == nil && apps[2].scopes.isEmpty)
        let request = try #require(transport.requests.withLock { $0.first })
        #expect(request.method == "GET")
        #expect(request.url.absoluteString == "https://project.example.co/auth/v1/user/oauth/grants")
        #expect(request.headers["Authorization"] == "Bearer user-jwt")
        #expect(request.headers["apikey"] == "anon-key")
        #expect(request.body == nil)
    }

    @Test("An app's own links are kept only when safe to open: its page over https or http, its logo over https")
    func unsafeLinks() async throws {
        let (backend, _) = makeBackend(
            #"""
            [{"client":{"id":"9a1f7c2e-4b3d-4e5f-8a6b-7c8d9e0f1a2b","name":"Sneaky","uri":"javascript://x/%0Aalert(1)",
                        "logo_uri":"http://cdn.example.com/logo.png"},"scopes":[],"granted_at":"2026-11-29T10:15:30Z"},
             {"client":{"id":"0b2a7c1e-4f6d-4e57-9a51-2f0c3d8e9b10","uri":"http://notes.example.com","logo_uri":"file:///etc/passwd"},
              "scopes":[],"granted_at":"2026-11-29T10:15:30Z"},
             {"client":{"id":"1c3b8d2f-5a7e-4f68-8b62-3a1d4e9fac21","uri":"notes.example.com","logo_uri":"data:image/png;base64,AAAA"},
              "scopes":[],"granted_at":"2026-11-29T10:15:30Z"}]
            """#)
        let apps = try await backend.authorizedApps(accessToken: "user-jwt")
        #expect(apps.map(\.uri) == [nil, URL(string: "http://notes.example.com"), nil])
        #expect(apps.map(\.logoURI) == [nil, nil, nil])
        #expect(apps[0].name == "Sneaky")
    }

    @Test("No grants is an empty list; an answer that is not a list of grants is an invalid response")
    func emptyAndUnreadable() async throws {
        let (empty, _) = makeBackend("[]")
        #expect(try await empty.authorizedApps(accessToken: "t").isEmpty)
        for body in [#"{}"#, #"[{"scopes":[]}]"#, #"[{"client":{"id":"x"},"scopes":[],"granted_at":"yesterday"}]"#, "not json"] {
            let (backend, _) = makeBackend(body)
            do {
                let apps = try await backend.authorizedApps(accessToken: "t")
                Issue.record("\(body) decoded as \(apps)")
            } catch BackendError.invalidResponse {
            } catch {
                Issue.record("\(body): \(error)")
            }
        }
    }

    @Test("Revoke: DELETE /user/oauth/grants?client_id=<lowercase uuid> with the user's token, no body; 204 is done")
    func revoke() async throws {
        let (backend, transport) = makeBackend("", status: 204)
        try await backend.revokeAuthorizedApp(accessToken: "user-jwt", clientID: "9A1F7C2E-4B3D-4E5F-8A6B-7C8D9E0F1A2B")
        let request = try #require(transport.requests.withLock { $0.first })
        #expect(request.method == "DELETE")
        #expect(request.url.absoluteString == "https://project.example.co/auth/v1/user/oauth/grants?client_id=9a1f7c2e-4b3d-4e5f-8a6b-7c8d9e0f1a2b")
        #expect(request.headers["Authorization"] == "Bearer user-jwt")
        #expect(request.body == nil)
    }

    @Test("Revoke with a client ID that is not a UUID sends nothing: the server's 400 validation_failed")
    func revokeNotUUID() async throws {
        let (backend, transport) = makeBackend("", status: 204)
        for id in ["", "x", "9a1f7c2e-4b3d-4e5f-8a6b-7c8d9e0f1a2b&client_id=0b2a7c1e-4f6d-4e57-9a51-2f0c3d8e9b10", "../user"] {
            await #expect(throws: BackendError.server(status: 400, code: "validation_failed", message: "invalid client_id format", retryAfter: nil)) {
                try await backend.revokeAuthorizedApp(accessToken: "user-jwt", clientID: id)
            }
        }
        #expect(transport.requests.withLock { $0.isEmpty })
    }

    @Test("The server's refusals map onto the taxonomy: no grant, the OAuth server off, a session ended")
    func errors() async throws {
        let cases: [(Int, String, [String: String], AuthFailure.Category, String)] = [
            (
                404, #"{"code":404,"error_code":"oauth_consent_not_found","msg":"No active grant found for this client"}"#, [:], .invalidInput,
                "oauth_consent_not_found"
            ),
            (
                404, #"{"code":"oauth_consent_not_found","message":"No active grant found for this client"}"#,
                ["x-sb-error-code": "oauth_consent_not_found"], .invalidInput, "oauth_consent_not_found"
            ),
            (404, #"{"code":404,"error_code":"feature_disabled","msg":"OAuth server is disabled"}"#, [:], .permission, "feature_disabled"),
            (
                403, #"{"code":403,"error_code":"session_not_found","msg":"Session from session_id claim in JWT does not exist"}"#, [:],
                .sessionRevoked, "session_not_found"
            ),
            (400, #"{"code":400,"error_code":"validation_failed","msg":"invalid client_id format"}"#, [:], .invalidInput, "validation_failed"),
        ]
        for (status, body, headers, category, code) in cases {
            let (backend, _) = makeBackend(body, status: status, headers: headers)
            do {
                try await backend.revokeAuthorizedApp(accessToken: "t", clientID: "9a1f7c2e-4b3d-4e5f-8a6b-7c8d9e0f1a2b")
                Issue.record("\(code) did not throw")
            } catch {
                let failure = AuthFailure(error)
                #expect(failure.category == category, "\(code)")
                #expect(failure.code == code)
                #expect(failure.status == status)
            }
        }
        let removed = AuthFailure(.invalidInput, code: "oauth_consent_not_found", status: 404)
        #expect(removed.presentation.title == "App Already Removed")
        #expect(removed.presentation.message == "This app no longer has access to your account.")
        #expect(AuthFailure(.permission, code: "feature_disabled", status: 404).presentation.title == "Not Available")
    }
}
