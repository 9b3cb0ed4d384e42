import Foundation
import Testing

@testable import LatchkeyServer

/// Browsers on another origin (supabase-js): preflights and responses carry CORS headers as
/// GoTrue sends them by default, and the allowed origins and headers are configurable.
@Suite("CORS")
struct CORSTests {
    /// What supabase-js's auth client sends in a preflight before `signInWithPassword`.
    static let supabaseJSHeaders = "apikey,authorization,content-type,x-client-info,x-supabase-api-version"

    func preflight(
        _ server: TestServer, _ path: String, origin: String = "https://app.example.com", method: String = "POST",
        headers: String? = supabaseJSHeaders
    ) async throws -> TestResponse {
        var fields = [("Origin", origin), ("Access-Control-Request-Method", method)]
        if let headers { fields.append(("Access-Control-Request-Headers", headers)) }
        return try await server.request(.OPTIONS, path, headers: fields)
    }

    @Test("a preflight from another origin is 204 with GoTrue's answer, on every path and under /auth/v1")
    func preflightByDefault() async throws {
        try await TestServer.with { server in
            for path in ["/token?grant_type=password", "/auth/v1/token?grant_type=password", "/auth/v1/admin/users", "/user", "/no/such/route"] {
                let response = try await preflight(server, path)
                #expect(response.status == 204, "\(path)")
                #expect(response.body.isEmpty)
                #expect(response.headers.first(name: "Access-Control-Allow-Origin") == "*", "\(path)")
                #expect(response.headers.first(name: "Access-Control-Allow-Methods") == "POST")
                #expect(response.headers.first(name: "Access-Control-Allow-Headers") == Self.supabaseJSHeaders)
                #expect(response.headers.first(name: "Access-Control-Allow-Credentials") == "true")
                #expect(
                    response.headers["Vary"].joined(separator: ", ").contains("Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
                )
            }
            for method in ["GET", "PUT", "PATCH", "DELETE"] {
                #expect(try await preflight(server, "/user", method: method).headers.first(name: "Access-Control-Allow-Methods") == method)
            }
            #expect(try await preflight(server, "/user", headers: nil).headers.first(name: "Access-Control-Allow-Origin") == "*")
            let mixedCase = try await preflight(server, "/user", headers: "Authorization, X-Client-Info, X-JWT-AUD, x-use-cookie, accept")
            #expect(mixedCase.headers.first(name: "Access-Control-Allow-Origin") == "*")
        }
    }

    @Test("a preflight asking for a header or method outside the rules gets no permission")
    func preflightRefused() async throws {
        try await TestServer.with { server in
            let header = try await preflight(server, "/token", headers: "authorization,x-evil")
            #expect(header.status == 204)
            #expect(header.headers.first(name: "Access-Control-Allow-Origin") == nil)
            #expect(header.headers.first(name: "Access-Control-Allow-Headers") == nil)
            for method in ["TRACE", "CONNECT", "HEAD"] {
                let response = try await preflight(server, "/token", method: method)
                #expect(response.headers.first(name: "Access-Control-Allow-Origin") == nil, "\(method)")
            }
        }
    }

    @Test("responses to cross-origin calls expose X-Total-Count, Link and X-Supabase-Api-Version, errors included")
    func actualRequests() async throws {
        try await TestServer.with { server in
            let origin = [("Origin", "https://app.example.com")]
            let list = try await server.request(.GET, "/auth/v1/admin/users", bearer: server.server.serviceRoleKey, headers: origin)
            #expect(list.status == 200)
            #expect(list.headers.first(name: "Access-Control-Allow-Origin") == "*")
            #expect(list.headers.first(name: "Access-Control-Expose-Headers") == "X-Total-Count, Link, X-Supabase-Api-Version")
            #expect(list.headers.first(name: "Access-Control-Allow-Credentials") == "true")
            #expect(list.headers["Vary"].contains("Origin"))
            let error = try await server.request(.GET, "/user", headers: origin)
            #expect(error.status == 401)
            #expect(error.headers.first(name: "Access-Control-Allow-Origin") == "*")
            let sameOrigin = try await server.request(.GET, "/health")
            #expect(sameOrigin.headers.first(name: "Access-Control-Allow-Origin") == nil)
            #expect(sameOrigin.headers["Vary"].contains("Origin"))
        }
    }

    @Test("configured origins (with a wildcard) and extra headers")
    func configured() async throws {
        try await TestServer.with(configure: {
            $0.corsAllowedOrigins = ["https://App.example.com", "https://*.preview.example.com"]
            $0.corsAllowedHeaders = ["X-Custom"]
        }) { server in
            let allowed = try await preflight(server, "/token", origin: "https://app.example.com", headers: "content-type,x-custom")
            #expect(allowed.headers.first(name: "Access-Control-Allow-Origin") == "https://app.example.com")
            #expect(allowed.headers.first(name: "Access-Control-Allow-Headers") == "content-type,x-custom")
            let preview = try await preflight(server, "/token", origin: "https://pr-7.preview.example.com")
            #expect(preview.headers.first(name: "Access-Control-Allow-Origin") == "https://pr-7.preview.example.com")
            for origin in ["https://evil.example.com", "https://app.example.com.evil.net", "null", "https://preview.example.com"] {
                let refused = try await preflight(server, "/token", origin: origin)
                #expect(refused.status == 204)
                #expect(refused.headers.first(name: "Access-Control-Allow-Origin") == nil, "\(origin)")
                let actual = try await server.request(.GET, "/health", headers: [("Origin", origin)])
                #expect(actual.status == 200)
                #expect(actual.headers.first(name: "Access-Control-Allow-Origin") == nil, "\(origin)")
            }
            let actual = try await server.request(.GET, "/health", headers: [("Origin", "https://app.example.com")])
            #expect(actual.headers.first(name: "Access-Control-Allow-Origin") == "https://app.example.com")
        }
    }
}
