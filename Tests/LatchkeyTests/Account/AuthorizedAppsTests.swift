import Foundation
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey

/// `manager.account.authorizedApps()` and `revoke(_:)` through the manager and the GoTrue
/// backend over a scripted transport: a fresh access token, the answers, and what a refusal does
/// to the session.
@Suite("Authorized apps")
struct AuthorizedAppsTests {
    /// Answers by method and path; records every request.
    final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
        let requests = LockedValue<[HTTPRequest]>([])
        let answer: @Sendable (HTTPRequest) -> HTTPResponse

        init(_ answer: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
            self.answer = answer
        }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            requests.withLock { $0.append(request) }
            return answer(request)
        }

        var paths: [String] { requests.withLock { $0.map { "\($0.method) \($0.url.path)" } } }
    }

    static let grants = #"""
        [{"client":{"id":"9a1f7c2e-4b3d-4e5f-8a6b-7c8d9e0f1a2b","name":"Example Notes","logo_uri":"https://cdn.example.com/n.png"},
          "scopes":["openid","email"],"granted_at":"2026-11-29T10:15:30Z"}]
        """#
    static let freshToken = "eyJhbGciOiJIUzI1NiJ9.secret-access.sig"

    /// A manager signed in with a session issued `age` seconds ago (valid for an hour), over
    /// `transport`; `/token` answers a new session.
    func makeManager(
        age: TimeInterval = 0, grants: @escaping @Sendable (HTTPRequest) -> HTTPResponse
    ) async throws -> (SessionManager, ScriptedTransport) {
        let transport = ScriptedTransport { request in
            switch request.url.path {
            case "/token": HTTPResponse(status: 200, body: Data(SessionDecodingTests.goTrueSession.utf8))
            case "/user/oauth/grants": grants(request)
            case "/logout": HTTPResponse(status: 204)
            default: HTTPResponse(status: 404, body: Data(#"{"code":404,"error_code":"not_found","msg":"no such route here"}"#.utf8))
            }
        }
        let clock = ManualSessionClock()
        let store = MemoryCredentialStore()
        let issued = clock.now().addingTimeInterval(-age)
        try await storeSession(sampleSession(issuedAt: issued), in: store, signedInAt: issued)
        let backend = GoTrueBackend(configuration: .init(baseURL: URL(string: "https://auth.example.com")!), transport: transport)
        let manager = SessionManager(backend: backend, store: store, clock: clock, logger: .quiet)
        #expect(await manager.restore().isSignedIn)
        return (manager, transport)
    }

    @Test("The list goes with the session's access token and answers the apps")
    func list() async throws {
        let (manager, transport) = try await makeManager { _ in HTTPResponse(status: 200, body: Data(Self.grants.utf8)) }
        let apps = try await manager.account.authorizedApps()
        #expect(apps.map(\.clientID) == ["9a1f7c2e-4b3d-4e5f-8a6b-7c8d9e0f1a2b"])
        #expect(apps.first?.name == "Example Notes" && apps.first?.scopes == ["openid", "email"])
        let request = try #require(transport.requests.withLock { $0.last })
        #expect(request.url.path == "/user/oauth/grants")
        #expect(request.headers["Authorization"] == "Bearer access-0")
    }

    @Test("An access token about to expire is refreshed first: the list goes with the new one")
    func freshToken() async throws {
        let (manager, transport) = try await makeManager(age: 3590) { _ in HTTPResponse(status: 200, body: Data(Self.grants.utf8)) }
        _ = try await manager.account.authorizedApps()
        let paths = transport.paths
        let list = try #require(paths.firstIndex(of: "GET /user/oauth/grants"), "\(paths)")
        #expect(paths[..<list].contains("POST /token"), "refreshed before the list: \(paths)")
        #expect(transport.requests.withLock { $0[list].headers["Authorization"] } == "Bearer \(Self.freshToken)")
    }

    @Test("Revoke: DELETE with the client ID; the user stays signed in here")
    func revoke() async throws {
        let (manager, transport) = try await makeManager { _ in HTTPResponse(status: 204) }
        let app = AuthorizedApp(clientID: "9a1f7c2e-4b3d-4e5f-8a6b-7c8d9e0f1a2b", grantedAt: Date())
        try await manager.account.revoke(app)
        let request = try #require(transport.requests.withLock { $0.last })
        #expect(request.method == "DELETE")
        #expect(request.url.query == "client_id=9a1f7c2e-4b3d-4e5f-8a6b-7c8d9e0f1a2b")
        #expect(request.headers["Authorization"] == "Bearer access-0")
        #expect(await manager.state.isSignedIn)
    }

    @Test("Revoking an app with no access is invalidInput oauth_consent_not_found, and keeps the session")
    func revokeNotFound() async throws {
        let (manager, _) = try await makeManager { _ in
            HTTPResponse(
                status: 404, headers: ["x-sb-error-code": "oauth_consent_not_found"],
                body: Data(#"{"code":404,"error_code":"oauth_consent_not_found","msg":"No active grant found for this client"}"#.utf8))
        }
        await #expect(throws: AuthFailure(.invalidInput, code: "oauth_consent_not_found", status: 404)) {
            try await manager.account.revoke(clientID: "9a1f7c2e-4b3d-4e5f-8a6b-7c8d9e0f1a2b")
        }
        #expect(await manager.state.isSignedIn)
    }

    @Test("With the server's OAuth server off, the list is permission feature_disabled")
    func featureDisabled() async throws {
        let (manager, _) = try await makeManager { _ in
            HTTPResponse(status: 404, body: Data(#"{"code":404,"error_code":"feature_disabled","msg":"OAuth server is disabled"}"#.utf8))
        }
        await #expect(throws: AuthFailure(.permission, code: "feature_disabled", status: 404)) { try await manager.account.authorizedApps() }
        #expect(await manager.state.isSignedIn)
    }

    @Test("A session the server ended signs out: sessionRevoked")
    func sessionEnded() async throws {
        let (manager, _) = try await makeManager { _ in
            HTTPResponse(
                status: 403,
                body: Data(#"{"code":403,"error_code":"session_not_found","msg":"Session from session_id claim in JWT does not exist"}"#.utf8))
        }
        await #expect(throws: AuthFailure(.sessionRevoked, code: "session_not_found", status: 403)) { try await manager.account.authorizedApps() }
        #expect(!(await manager.state.isSignedIn))
    }

    @Test("A client ID that is not a UUID is refused before anything is sent; signed out, nothing is sent either")
    func refusedBeforeSending() async throws {
        let (manager, transport) = try await makeManager { _ in HTTPResponse(status: 204) }
        let before = transport.requests.withLock { $0.count }
        await #expect(throws: AuthFailure(.invalidInput, code: "validation_failed", detail: "the client ID is not a UUID")) {
            try await manager.account.revoke(clientID: "x&client_id=9a1f7c2e-4b3d-4e5f-8a6b-7c8d9e0f1a2b")
        }
        #expect(transport.requests.withLock { $0.count } == before)
        await manager.signOut()
        let afterSignOut = transport.requests.withLock { $0.count }
        await #expect(throws: AuthFailure(.notSignedIn)) { try await manager.account.authorizedApps() }
        #expect(transport.requests.withLock { $0.count } == afterSignOut)
    }
}
