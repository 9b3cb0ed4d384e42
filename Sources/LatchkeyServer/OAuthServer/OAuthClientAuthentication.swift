import Foundation
import LatchkeyWire

/// Who is calling `POST /oauth/token`: a client proving itself the way it registered
/// (`client_secret_basic`, `client_secret_post`, or `none` for a public client), as GoTrue's
/// `requireOAuthClientAuth`. Every failure is GoTrue's 400 `invalid_credentials`.
///
/// A secret is compared with the stored hash in constant time, and an unknown client costs the
/// same hash as a known one, so the answer's timing tells nothing about which part was wrong.
struct OAuthClientAuthentication: Sendable {
    let store: any AuthStore

    /// The credentials a request presents.
    struct Credentials: Sendable, Equatable {
        var clientID: String
        var secret: String?
        var method: OAuthClientRecord.AuthenticationMethod
    }

    /// The credentials of `Authorization: Basic …`, else of the body's `client_id` and
    /// `client_secret`.
    static func credentials(authorization: String?, fields: [String: String]) throws(AuthError) -> Credentials {
        if let authorization, authorization.count > 6, authorization.prefix(6).lowercased() == "basic " {
            let encoded = authorization.dropFirst(6).trimmingCharacters(in: .whitespaces)
            guard let data = Data(base64Encoded: encoded), let text = String(data: data, encoding: .utf8) else {
                throw .oauthClientCredentials("Invalid client credentials: invalid basic auth encoding")
            }
            guard let colon = text.firstIndex(of: ":") else {
                throw .oauthClientCredentials("Invalid client credentials: invalid basic auth format")
            }
            // RFC 6749 §2.3.1: both halves are form-encoded before they are joined.
            let (rawID, rawSecret) = (text[..<colon], text[text.index(after: colon)...])
            let id = FormEncoding.decode(rawID) ?? String(rawID)
            let secret = FormEncoding.decode(rawSecret) ?? String(rawSecret)
            return Credentials(clientID: id, secret: secret, method: .clientSecretBasic)
        }
        guard let id = fields["client_id"], !id.isEmpty else {
            throw .oauthClientCredentials("Invalid client credentials: client_id is required")
        }
        let secret = fields["client_secret"].flatMap { $0.isEmpty ? nil : $0 }
        return Credentials(clientID: id, secret: secret, method: secret == nil ? .none : .clientSecretPost)
    }

    /// The client the credentials prove, or 400 `invalid_credentials` saying what is wrong.
    func client(_ credentials: Credentials) async throws -> OAuthClientRecord {
        guard let id = UUID(uuidString: credentials.clientID) else { throw AuthError.oauthClientCredentials("Invalid client_id format") }
        guard let client = try await store.oauthClient(id: id) else {
            // The same work as a known client's check.
            _ = OAuthClientSecret.matches(credentials.secret ?? "", storedHash: Self.decoyHash)
            throw AuthError.oauthClientCredentials("Invalid client credentials")
        }
        guard credentials.method == client.authenticationMethod else {
            throw AuthError.oauthClientCredentials(
                "invalid authentication method: client is registered for '\(client.authenticationMethod.rawValue)' but '\(credentials.method.rawValue)' was used"
            )
        }
        switch client.clientType {
        case .public:
            guard credentials.secret == nil else { throw AuthError.oauthClientCredentials("public clients must not provide client_secret") }
        case .confidential:
            guard let secret = credentials.secret else {
                throw AuthError.oauthClientCredentials("confidential clients must provide client_secret")
            }
            guard let hash = client.secretHash, OAuthClientSecret.matches(secret, storedHash: hash) else {
                throw AuthError.oauthClientCredentials("invalid client credentials")
            }
        }
        return client
    }

    /// A hash no secret matches, checked when the client is unknown.
    private static let decoyHash = OAuthClientSecret.hash(OAuthClientSecret.generate())
}
