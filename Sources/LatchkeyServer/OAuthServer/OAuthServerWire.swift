import Foundation
import Hummingbird
import LatchkeyWire

/// A client as the consent screen and the user's grants show it: empty descriptions left out.
struct OAuthClientSummary: Encodable, Sendable, Equatable {
    var id: String
    var name: String?
    var uri: String?
    var logo_uri: String?

    init(_ client: OAuthClientRecord) {
        id = client.id.lowercasedString
        name = client.name
        uri = client.clientURI
        logo_uri = client.logoURI
    }
}

/// `GET /oauth/authorizations/{id}` while the user is to be asked: who asks, for whom, for what.
struct OAuthAuthorizationDetails: ResponseEncodable, Sendable, Equatable {
    struct User: Encodable, Sendable, Equatable {
        var id: String
        var email: String?
    }

    var authorization_id: String
    var redirect_uri: String
    var client: OAuthClientSummary
    var user: User
    var scope: String

    init(_ authorization: OAuthAuthorizationRecord, client: OAuthClientRecord, user: UserRecord) {
        authorization_id = authorization.id
        redirect_uri = authorization.redirectURI
        self.client = OAuthClientSummary(client)
        self.user = User(id: user.id.lowercasedString, email: user.email.isEmpty ? nil : user.email)
        scope = authorization.scope
    }
}

/// Where the consent screen sends the browser next: back to the client, with a code or an error.
struct OAuthRedirectResponse: ResponseEncodable, Sendable {
    var redirect_url: String
}

/// `POST /oauth/authorizations/{id}/consent`'s body.
struct OAuthConsentBody: Decodable, Sendable {
    var action: String?
}

/// One of the user's grants in `GET /user/oauth/grants`.
struct OAuthGrantResponse: Encodable, Sendable, Equatable {
    var client: OAuthClientSummary
    var scopes: [String]
    var granted_at: String
}

/// `POST /oauth/token`'s answer (RFC 6749 §5.1): no user and no `expires_at`, unlike `/token`;
/// `id_token` only when `openid` was granted and a code was redeemed.
struct OAuthTokenResponse: ResponseEncodable, Sendable {
    var access_token: String
    var token_type = "bearer"
    var expires_in: Int
    var refresh_token: String
    var id_token: String?
}
