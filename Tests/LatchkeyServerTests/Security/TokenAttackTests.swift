import Crypto
import Foundation
import LatchkeyWire
import Testing

@testable import LatchkeyServer

/// Attempts to get past bearer authentication: forged, unsigned, expired and misused tokens.
@Suite("Access-token attacks")
struct TokenAttackTests {
    static func base64URL(_ data: Data) -> String { Base64URL.encode(data) }

    /// A token with `claims`, signed with `secret` (or unsigned with alg none).
    static func token(_ claims: [String: Any], secret: String?, alg: String = "HS256") throws -> String {
        let header = base64URL(try JSONSerialization.data(withJSONObject: ["alg": alg, "typ": "JWT"]))
        let payload = base64URL(try JSONSerialization.data(withJSONObject: claims))
        guard let secret else { return "\(header).\(payload)." }
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(header).\(payload)".utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return "\(header).\(payload).\(base64URL(Data(mac)))"
    }

    func claims(from accessToken: String) throws -> [String: Any] {
        let part = String(accessToken.split(separator: ".")[1])
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let data = try #require(Data(base64Encoded: base64))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("access tokens carry GoTrue's claims")
    func claimsShape() async throws {
        try await TestServer.with { server in
            let session = try await server.signUp("claims@example.com")
            let claims = try claims(from: session.accessToken)
            for key in [
                "iss", "sub", "aud", "exp", "iat", "email", "phone", "role", "aal", "amr", "session_id", "is_anonymous", "app_metadata",
                "user_metadata",
            ] {
                #expect(claims[key] != nil, "claim \(key)")
            }
            #expect(claims["aud"] as? String == "authenticated")
            #expect(claims["role"] as? String == "authenticated")
            #expect(claims["sub"] as? String == session.userID)
        }
    }

    @Test("alg none, a wrong key, a tampered payload, garbage and expired tokens are refused")
    func forgedTokens() async throws {
        let secret = String(repeating: "k", count: 40)
        try await TestServer.with(configure: { $0.jwtSecret = secret }) { server in
            let session = try await server.signUp("victim@example.com")
            var claims = try claims(from: session.accessToken)

            let unsigned = try Self.token(claims, secret: nil, alg: "none")
            let wrongKey = try Self.token(claims, secret: String(repeating: "w", count: 40))
            let parts = session.accessToken.split(separator: ".")
            claims["role"] = "service_role"
            let tamperedPayload = Self.base64URL(try JSONSerialization.data(withJSONObject: claims))
            let tampered = "\(parts[0]).\(tamperedPayload).\(parts[2])"
            for token in [unsigned, wrongKey, tampered, "garbage", "a.b.c", ""] {
                let response = try await server.request(.GET, "/user", bearer: token)
                #expect([401, 403].contains(response.status), "\(token.prefix(20))")
                #expect(response.errorCode == "bad_jwt" || response.errorCode == "no_authorization")
                let admin = try await server.request(.GET, "/admin/users", bearer: token)
                #expect([401, 403].contains(admin.status))
            }

            server.clock.advance(by: 3601)
            let expired = try await server.request(.GET, "/user", bearer: session.accessToken)
            expired.expectError(403, "bad_jwt")
            #expect(expired["msg"] as? String == "invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired by 1s")
        }
    }

    @Test("a correctly signed user token that claims service_role with a session is not an admin")
    func sessionTokensNeverAdmin() async throws {
        let secret = String(repeating: "k", count: 40)
        try await TestServer.with(configure: { $0.jwtSecret = secret }) { server in
            let session = try await server.signUp("escalate@example.com")
            var claims = try claims(from: session.accessToken)
            claims["role"] = "service_role"
            let escalated = try Self.token(claims, secret: secret)
            let response = try await server.request(.GET, "/admin/users", bearer: escalated)
            response.expectError(403, "not_admin")
        }
    }

    @Test("the Bearer scheme is case-insensitive and surrounding spaces are ignored")
    func bearerScheme() async throws {
        try await TestServer.with { server in
            let session = try await server.signUp("scheme@example.com")
            for header in ["bearer \(session.accessToken)", "BEARER  \(session.accessToken)  ", "Bearer \(session.accessToken)"] {
                #expect(try await server.request(.GET, "/user", headers: [("Authorization", header)]).status == 200, "\(header.prefix(12))")
            }
            #expect(try await server.request(.GET, "/user", headers: [("Authorization", "Bearerx \(session.accessToken)")]).status == 401)
        }
    }

    @Test("a service_role key is not a user session")
    func apiKeysAreNotSessions() async throws {
        try await TestServer.with { server in
            let response = try await server.request(.GET, "/user", bearer: server.server.serviceRoleKey)
            #expect(response.status == 403)
            #expect(try await server.request(.GET, "/user", headers: [("Authorization", "Basic abc")]).status == 401)
            #expect(try await server.request(.GET, "/user", headers: [("Authorization", "Bearer")]).status == 401)
            #expect(try await server.request(.GET, "/user", headers: [("Authorization", "Bearer    ")]).status == 401)
        }
    }

    @Test("a token for one user's session cannot read another user through a swapped sub")
    func subjectMismatch() async throws {
        let secret = String(repeating: "k", count: 40)
        try await TestServer.with(configure: { $0.jwtSecret = secret }) { server in
            let alice = try await server.signUp("alice-sub@example.com")
            let bob = try await server.signUp("bob-sub@example.com")
            var claims = try claims(from: alice.accessToken)
            claims["sub"] = bob.userID
            // Even with the secret, a sub that does not own the session is refused.
            let mixed = try Self.token(claims, secret: secret)
            #expect(try await server.request(.GET, "/user", bearer: mixed).status == 403)
        }
    }
}
