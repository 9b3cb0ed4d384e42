import Crypto
import Foundation
import LatchkeyWire
import Testing

@testable import LatchkeyServer

/// API keys as GoTrue takes them: any token signed with the server's key and algorithm whose
/// role is an admin role, with or without `sub`, `iat` or `exp`; and tokens whose header names
/// another algorithm, refused whatever their bytes.
@Suite("API keys and JWT algorithms")
struct APIKeyTests {
    static let secret = String(repeating: "s", count: 40)

    /// A token with `header` and `claims`, its `header.payload` MACed with HMAC-SHA256 under
    /// `secret` whatever the header says (`signature: nil` signs; `""` leaves it empty).
    static func token(
        header: [String: Any] = ["alg": "HS256", "typ": "JWT"], _ claims: [String: Any], secret: String = secret, signature: String? = nil
    ) throws -> String {
        let head = Base64URL.encode(try JSONSerialization.data(withJSONObject: header))
        let payload = Base64URL.encode(try JSONSerialization.data(withJSONObject: claims))
        if let signature { return "\(head).\(payload).\(signature)" }
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(head).\(payload)".utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return "\(head).\(payload).\(Base64URL.encode(Data(mac)))"
    }

    static let parseFailure = "invalid JWT: unable to parse or verify signature, "

    @Test("Supabase-shaped service keys work on /admin: with iat and exp, without exp, without iat, supabase_admin")
    func supabaseServiceKeys() async throws {
        try await TestServer.with(configure: { $0.jwtSecret = Self.secret }) { server in
            let now = Int(server.clock.now().timeIntervalSince1970)
            let keys: [[String: Any]] = [
                ["iss": "supabase", "ref": "abcdefghijklmnopqrst", "role": "service_role", "iat": now, "exp": now + 10 * 365 * 86_400],
                ["iss": "supabase", "ref": "abcdefghijklmnopqrst", "role": "service_role", "iat": now],
                ["iss": "supabase-demo", "role": "service_role", "exp": now + 60],
                ["role": "supabase_admin"],
            ]
            for claims in keys {
                let response = try await server.request(.GET, "/admin/users", bearer: try Self.token(claims))
                #expect(response.status == 200, "\(claims)")
            }
            // The server's own keys have Supabase's shape: no sub, no session.
            let own = try await server.request(.GET, "/admin/users", bearer: server.server.serviceRoleKey)
            #expect(own.status == 200)
        }
    }

    @Test("keys that are not admin keys: anon, another role, expired, not yet valid, user endpoints")
    func refusedKeys() async throws {
        try await TestServer.with(configure: { $0.jwtSecret = Self.secret }) { server in
            let now = Int(server.clock.now().timeIntervalSince1970)
            let anon = try await server.request(.GET, "/admin/users", bearer: try Self.token(["iss": "supabase", "role": "anon", "iat": now]))
            anon.expectError(403, "not_admin")
            #expect(anon["msg"] as? String == "User not allowed")
            let noRole = try await server.request(.GET, "/admin/users", bearer: try Self.token(["iss": "supabase"]))
            noRole.expectError(403, "not_admin")

            let expired = try await server.request(
                .GET, "/admin/users", bearer: try Self.token(["role": "service_role", "iat": now - 7200, "exp": now - 3723]))
            expired.expectError(403, "bad_jwt")
            #expect(expired["msg"] as? String == Self.parseFailure + "token has invalid claims: token is expired by 1h2m3s")
            let expiredNow = try await server.request(.GET, "/admin/users", bearer: try Self.token(["role": "service_role", "exp": now]))
            expiredNow.expectError(403, "bad_jwt")

            let early = try await server.request(.GET, "/admin/users", bearer: try Self.token(["role": "service_role", "nbf": now + 60]))
            early.expectError(403, "bad_jwt")
            #expect(early["msg"] as? String == Self.parseFailure + "token has invalid claims: token is not valid yet")

            // A key expires on the server's clock.
            let shortLived = try Self.token(["role": "service_role", "exp": now + 10])
            #expect(try await server.request(.GET, "/admin/users", bearer: shortLived).status == 200)
            server.clock.advance(by: 10)
            #expect(try await server.request(.GET, "/admin/users", bearer: shortLived).errorCode == "bad_jwt")

            // An API key is no user: GoTrue's answers for a token without sub, or with one that is no user id.
            let onUser = try await server.request(.GET, "/user", bearer: server.server.serviceRoleKey)
            onUser.expectError(403, "bad_jwt")
            #expect(onUser["msg"] as? String == "invalid claim: missing sub claim")
            let namedSub = try await server.request(.GET, "/user", bearer: try Self.token(["role": "service_role", "sub": "service_role"]))
            namedSub.expectError(400, "bad_jwt")

            let garbage = try await server.request(.GET, "/admin/users", bearer: "garbage")
            garbage.expectError(403, "bad_jwt")
            #expect(garbage["msg"] as? String == Self.parseFailure + "token is malformed: token contains an invalid number of segments")
            let otherScheme = try await server.request(.GET, "/admin/users", headers: [("Authorization", "Basic abc")])
            otherScheme.expectError(401, "no_authorization")
            #expect(otherScheme["msg"] as? String == "This endpoint requires a valid Bearer token")
        }
    }

    @Test("the admin roles are configurable, and no user can be given one")
    func configuredAdminRoles() async throws {
        try await TestServer.with(configure: {
            $0.jwtSecret = Self.secret
            $0.jwtAdminRoles = ["ops_admin"]
        }) { server in
            #expect(try await server.request(.GET, "/admin/users", bearer: try Self.token(["role": "ops_admin"])).status == 200)
            let serviceRole = try await server.request(.GET, "/admin/users", bearer: try Self.token(["role": "service_role"]))
            serviceRole.expectError(403, "not_admin")
            let user = try await server.signUp("would-be-admin@example.com")
            let promote = try await server.request(
                .PUT, "/admin/users/\(user.userID)", json: ["role": "ops_admin"], bearer: try Self.token(["role": "ops_admin"]))
            promote.expectError(400, "validation_failed")
        }
        try await TestServer.with { server in
            let user = try await server.signUp("would-be-admin@example.com")
            for role in ["service_role", "supabase_admin"] {
                let promote = try await server.request(
                    .PUT, "/admin/users/\(user.userID)", json: ["role": role], bearer: server.server.serviceRoleKey)
                promote.expectError(400, "validation_failed")
            }
        }
    }

    @Test("a header naming another algorithm is refused even when the bytes are HMAC-SHA256 under the server's key")
    func forgedAlgorithm() async throws {
        try await TestServer.with(configure: { $0.jwtSecret = Self.secret }) { server in
            let session = try await server.signUp("alg@example.com")
            let userClaims = try TokenAttackTests().claims(from: session.accessToken)
            #expect(try await server.request(.GET, "/user", bearer: try Self.token(userClaims)).status == 200, "the control token works")
            for alg in ["RS256", "ES256", "HS512", "HS384", "PS256", "EdDSA", "none"] {
                for (path, claims) in [("/admin/users", ["role": "service_role"] as [String: Any]), ("/user", userClaims)] {
                    let forged = try Self.token(header: ["alg": alg, "typ": "JWT"], claims)
                    let response = try await server.request(.GET, path, bearer: forged)
                    response.expectError(403, "bad_jwt")
                    #expect(
                        response["msg"] as? String == Self.parseFailure + "token signature is invalid: signing method \(alg) is invalid",
                        "\(alg) \(path)")
                }
            }
            let unsigned = try Self.token(header: ["alg": "none"], ["role": "service_role"], signature: "")
            #expect(try await server.request(.GET, "/admin/users", bearer: unsigned).errorCode == "bad_jwt")
            let lowercase = try Self.token(header: ["alg": "hs256"], ["role": "service_role"])
            #expect(
                try await server.request(.GET, "/admin/users", bearer: lowercase)["msg"] as? String
                    == Self.parseFailure + "token is unverifiable: signing method (alg) is unavailable")
            let noAlg = try Self.token(header: ["typ": "JWT"], ["role": "service_role"])
            #expect(
                try await server.request(.GET, "/admin/users", bearer: noAlg)["msg"] as? String
                    == Self.parseFailure + "token is unverifiable: signing method (alg) is unspecified")
            let wrongKey = try Self.token(["role": "service_role"], secret: String(repeating: "w", count: 40))
            #expect(
                try await server.request(.GET, "/admin/users", bearer: wrongKey)["msg"] as? String
                    == Self.parseFailure + "token signature is invalid: signature is invalid")
            // A kid naming no key does not change the algorithm rules (GoTrue falls back to the secret).
            let withKid = try Self.token(header: ["alg": "HS256", "kid": "unknown"], ["role": "service_role"])
            #expect(try await server.request(.GET, "/admin/users", bearer: withKid).status == 200)
            // Padded or standard base64 is not base64url.
            let good = try Self.token(["role": "service_role"])
            #expect(try await server.request(.GET, "/admin/users", bearer: good + "=").errorCode == "bad_jwt")
        }
    }
}
