import Foundation
import LatchkeyWire
import Logging

/// An OpenID provider's discovery document (OpenID Connect Discovery 1.0 §3): the members the
/// server uses.
struct OIDCDiscoveryDocument: Codable, Sendable, Equatable {
    var issuer: String
    var authorization_endpoint: String?
    var token_endpoint: String?
    var userinfo_endpoint: String?
    var jwks_uri: String
    /// How clients authenticate at the token endpoint; `client_secret_basic` when absent.
    var token_endpoint_auth_methods_supported: [String]?
}

/// The discovery documents and signing keys of the identity providers the server trusts,
/// fetched when first needed and kept for an hour.
///
/// Concurrent requests for one issuer share one fetch. A token signed with a key the cached
/// set does not have makes the set be fetched again, at most once a minute per issuer, so a
/// provider's key rotation is picked up at once and a flood of tokens with made-up `kid`s
/// cannot make the server hammer the provider.
actor OIDCProviderDirectory {
    struct Entry {
        var document: OIDCDiscoveryDocument
        var keys: [JSONWebKey]
        var fetchedAt: Date
        var keysFetchedAt: Date
    }

    private let http: any ProviderHTTP
    private let clock: any ServerClock
    private let logger: Logger
    private let lifetime: TimeInterval
    private let refetchInterval: TimeInterval
    private var entries: [String: Entry] = [:]
    private var fetches: [String: Task<Entry, any Error>] = [:]

    init(
        http: any ProviderHTTP, clock: any ServerClock, logger: Logger, lifetime: TimeInterval = 3600, refetchInterval: TimeInterval = 60
    ) {
        self.http = http
        self.clock = clock
        self.logger = logger
        self.lifetime = lifetime
        self.refetchInterval = refetchInterval
    }

    /// The discovery document of `issuer`.
    func document(issuer: String) async throws -> OIDCDiscoveryDocument {
        try await entry(issuer).document
    }

    /// The keys of `issuer` that may check a token signed with `alg` and naming `kid` (every
    /// key of that algorithm when the token names none). Empty when the provider has none,
    /// even after fetching its keys again.
    func verificationKeys(issuer: String, kid: String?, alg: String) async throws -> [VerificationKey] {
        var current = try await entry(issuer)
        var keys = Self.matching(current.keys, kid: kid, alg: alg)
        if keys.isEmpty, clock.now().timeIntervalSince(current.keysFetchedAt) >= refetchInterval {
            current.keys = try await fetchKeys(current.document)
            current.keysFetchedAt = clock.now()
            entries[issuer] = current
            keys = Self.matching(current.keys, kid: kid, alg: alg)
        }
        return keys
    }

    /// The provider's keys that check `alg` signatures (``JWSPublicKey/init(_:)``), with `kid`
    /// when the token names one.
    static func matching(_ keys: [JSONWebKey], kid: String?, alg: String) -> [VerificationKey] {
        keys.filter { kid == nil || $0.kid == kid }.compactMap(JWSPublicKey.init).filter { $0.algorithm == alg }.map(VerificationKey.publicKey)
    }

    private func entry(_ issuer: String) async throws -> Entry {
        if let entry = entries[issuer], clock.now().timeIntervalSince(entry.fetchedAt) < lifetime { return entry }
        if let fetch = fetches[issuer] { return try await fetch.value }
        let fetch = Task { try await self.fetch(issuer) }
        fetches[issuer] = fetch
        defer { fetches[issuer] = nil }
        do {
            let entry = try await fetch.value
            entries[issuer] = entry
            return entry
        } catch {
            logger.warning("identity provider unavailable", metadata: ["issuer": "\(issuer)", "reason": "\(error)"])
            throw error
        }
    }

    private func fetch(_ issuer: String) async throws -> Entry {
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        guard let url = URL(string: base + "/.well-known/openid-configuration") else {
            throw ProviderFetchError("issuer \(issuer) is not a URL")
        }
        let document: OIDCDiscoveryDocument = try await json(url)
        // OpenID Connect Discovery §4.3: the document's issuer is the issuer it was fetched for.
        guard document.issuer == issuer else {
            throw ProviderFetchError("discovery document of \(issuer) names another issuer")
        }
        let now = clock.now()
        return Entry(document: document, keys: try await fetchKeys(document), fetchedAt: now, keysFetchedAt: now)
    }

    private func fetchKeys(_ document: OIDCDiscoveryDocument) async throws -> [JSONWebKey] {
        guard let url = URL(string: document.jwks_uri) else { throw ProviderFetchError("jwks_uri of \(document.issuer) is not a URL") }
        let set: JSONWebKeySet = try await json(url)
        return set.keys
    }

    private func json<T: Decodable>(_ url: URL) async throws -> T {
        let response = try await http.send(ProviderRequest(url: url))
        guard response.status == 200 else { throw ProviderFetchError("\(url.host ?? "?") answered \(response.status)") }
        do {
            return try JSONDecoder().decode(T.self, from: response.body)
        } catch {
            throw ProviderFetchError("\(url.host ?? "?") answered with JSON that is not a \(T.self)")
        }
    }
}
