import Foundation
import HTTPTypes
import LatchkeyWire
import Logging

/// Providers added at run time through GoTrue's admin API (`/admin/custom-providers`), named
/// `custom:<name>`, usable once `GOTRUE_CUSTOM_OAUTH_ENABLED` is on: type `oidc` (an OpenID
/// issuer: the ID-token grant and the browser flow) or `oauth2` (authorization, token and
/// user-info endpoints given by hand: the browser flow only, since there is no ID token to check).
///
/// A provider is checked when it is saved: its URLs must be https on a public address (or on
/// loopback with `--allow-loopback-providers`), and an OpenID issuer's discovery document must
/// answer and name the same issuer. Its client secret is sealed (``SecretSealer``) and never
/// answered.
struct CustomProviders: ServiceDependent {
    let shared: ServiceDependencies
    let settings: ExternalProviderSettings
    let sealer: SecretSealer
    let directory: OIDCProviderDirectory

    static let prefix = "custom:"

    // MARK: The admin API

    func list(type: String?) async throws -> CustomProviderList {
        if let type, !type.isEmpty, type != "oidc", type != "oauth2" {
            throw AuthError.validation("type must be either 'oauth2' or 'oidc'")
        }
        let all = try await store.customProviders().filter { record in
            switch type {
            case "oauth2"?: record.isOAuth2
            case "oidc"?: !record.isOAuth2
            default: true
            }
        }
        return CustomProviderList(providers: all.map(CustomProviderResponse.init))
    }

    func get(_ identifier: String) async throws -> CustomProviderResponse {
        CustomProviderResponse(try await record(Self.checked(identifier)))
    }

    func create(_ body: CustomProviderBody) async throws -> CustomProviderResponse {
        guard let type = body.provider_type, type == "oidc" || type == "oauth2" else {
            throw AuthError.validation("provider_type must be either 'oauth2' or 'oidc'")
        }
        let identifier = try Self.checked(body.identifier ?? "")
        guard let clientID = body.client_id?.trimmingCharacters(in: .whitespaces), !clientID.isEmpty else {
            throw AuthError.validation("client_id is required")
        }
        guard let secret = body.client_secret, !secret.isEmpty else { throw AuthError.validation("client_secret is required") }
        let endpoints = type == "oauth2" ? try Self.endpoints(body, allowLoopback: settings.allowLoopbackProviders) : nil
        let issuer =
            if let endpoints { URL(string: endpoints.authorization).map { "\($0.scheme ?? "https")://\($0.host ?? "")" } ?? "" } else {
                try await checkedIssuer(body.issuer, discoveryURL: body.discovery_url)
            }
        let now = clock.now()
        let id = UUID()
        var record = CustomProviderRecord(
            id: id, identifier: identifier, name: try Self.name(body.name, default: String(identifier.dropFirst(Self.prefix.count))),
            clientID: clientID, sealedClientSecret: try sealer.seal(Array(secret.utf8), binding: Self.binding(identifier)),
            acceptableClientIDs: try Self.clientIDs(body.acceptable_client_ids), scopes: try Self.scopes(body.scopes),
            pkceEnabled: body.pkce_enabled ?? true, skipNonceCheck: body.skip_nonce_check ?? false, emailOptional: body.email_optional ?? false,
            enabled: body.enabled ?? true, issuer: issuer, attributeMapping: try Self.mapping(body.attribute_mapping), createdAt: now, updatedAt: now)
        if let endpoints {
            record.providerType = "oauth2"
            record.authorizationURL = endpoints.authorization
            record.tokenURL = endpoints.token
            record.userinfoURL = endpoints.userinfo
        }
        guard try await store.insertCustomProvider(record) else {
            throw AuthError(.badRequest, "conflict", "A custom OAuth provider with this identifier already exists")
        }
        logger.notice("custom provider added", metadata: ["identifier": "\(identifier)", "issuer": "\(issuer)"])
        return CustomProviderResponse(record)
    }

    func update(_ identifier: String, _ body: CustomProviderBody) async throws -> CustomProviderResponse {
        var record = try await record(Self.checked(identifier))
        if let type = body.provider_type, type != (record.isOAuth2 ? "oauth2" : "oidc") {
            throw AuthError.validation("provider_type cannot be changed")
        }
        if let other = body.identifier, other != record.identifier { throw AuthError.validation("identifier cannot be changed") }
        if let name = body.name { record.name = try Self.name(name, default: record.name) }
        if let clientID = body.client_id {
            guard !clientID.isEmpty else { throw AuthError.validation("client_id is required") }
            record.clientID = clientID
        }
        if let secret = body.client_secret, !secret.isEmpty {
            record.sealedClientSecret = try sealer.seal(Array(secret.utf8), binding: Self.binding(record.identifier))
        }
        if let ids = body.acceptable_client_ids { record.acceptableClientIDs = try Self.clientIDs(ids) }
        if let scopes = body.scopes { record.scopes = try Self.scopes(scopes) }
        if let value = body.pkce_enabled { record.pkceEnabled = value }
        if let value = body.skip_nonce_check { record.skipNonceCheck = value }
        if let value = body.email_optional { record.emailOptional = value }
        if let value = body.enabled { record.enabled = value }
        if let mapping = body.attribute_mapping { record.attributeMapping = try Self.mapping(mapping) }
        if record.isOAuth2 {
            if body.authorization_url != nil || body.token_url != nil || body.userinfo_url != nil {
                var merged = body
                merged.authorization_url = body.authorization_url ?? record.authorizationURL
                merged.token_url = body.token_url ?? record.tokenURL
                merged.userinfo_url = body.userinfo_url ?? record.userinfoURL
                let endpoints = try Self.endpoints(merged, allowLoopback: settings.allowLoopbackProviders)
                record.authorizationURL = endpoints.authorization
                record.tokenURL = endpoints.token
                record.userinfoURL = endpoints.userinfo
            }
        } else if body.issuer != nil || body.discovery_url != nil {
            record.issuer = try await checkedIssuer(body.issuer ?? record.issuer, discoveryURL: body.discovery_url)
        }
        record.updatedAt = clock.now()
        guard try await store.updateCustomProvider(record) else { throw Self.notFound }
        logger.notice("custom provider changed", metadata: ["identifier": "\(record.identifier)"])
        return CustomProviderResponse(record)
    }

    func delete(_ identifier: String) async throws {
        let identifier = try Self.checked(identifier)
        guard try await store.deleteCustomProvider(identifier: identifier) else { throw Self.notFound }
        logger.notice("custom provider deleted", metadata: ["identifier": "\(identifier)"])
    }

    // MARK: Signing in

    /// The provider `identifier` for signing in, with its client secret; GoTrue's errors when
    /// custom providers are off, or it is unknown or disabled.
    func signInProvider(_ identifier: String) async throws -> (provider: ResolvedProvider, record: CustomProviderRecord, secret: String) {
        guard settings.customProvidersEnabled else {
            throw AuthError.customProvidersDisabled
        }
        guard let record = try await store.customProvider(identifier: identifier) else {
            throw AuthError.validation("Custom OIDC provider \"\(identifier.prefix(80))\" not found")
        }
        guard record.enabled else {
            throw AuthError(.badRequest, "provider_disabled", "Custom OIDC provider \"\(identifier.prefix(80))\" is disabled")
        }
        guard let secret = sealer.open(record.sealedClientSecret, binding: Self.binding(identifier)) else {
            logger.error("a custom provider's client secret does not decrypt (another server secret?)", metadata: ["identifier": "\(identifier)"])
            throw AuthError(.internalServerError, "unexpected_failure", "The custom provider \(identifier.prefix(80)) cannot be used")
        }
        let provider = ResolvedProvider(
            name: record.identifier, discoveryIssuer: record.issuer, issuers: [record.issuer],
            clientIDs: [record.clientID] + record.acceptableClientIDs, skipNonceCheck: record.skipNonceCheck,
            emailOptional: record.emailOptional, claims: .generic)
        return (provider, record, String(decoding: secret, as: UTF8.self))
    }

    // MARK: Checks

    static let notFound = AuthError(.notFound, "custom_provider_not_found", "Custom OAuth provider not found")

    private func record(_ identifier: String) async throws -> CustomProviderRecord {
        guard let record = try await store.customProvider(identifier: identifier) else { throw Self.notFound }
        return record
    }

    /// `custom:` and 1–64 lowercase letters, digits, `-` or `_`.
    static func checked(_ identifier: String) throws(AuthError) -> String {
        guard identifier.hasPrefix(prefix) else {
            throw AuthError.validation("identifier must start with 'custom:' prefix, e.g. 'custom:\(identifier.prefix(64))'")
        }
        let name = identifier.dropFirst(prefix.count)
        guard (1...64).contains(name.count), name.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" })
        else { throw AuthError.validation("identifier must be 'custom:' and 1–64 lowercase letters, digits, '-' or '_'") }
        return identifier
    }

    /// The issuer of a new or changed provider, once its discovery document answered for it.
    private func checkedIssuer(_ issuer: String?, discoveryURL: String?) async throws -> String {
        guard let issuer = issuer?.trimmingCharacters(in: .whitespaces), !issuer.isEmpty else {
            throw AuthError.validation("issuer is required for OIDC providers")
        }
        if let discoveryURL, !discoveryURL.isEmpty, discoveryURL != issuer.trimmingTrailingSlash() + "/.well-known/openid-configuration" {
            throw AuthError.validation("discovery_url must be the issuer's /.well-known/openid-configuration")
        }
        guard let url = URL(string: issuer), let scheme = url.scheme?.lowercased(), url.host != nil, url.user == nil, url.query == nil else {
            throw AuthError.validation("issuer must be a URL")
        }
        guard scheme == "https" || (scheme == "http" && settings.allowLoopbackProviders) else {
            throw AuthError.validation("issuer must be an https URL")
        }
        let document: OIDCDiscoveryDocument
        do {
            document = try await directory.document(issuer: issuer)
        } catch {
            throw AuthError.validation("The issuer's discovery document could not be fetched: \(error)")
        }
        guard document.issuer == issuer else { throw AuthError.validation("The discovery document names another issuer") }
        guard document.authorization_endpoint != nil, document.token_endpoint != nil else {
            throw AuthError.validation("The discovery document has no authorization or token endpoint")
        }
        return issuer
    }

    /// An `oauth2` provider's three endpoints, each an https URL (http on loopback with the
    /// development switch).
    static func endpoints(
        _ body: CustomProviderBody, allowLoopback: Bool
    ) throws(AuthError) -> (
        authorization: String, token: String, userinfo: String
    ) {
        func checked(_ value: String?, _ name: String) throws(AuthError) -> String {
            guard let value, let url = URL(string: value), let scheme = url.scheme?.lowercased(), url.host?.isEmpty == false, url.user == nil
            else { throw AuthError.validation("\(name) is required for OAuth2 providers and must be a URL") }
            guard scheme == "https" || (scheme == "http" && allowLoopback) else { throw AuthError.validation("\(name) must be an https URL") }
            return value
        }
        return (
            try checked(body.authorization_url, "authorization_url"), try checked(body.token_url, "token_url"),
            try checked(body.userinfo_url, "userinfo_url")
        )
    }

    private static func name(_ name: String?, default fallback: String) throws(AuthError) -> String {
        let name = (name ?? "").trimmingCharacters(in: .whitespaces)
        guard name.count <= 100 else { throw AuthError.validation("name must be at most 100 characters") }
        return name.isEmpty ? fallback : name
    }

    private static func clientIDs(_ ids: [String]?) throws(AuthError) -> [String] {
        let ids = (ids ?? []).filter { !$0.isEmpty }
        guard ids.count <= 20, ids.allSatisfy({ $0.count <= 256 }) else { throw AuthError.validation("at most 20 acceptable_client_ids") }
        return ids
    }

    private static func scopes(_ scopes: [String]?) throws(AuthError) -> [String] {
        let scopes = (scopes ?? []).filter { !$0.isEmpty }
        guard scopes.count <= 20, scopes.allSatisfy({ $0.count <= 128 && !$0.contains(" ") }) else {
            throw AuthError.validation("scopes must be at most 20 words without spaces")
        }
        return scopes
    }

    /// Identity keys to claim names, as text.
    private static func mapping(_ mapping: [String: JSONValue]?) throws(AuthError) -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in mapping ?? [:] {
            guard let claim = value.stringValue, !claim.isEmpty, key.count <= 64, claim.count <= 64 else {
                throw AuthError.validation("attribute_mapping maps identity keys to claim names (text)")
            }
            result[key] = claim
        }
        guard result.count <= 30 else { throw AuthError.validation("attribute_mapping has at most 30 entries") }
        return result
    }

    private static func binding(_ identifier: String) -> String { "latchkey custom provider " + identifier }
}
