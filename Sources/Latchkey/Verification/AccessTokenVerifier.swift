import Foundation
internal import LatchkeyWire
import Logging

/// Verifies access tokens locally, with the public keys the server publishes at
/// `GET /.well-known/jwks.json`: no request per token, as Supabase clients' `getClaims()`.
///
/// ```swift
/// let verifier = AccessTokenVerifier(server: .init(baseURL: authURL, apiKey: anonKey))
/// let token = try await verifier.verify(bearerToken)
/// print(token.subject, token.role, token.assuranceLevel, token.expiresAt)
/// ```
///
/// A token is accepted when its header names ES256 or RS256 and a `kid`, the published key with
/// that `kid` is for that algorithm and its signature checks, and its `exp` (required) and
/// `nbf` (if any) hold on the injected clock. The header never chooses the algorithm on its
/// own: a token whose `alg` is not its key's is refused.
///
/// Tokens signed with HS256 (a server without asymmetric keys, `latchkey serve` without
/// `--jwt-keys`) cannot be verified locally, since only the server knows the secret: they fail
/// with ``AccessTokenVerificationError/symmetricAlgorithm``; ask the server instead
/// (``GoTrueBackend/user(accessToken:)``).
///
/// Local verification proves that the server issued the token and that it has not expired; it
/// cannot tell whether the session has been signed out since. Ask the server when that matters.
///
/// Keys are fetched through the injected ``HTTPTransport`` on first use, kept for
/// ``Options/cacheLifetime``, and fetched again early when a token names an unknown `kid` (the
/// server has a new key), but never more often than ``Options/minimumRefetchInterval``, so
/// tokens with made-up `kid`s cannot make the verifier flood the server. Concurrent callers
/// share one fetch. When keys cannot be fetched, verification fails with
/// ``AccessTokenVerificationError/keysUnavailable(_:)``; keys older than the cache lifetime are
/// not used.
public actor AccessTokenVerifier {
    /// How keys are cached and times checked.
    public struct Options: Sendable {
        /// Seconds fetched keys are used before they are fetched again: 600 (10 minutes), as the
        /// server's `Cache-Control` and Supabase clients.
        public var cacheLifetime: TimeInterval
        /// The fewest seconds between two fetches caused by unknown `kid`s: 30.
        public var minimumRefetchInterval: TimeInterval
        /// Seconds of clock difference allowed when checking `exp` and `nbf`: 0.
        public var leeway: TimeInterval

        public init(cacheLifetime: TimeInterval = 600, minimumRefetchInterval: TimeInterval = 30, leeway: TimeInterval = 0) {
            self.cacheLifetime = cacheLifetime
            self.minimumRefetchInterval = minimumRefetchInterval
            self.leeway = leeway
        }
    }

    /// Where the keys are published: the server's auth root and `/.well-known/jwks.json`.
    public nonisolated let keysURL: URL

    private let server: GoTrueBackend.Configuration
    private let transport: any HTTPTransport
    private let clock: any SessionClock
    private let options: Options
    private let logger: Logger

    private var keys: [String: JWSPublicKey] = [:]
    /// When the keys in `keys` were fetched.
    private var fetchedAt: Date?
    /// When the last fetch started, whether or not it succeeded.
    private var lastAttempt: Date?
    /// Why the last fetch failed, until one succeeds.
    private var lastFailure: BackendError?
    private var inFlight: Task<[String: JWSPublicKey], any Error>?

    /// A verifier for the server at `server.baseURL` (its `apiKey`, when set, is sent as
    /// Supabase's gateway requires).
    ///
    /// - Parameters:
    ///   - transport: sends the key requests (``URLSessionTransport`` by default).
    ///   - clock: the time `exp` and `nbf` are checked against, and the cache's clock.
    public init(
        server: GoTrueBackend.Configuration, transport: any HTTPTransport = URLSessionTransport(), clock: any SessionClock = SystemSessionClock(),
        options: Options = Options(), logger: Logger = Logger(label: "dev.latchkey.verifier")
    ) {
        self.server = server
        self.transport = transport
        self.clock = clock
        self.options = options
        self.logger = logger
        keysURL = server.baseURL.appendingPathComponent(".well-known/jwks.json")
    }

    /// The claims of `token` once its signature, algorithm and times are right.
    ///
    /// - Throws: ``AccessTokenVerificationError``.
    public func verify(_ token: String) async throws(AccessTokenVerificationError) -> VerifiedAccessToken {
        // Split by bytes, not by Characters (grapheme clusters): a token is ASCII.
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed(reason: "not three dot-separated parts") }
        guard let headerData = Base64URL.decode(utf8: parts[0]), let header = try? JSONDecoder().decode(Header.self, from: headerData) else {
            throw .malformed(reason: "the header is not base64url JSON")
        }
        guard let payload = Base64URL.decode(utf8: parts[1]) else { throw .malformed(reason: "the payload is not base64url") }
        guard let signature = Base64URL.decode(utf8: parts[2]) else { throw .malformed(reason: "the signature is not base64url") }
        guard let alg = header.alg else { throw .malformed(reason: "the header names no algorithm") }
        switch alg {
        case "ES256", "RS256": break
        case "HS256": throw .symmetricAlgorithm
        default: throw .unsupportedAlgorithm(alg)
        }
        guard let kid = header.kid else { throw .missingKeyID }
        guard let claims = try? JSONDecoder().decode([String: JSONValue].self, from: payload) else {
            throw .malformed(reason: "the payload is not a JSON object")
        }
        guard case .number? = claims["exp"], let verified = VerifiedAccessToken(payload: payload, keyID: kid, algorithm: alg) else {
            throw .missingExpiry
        }
        // Times first: an expired token costs no key fetch.
        let now = clock.now()
        guard now < verified.expiresAt.addingTimeInterval(options.leeway) else { throw .expired(at: verified.expiresAt) }
        if case .number(let nbf)? = claims["nbf"] {
            let notBefore = Date(timeIntervalSince1970: nbf)
            guard now >= notBefore.addingTimeInterval(-options.leeway) else { throw .notYetValid(until: notBefore) }
        }
        let key = try await key(for: kid)
        guard key.algorithm == alg else { throw .algorithmMismatch }
        let signedPart = Data(token.utf8.prefix(parts[0].count + 1 + parts[1].count))
        guard key.isValid(signature: signature, for: signedPart) else { throw .invalidSignature }
        return verified
    }

    /// Fetches the server's keys now (joining a fetch already under way), for instance at
    /// start-up so the first verification needs no request.
    ///
    /// - Throws: ``AccessTokenVerificationError/keysUnavailable(_:)``.
    public func refreshKeys() async throws(AccessTokenVerificationError) {
        let task: Task<[String: JWSPublicKey], any Error>
        let started: Date
        if let inFlight {
            task = inFlight
            started = lastAttempt ?? clock.now()
        } else {
            started = clock.now()
            lastAttempt = started
            let (transport, request) = (transport, keysRequest())
            task = Task { try await Self.download(request, transport: transport) }
            inFlight = task
        }
        defer { if inFlight == task { inFlight = nil } }
        do {
            let fetched = try await task.value
            if fetchedAt.map({ $0 <= started }) ?? true {
                keys = fetched
                fetchedAt = started
                lastFailure = nil
            }
        } catch {
            let failure = BackendError(error)
            lastFailure = failure
            logger.warning("cannot fetch the server's signing keys", metadata: ["error": "\(failure)", "url": "\(keysURL.absoluteString)"])
            throw .keysUnavailable(failure)
        }
    }

    /// The published key with `kid`, from the cache while it is fresh, otherwise fetched, at
    /// most once per minimum refetch interval.
    private func key(for kid: String) async throws(AccessTokenVerificationError) -> JWSPublicKey {
        let now = clock.now()
        let fresh = fetchedAt.map { now.timeIntervalSince($0) < options.cacheLifetime } ?? false
        if fresh, let key = keys[kid] { return key }
        if inFlight == nil, let lastAttempt, now.timeIntervalSince(lastAttempt) < options.minimumRefetchInterval {
            // Fetched (or tried) too recently to ask again.
            if fresh { throw .unknownKeyID }
            throw .keysUnavailable(lastFailure ?? .invalidResponse(reason: "signing keys not fetched yet"))
        }
        try await refreshKeys()
        guard let key = keys[kid] else { throw .unknownKeyID }
        return key
    }

    private nonisolated func keysRequest() -> HTTPRequest {
        var headers = server.additionalHeaders
        headers["Accept"] = "application/json"
        headers["X-Client-Info"] = "latchkey-swift/1"
        if let apiKey = server.apiKey {
            headers["apikey"] = apiKey
            headers["Authorization"] = "Bearer \(apiKey)"
        }
        return HTTPRequest(method: "GET", url: keysURL, headers: headers, timeout: server.requestTimeout)
    }

    private static func download(_ request: HTTPRequest, transport: any HTTPTransport) async throws -> [String: JWSPublicKey] {
        let response = try await transport.send(request)
        guard (200..<300).contains(response.status) else { throw GoTrueBackend.error(from: response) }
        guard let keys = Self.keys(inJWKS: response.body) else {
            throw BackendError.invalidResponse(reason: "cannot decode the JWKS document")
        }
        return keys
    }

    /// The keys of a JWKS document by `kid`: those that check ES256 or RS256 signatures
    /// (``JWSPublicKey/init(_:)``), the first of each `kid`. `nil` for a document that is not a
    /// JWKS.
    static func keys(inJWKS data: Data) -> [String: JWSPublicKey]? {
        guard let document = try? JSONDecoder().decode(JSONWebKeySet.self, from: data) else { return nil }
        var keys: [String: JWSPublicKey] = [:]
        for jwk in document.keys {
            guard let kid = jwk.kid, keys[kid] == nil, let key = JWSPublicKey(jwk) else { continue }
            keys[kid] = key
        }
        return keys
    }

    private struct Header: Decodable {
        var alg: String?
        var kid: String?
    }
}
