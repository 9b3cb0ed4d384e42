import Foundation
import Testing

@testable import LatchkeyServer

/// `/health`, `/settings` and `/openapi.yaml`, and the document's agreement with the routes.
@Suite("Service routes")
struct ServiceRoutesTests {
    @Test("health and settings")
    func healthAndSettings() async throws {
        try await TestServer.with(configure: { $0.autoconfirm = false }) { server in
            let health = try await server.request(.GET, "/health")
            #expect(health.status == 200)
            #expect(health["version"] as? String == LatchkeyVersion.current)
            let settings = try await server.request(.GET, "/settings")
            #expect((settings["external"] as? [String: Any])?["email"] as? Bool == true)
            #expect(settings["disable_signup"] as? Bool == false)
            #expect(settings["mailer_autoconfirm"] as? Bool == false)
        }
    }

    /// (method, path) pairs from the OpenAPI document's `paths`.
    static func documentedRoutes(_ yaml: String) -> Set<String> {
        var routes = Set<String>()
        var inPaths = false
        var currentPath: String?
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" {
                inPaths = true
                continue
            }
            guard inPaths else { continue }
            if !line.hasPrefix(" "), !line.isEmpty, !line.hasPrefix("#") { break }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                currentPath = String(line.dropFirst(2).dropLast())
            } else if let path = currentPath, line.hasPrefix("    "), !line.hasPrefix("     ") {
                let key = line.trimmingCharacters(in: .whitespaces).dropLast()
                if ["get", "put", "post", "delete", "patch"].contains(String(key)) { routes.insert("\(key.uppercased()) \(path)") }
            }
        }
        return routes
    }

    @Test("the served OpenAPI document lists exactly the routes the server has")
    func openAPIInStep() async throws {
        try await TestServer.with { server in
            let response = try await server.request(.GET, "/openapi.yaml")
            #expect(response.status == 200)
            let documented = Self.documentedRoutes(response.text)
            let served = try await ServiceFixture.withDependencies { dependencies in
                Set(LatchkeyApplication.routeDescriptions(dependencies).map { "\($0.method) \($0.path)" })
            }
            #expect(!served.isEmpty)
            #expect(
                documented == served,
                "undocumented: \(served.subtracting(documented).sorted()); not served: \(documented.subtracting(served).sorted())")
            // POST /token's grant_type enum is the grant registry's.
            let grantTypes = try #require(
                response.text.firstRange(of: "enum: [password").map { response.text[$0.lowerBound...].prefix { $0 != "]" } })
            #expect(
                grantTypes.dropFirst("enum: [".count).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                    == TokenGrants.all.map(\.grantType))
        }
    }
}

/// Supabase clients add `/auth/v1` to the project URL; the server answers there too.
@Suite("Supabase gateway prefix")
struct GatewayPrefixTests {
    @Test("routes answer under /auth/v1 exactly as at the root")
    func prefixed() async throws {
        try await TestServer.with { server in
            #expect(try await server.request(.GET, "/auth/v1/health").status == 200)
            try await server.signUp("prefix@example.com")
            let signIn = try await server.request(
                .POST, "/auth/v1/token?grant_type=password", json: ["email": "prefix@example.com", "password": "correct horse battery"])
            #expect(signIn.status == 200)
            let session = try #require(TestSession(signIn))
            #expect(try await server.request(.GET, "/auth/v1/user", bearer: session.accessToken).status == 200)
            #expect(try await server.request(.GET, "/auth/v1x/user", bearer: session.accessToken).status == 404)
            #expect(try await server.request(.GET, "/auth/v1/nothing", bearer: session.accessToken).status == 404)
        }
    }
}
