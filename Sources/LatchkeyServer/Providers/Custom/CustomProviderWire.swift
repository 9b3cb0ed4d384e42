import Foundation
import Hummingbird
import LatchkeyWire

/// `POST` and `PUT /admin/custom-providers…`: GoTrue's `AdminCustomOAuthProviderParams`, the
/// members this server takes. On `PUT`, an absent member keeps its value.
struct CustomProviderBody: Decodable, Sendable {
    var provider_type: String?
    var identifier: String?
    var name: String?
    var client_id: String?
    var client_secret: String?
    var acceptable_client_ids: [String]?
    var scopes: [String]?
    var pkce_enabled: Bool?
    var attribute_mapping: [String: JSONValue]?
    var enabled: Bool?
    var email_optional: Bool?
    var issuer: String?
    var discovery_url: String?
    var skip_nonce_check: Bool?
    var authorization_url: String?
    var token_url: String?
    var userinfo_url: String?
}

/// A custom provider as the admin API answers it: GoTrue's JSON, without the client secret.
struct CustomProviderResponse: ResponseEncodable, Sendable, Equatable {
    var id: String
    var provider_type: String
    var identifier: String
    var name: String
    var client_id: String
    var acceptable_client_ids: [String]
    var scopes: [String]
    var pkce_enabled: Bool
    var attribute_mapping: [String: String]
    var custom_claims_allowlist: [String]
    var authorization_params: [String: String]
    var enabled: Bool
    var email_optional: Bool
    var issuer: String?
    var discovery_url: String?
    var authorization_url: String?
    var token_url: String?
    var userinfo_url: String?
    var skip_nonce_check: Bool
    var created_at: String
    var updated_at: String

    init(_ record: CustomProviderRecord) {
        id = record.id.lowercasedString
        provider_type = record.isOAuth2 ? "oauth2" : "oidc"
        identifier = record.identifier
        name = record.name
        client_id = record.clientID
        acceptable_client_ids = record.acceptableClientIDs
        scopes = record.scopes
        pkce_enabled = record.pkceEnabled
        attribute_mapping = record.attributeMapping
        custom_claims_allowlist = []
        authorization_params = [:]
        enabled = record.enabled
        email_optional = record.emailOptional
        issuer = record.isOAuth2 ? nil : record.issuer
        discovery_url = record.isOAuth2 ? nil : record.issuer.trimmingTrailingSlash() + "/.well-known/openid-configuration"
        authorization_url = record.authorizationURL
        token_url = record.tokenURL
        userinfo_url = record.userinfoURL
        skip_nonce_check = record.skipNonceCheck
        created_at = WireDate.format(record.createdAt)
        updated_at = WireDate.format(record.updatedAt)
    }
}

/// `GET /admin/custom-providers`: `{"providers": […]}`.
struct CustomProviderList: ResponseEncodable, Sendable {
    var providers: [CustomProviderResponse]
}
