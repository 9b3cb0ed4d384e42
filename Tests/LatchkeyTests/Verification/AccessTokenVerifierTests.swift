import Crypto
import Foundation
import LatchkeyServer
import LatchkeyTestSupport
import LatchkeyTesting
import LatchkeyWire
import Testing

@testable import Latchkey

/// Sends every request to the server the test currently points it at (so a verifier configured
/// with one URL sees a server whose keys changed), counting requests by path.
final class RoutingTransport: HTTPTransport, Sendable {
    let spy = SpyTransport()
    private let target: Locked<URL>

    init(_ target: URL) { self.target = Locked(target) }

    func route(to url: URL) { target.withLock { $0 = url } }

    var keyFetches: Int { spy.count("/.well-known/jwks.json") }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)!
        let target = target.withLock { $0 }
        components.host = target.host
        components.port = target.port
        var routed = request
        routed.url = components.url!
        return try await spy.send(routed)
    }
}

/// `AccessTokenVerifier` against the real server: tokens signed with ES256 and RS256 keys verify
/// locally with the published JWKS, forged and expired ones do not, keys are fetched once,
/// again on a new `kid`, and never more often than the minimum interval.
@Suite("Access-token verifier")
struct AccessTokenVerifierTests {
    static func keys(_ keys: [(JWTKeySet.Algorithm, Bool)]) throws -> JWTKeySet {
        try JWTKeySet(json: "[" + (try keys.map { try JWTKeySet.generateKey($0.0, signs: $0.1) }).joined(separator: ",") + "]")
    }

    static func signUp(_ server: TestServer, _ email: String) async throws -> Session {
        guard case .signedIn(let session) = try await server.backend().signUp(email: email, password: "correct horse battery", data: [:]) else {
            throw CancellationError()
        }
        return session
    }

    static func verifier(
        _ server: TestServer, transport: any HTTPTransport, clock: ManualSessionClock, options: AccessTokenVerifier.Options = .init()
    ) -> AccessTokenVerifier {
        AccessTokenVerifier(
            server: .init(baseURL: server.baseURL, apiKey: server.server.anonKey), transport: transport, clock: clock, options: options)
    }

    /// A token with `header` and `claims` signed by `sign` over `header.payload`.
    static func token(header: [String: Any], claims: [String: Any], sign: (Data) throws -> Data) throws -> String {
        func encode(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(
                of: "=", with: "")
        }
        let head = encode(try JSONSerialization.data(withJSONObject: header))
        let body = encode(try JSONSerialization.data(withJSONObject: claims))
        return "\(head).\(body).\(encode(try sign(Data("\(head).\(body)".utf8))))"
    }

    static func payload(of token: String) throws -> [String: Any] {
        let data = try #require(Base64URL.decode(token.split(separator: ".")[1]))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func verificationError(_ token: String, _ verifier: AccessTokenVerifier) async -> AccessTokenVerificationError? {
        do {
            _ = try await verifier.verify(token)
            return nil
        } catch {
            return error
        }
    }

    @Test("ES256 and RS256 tokens verify locally with one key fetch; the claims are the server's", arguments: [JWTKeySet.Algorithm.es256, .rs256])
    func verifiesServerTokens(algorithm: JWTKeySet.Algorithm) async throws {
        let keys = try Self.keys([(algorithm, true)])
        try await withTestServer(configure: { $0.jwtKeys = keys }) { server in
            let session = try await Self.signUp(server, "verify-\(algorithm.rawValue.lowercased())@example.com")
            let transport = RoutingTransport(server.baseURL)
            let clock = ManualSessionClock(Date())
            let verifier = Self.verifier(server, transport: transport, clock: clock)

            let token = try await verifier.verify(session.accessToken)
            #expect(token.subject == session.user.id)
            #expect(token.role == "authenticated")
            #expect(token.email == session.user.email)
            #expect(token.audience == ["authenticated"])
            #expect(token.assuranceLevel == "aal1")
            #expect(token.authenticationMethods.map(\.method) == ["password"])
            #expect(token.sessionID != nil)
            #expect(token.isAnonymous == false)
            #expect(token.keyID == keys.signingKey.id)
            #expect(token.algorithm == algorithm.rawValue)
            let payload = try Self.payload(of: session.accessToken)
            #expect(token.expiresAt == Date(timeIntervalSince1970: try #require(payload["exp"] as? Double)))
            #expect(token.issuer == payload["iss"] as? String)

            // Many verifications, one fetch, even concurrently.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<50 { group.addTask { _ = try await verifier.verify(session.accessToken) } }
                try await group.waitForAll()
            }
            #expect(transport.keyFetches == 1)
            #expect(transport.spy.total == 1, "nothing but the keys was asked")

            // The cache lasts ten minutes, then the keys are fetched again.
            clock.advance(by: 601)
            _ = try await verifier.verify(session.accessToken)
            #expect(transport.keyFetches == 2)
        }
    }

    @Test("concurrent first verifications share one key fetch")
    func singleFlightFetch() async throws {
        let keys = try Self.keys([(.es256, true)])
        try await withTestServer(configure: { $0.jwtKeys = keys }) { server in
            let session = try await Self.signUp(server, "single-flight@example.com")
            let transport = RoutingTransport(server.baseURL)
            let verifier = Self.verifier(server, transport: transport, clock: ManualSessionClock(Date()))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<100 { group.addTask { _ = try await verifier.verify(session.accessToken) } }
                try await group.waitForAll()
            }
            #expect(transport.keyFetches == 1)
        }
    }

    @Test("expiry is checked on the injected clock, with the leeway; a token without exp is refused")
    func expiry() async throws {
        let keys = try Self.keys([(.es256, true)])
        try await withTestServer(configure: { $0.jwtKeys = keys }) { server in
            let session = try await Self.signUp(server, "expiry@example.com")
            let transport = RoutingTransport(server.baseURL)
            let clock = ManualSessionClock(Date())
            let verifier = Self.verifier(server, transport: transport, clock: clock)
            let lenient = Self.verifier(server, transport: transport, clock: clock, options: .init(leeway: 30))
            let expiresAt = Date(timeIntervalSince1970: try #require(try Self.payload(of: session.accessToken)["exp"] as? Double))
            _ = try await verifier.verify(session.accessToken)
            clock.advance(by: expiresAt.timeIntervalSince(clock.now()))
            #expect(await verificationError(session.accessToken, verifier) == .expired(at: expiresAt))
            #expect(await verificationError(session.accessToken, lenient) == nil)
            clock.advance(by: 30)
            #expect(await verificationError(session.accessToken, lenient) == .expired(at: expiresAt))
        }
    }

    @Test("HS256 tokens cannot be verified locally, and no request is made for them")
    func symmetricTokens() async throws {
        try await withTestServer { server in
            let session = try await Self.signUp(server, "hs256@example.com")
            let transport = RoutingTransport(server.baseURL)
            let verifier = Self.verifier(server, transport: transport, clock: ManualSessionClock(Date()))
            let error = await verificationError(session.accessToken, verifier)
            #expect(error == .symmetricAlgorithm)
            #expect(error?.description.contains("cannot be verified locally") == true)
            #expect(await verificationError(server.server.serviceRoleKey, verifier) == .symmetricAlgorithm)
            #expect(transport.spy.total == 0)
        }
    }

    @Test("forged tokens are refused: another key, a tampered payload, swapped alg or kid, none, garbage")
    func forgedTokens() async throws {
        let keys = try Self.keys([(.es256, true), (.rs256, false)])
        let ecKid = keys.signingKey.id
        let rsaKid = try #require(keys.keys.last?.id)
        try await withTestServer(configure: { $0.jwtKeys = keys }) { server in
            let session = try await Self.signUp(server, "forged@example.com")
            let transport = RoutingTransport(server.baseURL)
            let verifier = Self.verifier(server, transport: transport, clock: ManualSessionClock(Date()))
            _ = try await verifier.verify(session.accessToken)
            var claims = try Self.payload(of: session.accessToken)
            let parts = session.accessToken.split(separator: ".").map(String.init)
            func relabelled(_ header: [String: Any]) throws -> String {
                let head = try JSONSerialization.data(withJSONObject: header).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
                return "\(head).\(parts[1]).\(parts[2])"
            }

            let attacker = P256.Signing.PrivateKey()
            let foreign = try Self.token(header: ["alg": "ES256", "kid": ecKid], claims: claims) { try attacker.signature(for: $0).rawRepresentation }
            #expect(await verificationError(foreign, verifier) == .invalidSignature)
            claims["role"] = "service_role"
            let tampered = try Self.token(header: ["alg": "ES256", "kid": ecKid], claims: claims) { _ in Base64URL.decode(parts[2])! }
            #expect(await verificationError(tampered, verifier) == .invalidSignature)
            #expect(await verificationError(try relabelled(["alg": "RS256", "kid": ecKid]), verifier) == .algorithmMismatch)
            #expect(await verificationError(try relabelled(["alg": "ES256", "kid": rsaKid]), verifier) == .algorithmMismatch)
            #expect(await verificationError(try relabelled(["alg": "none", "kid": ecKid]), verifier) == .unsupportedAlgorithm("none"))
            #expect(await verificationError(try relabelled(["alg": "HS256", "kid": ecKid]), verifier) == .symmetricAlgorithm)
            #expect(await verificationError(try relabelled(["alg": "ES256"]), verifier) == .missingKeyID)
            #expect(await verificationError("\(parts[0]).\(parts[1]).", verifier) == .invalidSignature)
            #expect(await verificationError("garbage", verifier) == .malformed(reason: "not three dot-separated parts"))
            #expect(await verificationError("a.b.c", verifier) != nil)
            var noExp = try Self.payload(of: session.accessToken)
            noExp["exp"] = nil
            let unbounded = try Self.token(header: ["alg": "ES256", "kid": ecKid], claims: noExp) { _ in Data(count: 64) }
            #expect(await verificationError(unbounded, verifier) == .missingExpiry)
            #expect(transport.keyFetches == 1)
        }
    }

    @Test("a token with a new kid fetches the keys again (after the minimum interval), and old tokens keep verifying while their key is published")
    func rotationRefetch() async throws {
        let oldJSON = try JWTKeySet.generateKey(.es256)
        let old = try JWTKeySet(json: "[\(oldJSON)]")
        let oldKey = try #require(old.keys.first)
        // The second server signs with a new key and still publishes the old one.
        let oldVerifyOnly = oldJSON.replacingOccurrences(of: #""key_ops":["sign","verify"]"#, with: #""key_ops":["verify"]"#)
        let rotated = try JWTKeySet(json: "[\(try JWTKeySet.generateKey(.rs256)),\(oldVerifyOnly)]")
        try await withTestServer(configure: { $0.jwtKeys = old }) { before in
            try await withTestServer(configure: { $0.jwtKeys = rotated }) { after in
                let oldSession = try await Self.signUp(before, "rotation-before@example.com")
                let newSession = try await Self.signUp(after, "rotation-after@example.com")
                let transport = RoutingTransport(before.baseURL)
                let clock = ManualSessionClock(Date())
                let verifier = AccessTokenVerifier(
                    server: .init(baseURL: URL(string: "http://127.0.0.1:1")!), transport: transport, clock: clock)

                _ = try await verifier.verify(oldSession.accessToken)
                #expect(transport.keyFetches == 1)

                // The server now signs with a new key.
                transport.route(to: after.baseURL)
                #expect(await verificationError(newSession.accessToken, verifier) == .unknownKeyID, "fetched too recently to ask again")
                #expect(transport.keyFetches == 1)
                clock.advance(by: 30)
                let verified = try await verifier.verify(newSession.accessToken)
                #expect(verified.keyID == rotated.signingKey.id && verified.algorithm == "RS256")
                #expect(transport.keyFetches == 2)
                let stillValid = try await verifier.verify(oldSession.accessToken)
                #expect(stillValid.keyID == oldKey.id)
                #expect(transport.keyFetches == 2)
            }
        }
    }

    @Test("tokens with made-up kids cannot make the verifier hammer the server")
    func garbageKidsDoNotHammer() async throws {
        let keys = try Self.keys([(.es256, true)])
        try await withTestServer(configure: { $0.jwtKeys = keys }) { server in
            let session = try await Self.signUp(server, "hammer@example.com")
            let transport = RoutingTransport(server.baseURL)
            let clock = ManualSessionClock(Date())
            let verifier = Self.verifier(server, transport: transport, clock: clock)
            let claims = try Self.payload(of: session.accessToken)
            let attacker = P256.Signing.PrivateKey()
            func garbage() throws -> String {
                try Self.token(header: ["alg": "ES256", "kid": UUID().uuidString], claims: claims) {
                    try attacker.signature(for: $0).rawRepresentation
                }
            }
            let tokens = try (0..<200).map { _ in try garbage() }
            let errors = await withTaskGroup(of: AccessTokenVerificationError?.self) { group in
                for token in tokens { group.addTask { await verificationError(token, verifier) } }
                return await group.reduce(into: [AccessTokenVerificationError?]()) { $0.append($1) }
            }
            #expect(errors.allSatisfy { $0 == .unknownKeyID })
            #expect(transport.keyFetches == 1, "200 unknown kids, one fetch")
            // Still one fetch per interval, however many arrive.
            for _ in 0..<5 {
                clock.advance(by: 10)
                for _ in 0..<20 { _ = await verificationError(try garbage(), verifier) }
            }
            #expect(transport.keyFetches == 2, "50 seconds: the first fetch and one more after 30 s")
            // The genuine token still verifies from the cache.
            _ = try await verifier.verify(session.accessToken)
            #expect(transport.keyFetches == 2)
        }
    }

    @Test("unreachable keys fail clearly, are not asked for again at once, and recover")
    func keysUnavailable() async throws {
        let keys = try Self.keys([(.es256, true)])
        try await withTestServer(configure: { $0.jwtKeys = keys }) { server in
            let session = try await Self.signUp(server, "offline@example.com")
            let transport = RoutingTransport(server.baseURL)
            let clock = ManualSessionClock(Date())
            let verifier = Self.verifier(server, transport: transport, clock: clock)
            transport.spy.setOffline(true)
            #expect(await verificationError(session.accessToken, verifier) == .keysUnavailable(.transport(.offline)))
            transport.spy.setOffline(false)
            #expect(await verificationError(session.accessToken, verifier) == .keysUnavailable(.transport(.offline)), "not retried at once")
            #expect(transport.keyFetches == 0)
            clock.advance(by: 30)
            _ = try await verifier.verify(session.accessToken)
            #expect(transport.keyFetches == 1)
        }
    }
}
