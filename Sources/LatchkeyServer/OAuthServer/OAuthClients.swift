import Crypto
import Foundation
import LatchkeyWire

/// The OAuth server's client registry, as GoTrue keeps it: registration by an administrator or
/// by the client itself (RFC 7591), reading, changing, deleting, and a confidential client's new
/// secret.
///
/// A confidential client's secret is 32 random bytes, answered once (at registration and at each
/// regeneration) and stored only as its SHA-256 hash; a public client has none and proves itself
/// with PKCE alone. Redirect URIs are matched exactly later, so they are checked strictly here:
/// absolute with a host, no fragment, never a script-bearing scheme, plain `http` only on the
/// loopback host.
struct OAuthClients: Sendable {
    let store: any AuthStore
    let clock: any ServerClock

    /// The most redirect URIs one client may register.
    static let maximumRedirectURIs = 10
    /// Schemes a redirect URI may never have: the browser would run or read what follows.
    static let forbiddenSchemes: Set<String> = ["javascript", "data", "file", "vbscript", "about", "blob"]
    /// Hosts plain `http` is allowed for.
    static let loopbackHosts: Set<String> = ["localhost", "127.0.0.1", "::1", "[::1]"]

    /// Registers a client from `body`: 201 with the client (and its secret, when confidential).
    func register(_ body: OAuthClientBody, registration: OAuthClientRecord.Registration) async throws -> OAuthClientResponse {
        let (clientType, method) = try Self.validateRegistration(body)
        let secret = clientType == .confidential ? OAuthClientSecret.generate() : nil
        let client = OAuthClientRecord(
            clientType: clientType, authenticationMethod: method, secretHash: secret.map(OAuthClientSecret.hash),
            redirectURIs: body.redirect_uris ?? [],
            grantTypes: (body.grant_types ?? []).isEmpty ? OAuthClientRecord.grantTypes : body.grant_types ?? [],
            name: Self.nonEmpty(body.client_name),
            clientURI: Self.nonEmpty(body.client_uri), logoURI: Self.nonEmpty(body.logo_uri), registration: registration, createdAt: clock.now())
        try await store.insertOAuthClient(client)
        return OAuthClientResponse(client, secret: secret)
    }

    /// Every client that is not deleted, newest first, without secrets.
    func list() async throws -> OAuthClientListResponse {
        OAuthClientListResponse(clients: try await store.oauthClients().map { OAuthClientResponse($0) })
    }

    /// The client with `id`, without its secret: 404 `oauth_client_not_found` when there is none.
    func client(_ id: UUID) async throws -> OAuthClientRecord {
        guard let client = try await store.oauthClient(id: id) else { throw AuthError.oauthClientNotFound }
        return client
    }

    /// Changes the members `body` names (a `null` member is not named); the client type never
    /// changes. 400 `validation_failed` when nothing is named or a value is refused.
    func update(_ id: UUID, with body: OAuthClientBody) async throws -> OAuthClientResponse {
        var client = try await client(id)
        guard
            body.redirect_uris != nil || body.grant_types != nil || body.client_name != nil || body.client_uri != nil
                || body.logo_uri != nil || body.token_endpoint_auth_method != nil
        else { throw AuthError.validation("No fields provided for update") }
        if let uris = body.redirect_uris {
            guard !uris.isEmpty else { throw AuthError.validation("redirect_uris cannot be empty") }
            try Self.validateRedirectURIs(uris)
            client.redirectURIs = uris
        }
        if let grants = body.grant_types {
            guard !grants.isEmpty else { throw AuthError.validation("grant_types cannot be empty") }
            try Self.validateGrantTypes(grants)
            client.grantTypes = grants
        }
        try Self.validateDescription(body)
        if let name = body.client_name { client.name = Self.nonEmpty(name) }
        if let uri = body.client_uri { client.clientURI = Self.nonEmpty(uri) }
        if let uri = body.logo_uri { client.logoURI = Self.nonEmpty(uri) }
        if let text = body.token_endpoint_auth_method {
            let methods = OAuthClientRecord.AuthenticationMethod.allCases.map(\.rawValue).joined(separator: " ")
            guard let method = OAuthClientRecord.AuthenticationMethod(rawValue: text) else {
                throw AuthError.validation("invalid token_endpoint_auth_method: must be one of [\(methods)]")
            }
            guard method.clientType == client.clientType else {
                let valid = OAuthClientRecord.AuthenticationMethod.allCases.filter { $0.clientType == client.clientType }.map(\.rawValue)
                throw AuthError.validation(
                    "token_endpoint_auth_method '\(text)' is not valid for client_type '\(client.clientType.rawValue)'; valid methods: [\(valid.joined(separator: " "))]"
                )
            }
            client.authenticationMethod = method
        }
        client.updatedAt = clock.now()
        guard try await store.updateOAuthClient(client) else { throw AuthError.oauthClientNotFound }
        return OAuthClientResponse(client)
    }

    /// Deletes the client: it is not found afterwards, and can no longer get tokens.
    func delete(_ id: UUID) async throws {
        var client = try await client(id)
        client.deletedAt = clock.now()
        client.updatedAt = clock.now()
        guard try await store.updateOAuthClient(client) else { throw AuthError.oauthClientNotFound }
    }

    /// A confidential client's new secret, answered once; the old one stops working. A public
    /// client has none: 400 `validation_failed`.
    func regenerateSecret(_ id: UUID) async throws -> OAuthClientResponse {
        var client = try await client(id)
        guard client.clientType == .confidential else { throw AuthError.validation("Cannot regenerate secret for public client") }
        let secret = OAuthClientSecret.generate()
        client.secretHash = OAuthClientSecret.hash(secret)
        client.updatedAt = clock.now()
        guard try await store.updateOAuthClient(client) else { throw AuthError.oauthClientNotFound }
        return OAuthClientResponse(client, secret: secret)
    }

    /// The client type and authentication method of a registration, after GoTrue's checks in its
    /// order (each refusal 400 `validation_failed`): redirect URIs, grant types, the name and
    /// URIs, the type, the method, and the two agreeing. A method alone decides the type; neither
    /// given is a confidential client with `client_secret_basic`.
    static func validateRegistration(
        _ body: OAuthClientBody
    ) throws(AuthError) -> (OAuthClientRecord.ClientType, OAuthClientRecord.AuthenticationMethod) {
        let uris = body.redirect_uris ?? []
        guard !uris.isEmpty else { throw .validation("redirect_uris is required") }
        try validateRedirectURIs(uris)
        if let grants = body.grant_types, !grants.isEmpty { try validateGrantTypes(grants) }
        try validateDescription(body)
        var clientType: OAuthClientRecord.ClientType?
        if let text = body.client_type, !text.isEmpty {
            guard let type = OAuthClientRecord.ClientType(rawValue: text) else { throw .validation("client_type must be 'public' or 'confidential'") }
            clientType = type
        }
        var method: OAuthClientRecord.AuthenticationMethod?
        if let text = body.token_endpoint_auth_method, !text.isEmpty {
            guard let known = OAuthClientRecord.AuthenticationMethod(rawValue: text) else {
                let methods = OAuthClientRecord.AuthenticationMethod.allCases.map(\.rawValue).joined(separator: " ")
                throw .validation("token_endpoint_auth_method must be one of: [\(methods)]")
            }
            method = known
        }
        if let clientType, let method, method.clientType != clientType {
            throw .validation(
                "client_type '\(clientType.rawValue)' is inconsistent with token_endpoint_auth_method '\(method.rawValue)' (expected client_type '\(method.clientType.rawValue)')"
            )
        }
        let type = clientType ?? method?.clientType ?? .confidential
        return (type, method ?? (type == .public ? .none : .clientSecretBasic))
    }

    static func validateRedirectURIs(_ uris: [String]) throws(AuthError) {
        guard uris.count <= maximumRedirectURIs else { throw .validation("redirect_uris cannot exceed \(maximumRedirectURIs) items") }
        for uri in uris {
            if let reason = redirectURIProblem(uri) { throw .validation("invalid redirect_uri '\(uri.prefix(200))': \(reason)") }
        }
    }

    /// Why `uri` cannot be a redirect URI, or `nil` when it can.
    static func redirectURIProblem(_ uri: String) -> String? {
        guard !uri.isEmpty else { return "redirect URI cannot be empty" }
        guard let components = URLComponents(string: uri) else { return "invalid URL format" }
        guard let scheme = components.scheme?.lowercased(), !scheme.isEmpty, let host = components.host, !host.isEmpty else {
            return "must have scheme and host"
        }
        if forbiddenSchemes.contains(scheme) { return "scheme '\(scheme)' is not allowed for security reasons" }
        if scheme == "http", !loopbackHosts.contains(host.lowercased()) { return "HTTP scheme only allowed for localhost" }
        if components.fragment != nil { return "fragment not allowed in redirect URI" }
        return nil
    }

    static func validateGrantTypes(_ grants: [String]) throws(AuthError) {
        guard grants.allSatisfy(OAuthClientRecord.grantTypes.contains) else {
            throw .validation("grant_types must only contain 'authorization_code' and/or 'refresh_token'")
        }
    }

    /// The name (at most 1,024 characters) and the client's and logo's URIs (at most 2,048, each
    /// an absolute URL).
    static func validateDescription(_ body: OAuthClientBody) throws(AuthError) {
        if let name = body.client_name, name.count > 1024 { throw .validation("client_name cannot exceed 1024 characters") }
        for (field, value) in [("client_uri", body.client_uri), ("logo_uri", body.logo_uri)] {
            guard let value, !value.isEmpty else { continue }
            guard value.count <= 2048 else { throw .validation("\(field) cannot exceed 2048 characters") }
            guard let url = URLComponents(string: value), url.scheme != nil, url.host != nil else {
                throw .validation("\(field) must be a valid URL")
            }
        }
    }

    static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }
}

/// A confidential client's secret: 32 random bytes as unpadded base64url, stored as the
/// unpadded base64url SHA-256 of the secret's bytes, and checked in constant time.
enum OAuthClientSecret {
    static func generate() -> String { OpaqueTokens.random(byteCount: 32) }

    static func hash(_ secret: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(secret.utf8))))
    }

    /// Whether `presented` is the secret `storedHash` was made from.
    static func matches(_ presented: String, storedHash: String) -> Bool {
        guard let stored = Base64URL.decode(storedHash) else { return false }
        return constantTimeEquals(Array(SHA256.hash(data: Data(presented.utf8))), Array(stored))
    }
}
