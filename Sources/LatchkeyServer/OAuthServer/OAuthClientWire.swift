import Foundation
import Hummingbird
import LatchkeyWire

/// `POST /admin/oauth/clients`, `POST /oauth/clients/register` and `PUT /admin/oauth/clients/{id}`:
/// GoTrue's client parameters. A `null` member is the same as an absent one; members GoTrue
/// ignores (`response_types`, `scope`) are ignored.
struct OAuthClientBody: Decodable, Sendable {
    var redirect_uris: [String]?
    var client_type: String?
    var token_endpoint_auth_method: String?
    var grant_types: [String]?
    var client_name: String?
    var client_uri: String?
    var logo_uri: String?
}

/// A client as GoTrue answers it. `client_secret` is present only where the secret is answered
/// (registration and regeneration), never `null`; empty descriptions are left out.
struct OAuthClientResponse: ResponseEncodable, Sendable, Equatable {
    var client_id: String
    var client_secret: String?
    var client_type: String
    var redirect_uris: [String]
    var token_endpoint_auth_method: String
    var grant_types: [String]
    var response_types: [String]
    var client_name: String?
    var client_uri: String?
    var logo_uri: String?
    var registration_type: String
    var created_at: String
    var updated_at: String

    init(_ client: OAuthClientRecord, secret: String? = nil) {
        client_id = client.id.lowercasedString
        client_secret = secret
        client_type = client.clientType.rawValue
        redirect_uris = client.redirectURIs
        token_endpoint_auth_method = client.authenticationMethod.rawValue
        grant_types = client.grantTypes
        response_types = ["code"]
        client_name = client.name
        client_uri = client.clientURI
        logo_uri = client.logoURI
        registration_type = client.registration.rawValue
        created_at = WireDate.format(client.createdAt)
        updated_at = WireDate.format(client.updatedAt)
    }
}

/// `GET /admin/oauth/clients`: every client, newest first. With none, `{"clients":[]}` (GoTrue
/// answers `{}`, which supabase-py cannot read).
struct OAuthClientListResponse: ResponseEncodable, Sendable {
    var clients: [OAuthClientResponse]
}
