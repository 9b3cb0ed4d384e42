import Crypto
import Foundation
import Hummingbird
import LatchkeyServer
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle
import _CryptoExtras

/// An OpenID Connect provider for tests: serves its discovery document and signing keys on
/// 127.0.0.1 and mints ID tokens, signed with ES256 or RS256, for any person and audience.
///
/// Point a server at it as a Keycloak provider, or as a stand-in for Apple or Google (both
/// need `allowLoopbackProviders`):
///
/// ```swift
/// let provider = try await TestIdentityProvider.start()
/// let server = try await TestAuthServer.start { configuration in
///     configuration.external.allowLoopbackProviders = true
///     configuration.external.keycloak = ProviderSettings(enabled: true, clientIDs: ["my-app"], url: provider.issuer)
/// }
/// let token = try provider.idToken(subject: "person-1", audience: "my-app", email: "ada@example.com")
/// ```
public final class TestIdentityProvider: Sendable {
    /// How the provider signs its tokens.
    public enum Algorithm: String, Sendable {
        case es256 = "ES256"
        case rs256 = "RS256"
    }

    /// A signing key with its published form.
    struct Key: Sendable {
        let id: String
        let algorithm: Algorithm
        let sign: @Sendable (Data) throws -> Data
        let publicJWK: [String: String]

        static func make(_ algorithm: Algorithm) throws -> Key {
            let id = UUID().uuidString.lowercased()
            switch algorithm {
            case .es256:
                let key = P256.Signing.PrivateKey()
                let point = key.publicKey.rawRepresentation
                return Key(
                    id: id, algorithm: algorithm, sign: { try key.signature(for: $0).rawRepresentation },
                    publicJWK: [
                        "kty": "EC", "crv": "P-256", "x": base64URL(point.prefix(32)), "y": base64URL(point.suffix(32)), "kid": id,
                        "alg": "ES256", "use": "sig",
                    ])
            case .rs256:
                let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
                let numbers = try key.publicKey.getKeyPrimitives()
                return Key(
                    id: id, algorithm: algorithm, sign: { try key.signature(for: $0, padding: .insecurePKCS1v1_5).rawRepresentation },
                    publicJWK: [
                        "kty": "RSA", "n": base64URL(numbers.modulus), "e": base64URL(numbers.publicExponent), "kid": id, "alg": "RS256",
                        "use": "sig",
                    ])
            }
        }
    }

    /// The issuer URL (`http://127.0.0.1:<port>`), also the `iss` of its tokens.
    public let issuer: String
    private let keys: NIOLockedValueBox<[Key]>
    private let keyFetches: NIOLockedValueBox<Int>
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(issuer: String, keys: NIOLockedValueBox<[Key]>, keyFetches: NIOLockedValueBox<Int>, group: ServiceGroup, task: Task<Void, any Error>)
    {
        self.issuer = issuer
        self.keys = keys
        self.keyFetches = keyFetches
        self.group = group
        self.task = task
    }

    /// Starts a provider signing with `algorithm`, listening on a free loopback port.
    public static func start(
        algorithm: Algorithm = .es256, logger: Logger = Logger(label: "latchkey.testing.idp")
    ) async throws -> TestIdentityProvider {
        let keys = NIOLockedValueBox([try Key.make(algorithm)])
        let keyFetches = NIOLockedValueBox(0)
        let issuerBox = NIOLockedValueBox("")
        let router = Router()
        router.get("/.well-known/openid-configuration") { _, _ -> Response in
            let issuer = issuerBox.withLockedValue { $0 }
            return json([
                "issuer": issuer, "jwks_uri": issuer + "/jwks", "authorization_endpoint": issuer + "/authorize",
                "token_endpoint": issuer + "/token", "id_token_signing_alg_values_supported": algorithm.rawValue,
            ])
        }
        router.get("/jwks") { _, _ -> Response in
            keyFetches.withLockedValue { $0 += 1 }
            let published = keys.withLockedValue { $0.map(\.publicJWK) }
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: ["keys": published]))))
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            defer { continuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await task.value
            throw ConfigurationError("the test identity provider stopped before it started listening")
        }
        let issuer = "http://127.0.0.1:\(port)"
        issuerBox.withLockedValue { $0 = issuer }
        return TestIdentityProvider(issuer: issuer, keys: keys, keyFetches: keyFetches, group: group, task: task)
    }

    /// How often the signing keys were fetched.
    public var keySetFetches: Int { keyFetches.withLockedValue { $0 } }

    /// The `kid` of the key tokens are signed with now.
    public var currentKeyID: String { keys.withLockedValue { $0[0].id } }

    /// Replaces the signing key with a new one (the old one is no longer published).
    public func rotateKey() throws {
        let algorithm = keys.withLockedValue { $0[0].algorithm }
        let key = try Key.make(algorithm)
        keys.withLockedValue { $0 = [key] }
    }

    /// An ID token for `subject`, for the client `audience`, valid for `lifetime` from
    /// `issuedAt`. `nonce` is the raw nonce the app keeps: the token carries its SHA-256 (hex),
    /// as Sign in with Apple and Google do. `claims` adds or replaces claims.
    public func idToken(
        subject: String, audience: String, email: String? = nil, emailVerified: Bool = true, nonce: String? = nil,
        issuedAt: Date = Date(), lifetime: TimeInterval = 3600, claims: [String: any Sendable] = [:]
    ) throws -> String {
        var payload: [String: Any] = [
            "iss": issuer, "sub": subject, "aud": audience, "iat": Int(issuedAt.timeIntervalSince1970),
            "exp": Int(issuedAt.addingTimeInterval(lifetime).timeIntervalSince1970),
        ]
        if let email {
            payload["email"] = email
            payload["email_verified"] = emailVerified
        }
        if let nonce { payload["nonce"] = Self.hashedNonce(nonce) }
        for (name, value) in claims { payload[name] = value }
        return try sign(payload)
    }

    /// `payload` signed with the current key, with `header` members added to (or replacing)
    /// `alg`, `kid` and `typ`: for tests of tokens that must be refused.
    public func sign(_ payload: [String: Any], header: [String: String] = [:]) throws -> String {
        let key = keys.withLockedValue { $0[0] }
        var fullHeader = ["alg": key.algorithm.rawValue, "kid": key.id, "typ": "JWT"]
        for (name, value) in header { fullHeader[name] = value }
        let signingInput =
            Self.base64URL(try JSONSerialization.data(withJSONObject: fullHeader, options: [.sortedKeys])) + "."
            + Self.base64URL(try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]))
        return signingInput + "." + Self.base64URL(try key.sign(Data(signingInput.utf8)))
    }

    /// The nonce an ID token carries for the raw `nonce`: its SHA-256 in lowercase hex.
    public static func hashedNonce(_ nonce: String) -> String {
        SHA256.hash(data: Data(nonce.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Stops serving.
    public func shutdown() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }

    static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func json(_ object: [String: String]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data("{}".utf8)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
