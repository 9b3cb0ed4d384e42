import Foundation
import NIOHTTP1
import Testing

@testable import LatchkeyServer

/// Bad input gets a 4xx JSON error: never a 5xx, a crash or a partial write.
@Suite("Bad input")
struct BadInputTests {
    @Test("malformed, non-object, wrongly typed and oversized bodies on every body-taking endpoint")
    func badBodies() async throws {
        try await TestServer.with { server in
            let session = try await server.signUp("input@example.com")
            let endpoints = [
                "/signup", "/token?grant_type=password", "/token?grant_type=refresh_token", "/verify", "/recover", "/resend",
            ]
            let bodies = [
                "{not json", "[1,2,3]", "\"string\"", "42", "null", #"{"email": 5, "password": []}"#, #"{"refresh_token": {"a": 1}}"#,
                #"{"type": 7}"#,
            ]
            for path in endpoints {
                for body in bodies {
                    let response = try await server.request(.POST, path, rawBody: body)
                    #expect((400..<500).contains(response.status), "\(path) \(body) → \(response.status)")
                    #expect(response.errorCode != nil, "\(path) \(body) has an error_code")
                }
            }
            let userUpdate = try await server.request(.PUT, "/user", rawBody: #"{"data": "not an object"}"#, bearer: session.accessToken)
            #expect(userUpdate.status == 400)
            let big = String(repeating: "a", count: 1_100_000)
            let oversized = try await server.request(.POST, "/signup", rawBody: #"{"email": "big@example.com", "password": "\#(big)"}"#)
            #expect(oversized.status == 413)
            #expect(try await server.signIn("big@example.com").errorCode == "invalid_credentials", "nothing was created")
            #expect(try await server.request(.GET, "/user", bearer: session.accessToken).status == 200)
        }
    }

    @Test("unknown routes are JSON 404s; a served path with another method is a JSON 405 (as GoTrue's router)")
    func unknownRoutes() async throws {
        try await TestServer.with { server in
            for (method, path) in [(HTTPMethodProbe.get, "/nope"), (.post, "/admin"), (.post, "/auth/v1/nope")] {
                let response = try await server.request(method.nio, path)
                #expect(response.status == 404, "\(method) \(path)")
                #expect(response.headers.first(name: "Content-Type") == "application/json")
                #expect(response.errorCode == "not_found")
            }
            for (method, path) in [(HTTPMethodProbe.delete, "/settings"), (.get, "/token"), (.get, "/auth/v1/token")] {
                let response = try await server.request(method.nio, path)
                #expect(response.status == 405, "\(method) \(path)")
                #expect(response.headers.first(name: "Content-Type") == "application/json")
                #expect(response.errorCode == "method_not_allowed")
                #expect(response.headers.first(name: "Allow")?.contains("OPTIONS") == true)
            }
        }
    }

    @Test("the 2024-01-01 API version answers the newer error shape and echoes the header")
    func apiVersionErrorShape() async throws {
        try await TestServer.with { server in
            let response = try await server.request(
                .POST, "/token?grant_type=password", json: ["email": "nobody@example.com", "password": "whatever pw"],
                headers: [("X-Supabase-Api-Version", "2024-01-01")])
            #expect(response.status == 400)
            #expect(response["code"] as? String == "invalid_credentials")
            #expect(response["message"] as? String != nil)
            #expect(response["msg"] == nil)
            #expect(response.headers.first(name: "X-Supabase-Api-Version") == "2024-01-01")
            #expect(response.headers.first(name: "x-sb-error-code") == "invalid_credentials")
            let old = try await server.request(.POST, "/token?grant_type=password", json: ["email": "nobody@example.com", "password": "whatever pw"])
            #expect(old["code"] as? Int == 400)
            #expect(old["msg"] as? String == "Invalid login credentials")
        }
    }
}
