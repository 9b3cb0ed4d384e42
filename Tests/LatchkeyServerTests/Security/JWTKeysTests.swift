import Crypto
import Foundation
import JWTKit
import LatchkeyTesting
import LatchkeyWire
import Testing
import _CryptoExtras

@testable import LatchkeyServer

/// Asymmetric signing keys (`--jwt-keys`, GoTrue's `GOTRUE_JWT_KEYS`) end to end: tokens
/// signed with ES256 and RS256 carry the key's `kid`, `/.well-known/jwks.json` publishes the
/// public keys only, an independent library verifies the tokens with nothing but that JWKS,
/// rotation keeps old tokens valid while their key verifies, and the algorithm rules hold
/// against forged tokens.
@Suite("JWT signing keys and JWKS")
struct JWTKeysTests {
    static let secret = String(repeating: "s", count: 40)

    /// A new private JWK as a dictionary, `key_ops` as given.
    static func jwk(_ algorithm: JWTKeySet.Algorithm, signs: Bool = true) throws -> [String: Any] {
        let json = try JWTKeySet.generateKey(algorithm, signs: signs)
        return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    /// The `--jwt-keys` value for `keys`.
    static func keySet(_ keys: [[String: Any]]) throws -> JWTKeySet {
        try JWTKeySet(json: String(decoding: try JSONSerialization.data(withJSONObject: keys), as: UTF8.self))
    }

    /// `key` as a verify-only key.
    static func verifyOnly(_ key: [String: Any]) -> [String: Any] {
        var key = key
        key["key_ops"] = ["verify"]
        return key
    }

    static func header(of token: String) throws -> [String: Any] {
        let data = try #require(Base64URL.decode(String(token.split(separator: ".")[0])))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// A compact JWT with `header` and `claims`, signed by `sign` over `header.payload`.
    static func token(header: [String: Any], claims: [String: Any], sign: (Data) throws -> Data) throws -> String {
        let head = Base64URL.encode(try JSONSerialization.data(withJSONObject: header))
        let body = Base64URL.encode(try JSONSerialization.data(withJSONObject: claims))
        return "\(head).\(body).\(Base64URL.encode(try sign(Data("\(head).\(body)".utf8))))"
    }

    static func hmac(_ key: some DataProtocol) -> (Data) -> Data {
        { Data(HMAC<SHA256>.authenticationCode(for: $0, using: SymmetricKey(data: Data(key)))) }
    }

    /// The claims an independent verifier reads.
    struct IndependentClaims: JWTPayload {
        var sub: SubjectClaim
        var exp: ExpirationClaim
        var role: String
        var session_id: String
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    /// Verifies `token` with JWTKit, knowing nothing but the server's published JWKS.
    static func verifyIndependently(_ token: String, jwks: Data) async throws -> IndependentClaims {
        let keys = JWTKeyCollection()
        try await keys.add(jwks: try JSONDecoder().decode(JWKS.self, from: jwks))
        return try await keys.verify(token, as: IndependentClaims.self)
    }

    @Test(
        "ES256 and RS256 tokens carry the kid, verify with only the published JWKS, and open the API; the legacy API keys still work",
        arguments: [JWTKeySet.Algorithm.es256, .rs256])
    func asymmetricSigning(algorithm: JWTKeySet.Algorithm) async throws {
        let key = try Self.jwk(algorithm)
        let kid = try #require(key["kid"] as? String)
        let keys = try Self.keySet([key])
        try await TestServer.with(configure: {
            $0.jwtSecret = Self.secret
            $0.jwtKeys = keys
        }) { server in
            let session = try await server.signUp("\(algorithm.rawValue.lowercased())@example.com")
            let header = try Self.header(of: session.accessToken)
            #expect(header["alg"] as? String == algorithm.rawValue)
            #expect(header["kid"] as? String == kid)
            #expect(header["typ"] as? String == "JWT")

            let jwks = try await server.request(.GET, "/.well-known/jwks.json")
            #expect(jwks.status == 200)
            #expect(jwks.headers.first(name: "Cache-Control") == "public, max-age=600")
            #expect(jwks.headers.first(name: "Content-Type") == "application/json")
            let published = try #require(jwks.json["keys"] as? [[String: Any]])
            #expect(published.count == 1)
            let publicKey = try #require(published.first)
            #expect(publicKey["kid"] as? String == kid)
            #expect(publicKey["alg"] as? String == algorithm.rawValue)
            #expect(publicKey["use"] as? String == "sig")
            #expect(publicKey["key_ops"] as? [String] == ["verify"])
            let expectedMembers: Set<String> =
                algorithm == .es256 ? ["kty", "kid", "alg", "use", "key_ops", "crv", "x", "y"] : ["kty", "kid", "alg", "use", "key_ops", "n", "e"]
            #expect(Set(publicKey.keys) == expectedMembers, "public members only")
            for member in ["x", "y", "n", "e"] where publicKey[member] != nil {
                #expect(publicKey[member] as? String == key[member] as? String)
            }

            // Under the gateway prefix too.
            let prefixed = try await server.request(.GET, "/auth/v1/.well-known/jwks.json")
            #expect(prefixed.status == 200 && prefixed.body == jwks.body)

            let claims = try await Self.verifyIndependently(session.accessToken, jwks: jwks.body)
            #expect(claims.sub.value == session.userID)
            #expect(claims.role == "authenticated")

            #expect(try await server.request(.GET, "/user", bearer: session.accessToken).status == 200)
            let refreshed = try await server.refresh(session.refreshToken)
            let next = try #require(TestSession(refreshed))
            #expect(try Self.header(of: next.accessToken)["kid"] as? String == kid)
            _ = try await Self.verifyIndependently(next.accessToken, jwks: jwks.body)

            // API keys are signed with the legacy secret (HS256, no kid) and keep working.
            #expect(try Self.header(of: server.server.serviceRoleKey)["kid"] == nil)
            #expect(try await server.request(.GET, "/admin/users", bearer: server.server.serviceRoleKey).status == 200)
            let supabaseKey = try APIKeyTests.token(["iss": "supabase", "role": "service_role"], secret: Self.secret)
            #expect(try await server.request(.GET, "/admin/users", bearer: supabaseKey).status == 200)
        }
    }

    @Test("an HS256 JWK signs with its kid and is never published; the legacy secret without JWT keys publishes nothing")
    func symmetricKeysAreNotPublished() async throws {
        let key = try Self.jwk(.hs256)
        let standby = try Self.jwk(.es256, signs: false)
        let keys = try Self.keySet([key, standby])
        try await TestServer.with(configure: {
            $0.jwtSecret = Self.secret
            $0.jwtKeys = keys
        }) { server in
            let session = try await server.signUp("hs256-jwk@example.com")
            let header = try Self.header(of: session.accessToken)
            #expect(header["alg"] as? String == "HS256")
            #expect(header["kid"] as? String == key["kid"] as? String)
            #expect(try await server.request(.GET, "/user", bearer: session.accessToken).status == 200)
            let jwks = try await server.request(.GET, "/.well-known/jwks.json")
            let published = try #require(jwks.json["keys"] as? [[String: Any]])
            #expect(published.map { $0["kid"] as? String } == [standby["kid"] as? String], "only the EC standby key")
            #expect(!jwks.text.contains(try #require(key["k"] as? String)))
            #expect(!jwks.text.contains(try #require(standby["d"] as? String)))

            // A token MACed with the legacy secret but naming the JWK's kid is checked with the JWK.
            var claims = try TokenAttackTests().claims(from: session.accessToken)
            claims["exp"] = Int(server.clock.now().timeIntervalSince1970) + 600
            let legacyWithKid = try Self.token(header: ["alg": "HS256", "kid": key["kid"]!], claims: claims, sign: Self.hmac(Data(Self.secret.utf8)))
            #expect(try await server.request(.GET, "/user", bearer: legacyWithKid).errorCode == "bad_jwt")
        }
        try await TestServer.with { server in
            let jwks = try await server.request(.GET, "/.well-known/jwks.json")
            #expect(jwks.status == 200)
            #expect(jwks.text == #"{"keys":[]}"#)
            let session = try await server.signUp("legacy@example.com")
            #expect(try Self.header(of: session.accessToken)["kid"] == nil, "the legacy secret signs without kid, as GoTrue")
        }
    }

    @Test("rotation: a new signing key with the old one verify-only keeps old tokens valid; removing the old key ends them")
    func rotation() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-rotation-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualServerClock()
        let old = try Self.jwk(.es256)
        let new = try Self.jwk(.rs256)
        let (oldKid, newKid) = (try #require(old["kid"] as? String), try #require(new["kid"] as? String))
        let (first, second, third) = (try Self.keySet([old]), try Self.keySet([new, Self.verifyOnly(old)]), try Self.keySet([new]))

        let before = try await TestServer.with(
            directory: directory, clock: clock,
            configure: {
                $0.jwtSecret = Self.secret
                $0.jwtKeys = first
            }
        ) { server in
            try await server.signUp("rotation@example.com")
        }
        #expect(try Self.header(of: before.accessToken)["kid"] as? String == oldKid)

        // Step 2: the new key signs, the old one only verifies.
        let after = try await TestServer.with(
            directory: directory, clock: clock,
            configure: {
                $0.jwtSecret = Self.secret
                $0.jwtKeys = second
            }
        ) { server in
            #expect(try await server.request(.GET, "/user", bearer: before.accessToken).status == 200, "a token of the old key still verifies")
            let signIn = try await server.signIn("rotation@example.com")
            let session = try #require(TestSession(signIn))
            #expect(try Self.header(of: session.accessToken)["kid"] as? String == newKid)
            #expect(try await server.request(.GET, "/user", bearer: session.accessToken).status == 200)
            let jwks = try await server.request(.GET, "/.well-known/jwks.json")
            let kids = try #require(jwks.json["keys"] as? [[String: Any]]).compactMap { $0["kid"] as? String }
            #expect(kids == [newKid, oldKid])
            _ = try await Self.verifyIndependently(before.accessToken, jwks: jwks.body)
            _ = try await Self.verifyIndependently(session.accessToken, jwks: jwks.body)
            #expect(try await server.request(.GET, "/admin/users", bearer: server.server.serviceRoleKey).status == 200)
            return session
        }

        // Step 3: once old tokens have expired, the old key goes.
        try await TestServer.with(
            directory: directory, clock: clock,
            configure: {
                $0.jwtSecret = Self.secret
                $0.jwtKeys = third
            }
        ) { server in
            let refused = try await server.request(.GET, "/user", bearer: before.accessToken)
            refused.expectError(403, "bad_jwt")
            // No configured key is ES256 any more, so the algorithm itself is refused (as GoTrue's valid methods).
            #expect(refused["msg"] as? String == APIKeyTests.parseFailure + "token signature is invalid: signing method ES256 is invalid")
            #expect(try await server.request(.GET, "/user", bearer: after.accessToken).status == 200)
            #expect(try await server.request(.GET, "/admin/users", bearer: server.server.serviceRoleKey).status == 200)
        }
    }

    @Test("forged tokens are refused: HMAC keyed with a public key, alg none, swapped kid or alg, unknown kid, another key")
    func algorithmConfusion() async throws {
        let ec = try Self.jwk(.es256)
        let rsa = try Self.jwk(.rs256, signs: false)
        let (ecKid, rsaKid) = (try #require(ec["kid"] as? String), try #require(rsa["kid"] as? String))
        let keys = try Self.keySet([ec, rsa])
        try await TestServer.with(configure: {
            $0.jwtSecret = Self.secret
            $0.jwtKeys = keys
        }) { server in
            let session = try await server.signUp("confusion@example.com")
            #expect(try await server.request(.GET, "/user", bearer: session.accessToken).status == 200, "the control token works")
            let jwks = try await server.request(.GET, "/.well-known/jwks.json")
            let published = try #require(jwks.json["keys"] as? [[String: Any]])
            var claims = try TokenAttackTests().claims(from: session.accessToken)
            claims["exp"] = Int(server.clock.now().timeIntervalSince1970) + 600
            let admin: [String: Any] = ["role": "service_role"]

            // Everything an attacker knows about the public keys, used as an HMAC secret.
            let ecPoint = try #require(Base64URL.decode(ec["x"] as! String)) + (try #require(Base64URL.decode(ec["y"] as! String)))
            let ecPublic = try P256.Signing.PublicKey(rawRepresentation: ecPoint)
            let rsaPublic = try _RSA.Signing.PublicKey(
                n: try #require(Base64URL.decode(rsa["n"] as! String)), e: try #require(Base64URL.decode(rsa["e"] as! String)))
            var publicSecrets: [Data] = [
                ecPublic.x963Representation, ecPublic.derRepresentation, Data(ecPublic.pemRepresentation.utf8),
                rsaPublic.derRepresentation, Data(rsaPublic.pemRepresentation.utf8), Data(rsaPublic.pkcs1DERRepresentation),
            ]
            publicSecrets += try published.map { try JSONSerialization.data(withJSONObject: $0) }
            publicSecrets.append(jwks.body)

            func expectRefused(_ token: String, _ reason: String?, _ note: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
                for (path, _) in [("/user", claims), ("/admin/users", admin)] {
                    let response = try await server.request(.GET, path, bearer: token)
                    response.expectError(403, "bad_jwt", sourceLocation: sourceLocation)
                    if let reason {
                        #expect(response["msg"] as? String == APIKeyTests.parseFailure + reason, "\(note) \(path)", sourceLocation: sourceLocation)
                    }
                }
            }

            for secret in publicSecrets {
                for (kid, reason) in [
                    (ecKid, "token signature is invalid: key is of invalid type"), (rsaKid, "token signature is invalid: key is of invalid type"),
                ] {
                    try await expectRefused(
                        try Self.token(header: ["alg": "HS256", "typ": "JWT", "kid": kid], claims: claims, sign: Self.hmac(secret)), reason,
                        "HS256 with kid \(kid)")
                    try await expectRefused(
                        try Self.token(header: ["alg": "HS256", "kid": kid], claims: admin, sign: Self.hmac(secret)), reason, "admin HS256 with kid")
                }
                // No kid, or a kid naming no key: the legacy secret checks it, and it is not that.
                try await expectRefused(
                    try Self.token(header: ["alg": "HS256", "typ": "JWT"], claims: admin, sign: Self.hmac(secret)),
                    "token signature is invalid: signature is invalid", "HS256 without kid")
                try await expectRefused(
                    try Self.token(header: ["alg": "HS256", "kid": "other"], claims: admin, sign: Self.hmac(secret)),
                    "token signature is invalid: signature is invalid", "HS256 unknown kid")
            }

            let parts = session.accessToken.split(separator: ".").map(String.init)
            func relabelled(_ header: [String: Any]) throws -> String {
                "\(Base64URL.encode(try JSONSerialization.data(withJSONObject: header))).\(parts[1]).\(parts[2])"
            }
            // The genuine signature under another header.
            try await expectRefused(
                try relabelled(["alg": "ES256", "kid": rsaKid]), "token signature is invalid: key is of invalid type", "kid swapped to the RSA key")
            try await expectRefused(
                try relabelled(["alg": "RS256", "kid": ecKid]), "token signature is invalid: key is of invalid type", "alg swapped to RS256")
            try await expectRefused(
                try relabelled(["alg": "ES384", "kid": ecKid]), "token signature is invalid: signing method ES384 is invalid", "alg ES384")
            try await expectRefused(
                try relabelled(["alg": "ES256"]), "token is unverifiable: error while executing keyfunc: unrecognized JWT kid for algorithm ES256",
                "no kid")
            try await expectRefused(
                try relabelled(["alg": "ES256", "kid": "unknown"]),
                "token is unverifiable: error while executing keyfunc: unrecognized JWT kid for algorithm ES256", "unknown kid")
            try await expectRefused(
                try relabelled(["alg": "none", "kid": ecKid]), "token signature is invalid: signing method none is invalid", "alg none")
            try await expectRefused("\(parts[0]).\(parts[1]).", nil, "no signature")
            try await expectRefused("\(parts[0]).\(parts[1]).\(parts[2].dropLast(4))AAAA", nil, "altered signature")

            // Signed by another EC key under the server's kid.
            let attacker = P256.Signing.PrivateKey()
            let foreign = try Self.token(header: ["alg": "ES256", "typ": "JWT", "kid": ecKid], claims: claims) {
                try attacker.signature(for: $0).rawRepresentation
            }
            try await expectRefused(foreign, "token signature is invalid: signature is invalid", "another EC key")
            // A tampered payload under the genuine signature.
            var escalated = claims
            escalated["role"] = "service_role"
            let tampered = "\(parts[0]).\(Base64URL.encode(try JSONSerialization.data(withJSONObject: escalated))).\(parts[2])"
            try await expectRefused(tampered, "token signature is invalid: signature is invalid", "tampered payload")
            // A DER-encoded ECDSA signature (not JWS's r || s) is refused.
            let der = try Self.token(header: ["alg": "ES256", "kid": ecKid], claims: claims) { _ in Data(repeating: 0x30, count: 70) }
            try await expectRefused(der, "token signature is invalid: signature is invalid", "DER signature")
        }
    }

    @Test("the settings log names the keys' ids and algorithms, never key material")
    func settingsNeverShowKeyMaterial() throws {
        let ec = try Self.jwk(.es256)
        let hs = try Self.jwk(.hs256, signs: false)
        var configuration = ServerConfiguration(dataDirectory: URL(fileURLWithPath: "/tmp/unused"))
        configuration.jwtKeys = try Self.keySet([ec, hs])
        let logged = "\(configuration.redactedSettings())"
        #expect(logged.contains("ES256 \(ec["kid"] as! String) (signs)"))
        #expect(logged.contains("HS256 \(hs["kid"] as! String) (verifies)"))
        for member in [ec["d"], ec["x"], ec["y"], hs["k"]] { #expect(!logged.contains(member as! String)) }
    }
}
