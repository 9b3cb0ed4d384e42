import Foundation
import JWTKit
import LatchkeyWire

/// The claims of a Latchkey access token: GoTrue's, so Supabase clients and PostgREST-style
/// consumers read them unchanged.
struct AccessTokenClaims: JWTPayload, Equatable {
    struct AuthenticationMethod: Codable, Equatable, Sendable {
        var method: String
        var timestamp: Int
    }

    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var email: String?
    var phone: String
    var role: String
    var aal: String?
    var amr: [AuthenticationMethod]?
    var sessionID: String?
    var isAnonymous: Bool?
    var appMetadata: [String: JSONValue]?
    var userMetadata: [String: JSONValue]?
    /// The OAuth client the session was granted to, for a session started through the OAuth
    /// server; absent otherwise.
    var clientID: String? = nil
    /// The scopes granted to that client, space-separated.
    var scope: String? = nil

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, email, phone, role, aal, amr, scope
        case clientID = "client_id"
        case sessionID = "session_id"
        case isAnonymous = "is_anonymous"
        case appMetadata = "app_metadata"
        case userMetadata = "user_metadata"
    }

    /// Signature checks only: expiry is checked by ``TokenSigner`` against the server's clock.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

extension AccessTokenClaims {
    /// The claims of `user`'s access token for `session`, issued by `issuer` at `issuedAt`
    /// (whole seconds, as clients decode them).
    init(user: UserRecord, session: SessionRecord, issuer: String, issuedAt: Date, expiresAt: Date) {
        self.init(
            iss: .init(value: issuer), sub: .init(value: user.id.lowercasedString), aud: .init(value: user.aud),
            exp: .init(value: expiresAt), iat: .init(value: issuedAt), email: user.email, phone: user.phone, role: user.role,
            aal: session.aal.rawValue,
            amr: session.authenticationMethods.map { .init(method: $0.method, timestamp: $0.timestamp) },
            sessionID: session.id.lowercasedString, isAnonymous: user.isAnonymous,
            appMetadata: user.appMetadata, userMetadata: user.userMetadata, clientID: session.oauthClientID?.lowercasedString,
            scope: session.scopes)
    }
}

/// The claims a bearer check needs, and nothing else: verifying a token decodes only these,
/// not the metadata the token also carries.
///
/// Only the signature makes a token valid: `sub`, `exp` and `session_id` are optional, as in
/// GoTrue, where an API key (`{"iss": "supabase", "role": "service_role", "iat": …}`) carries
/// none of them. What an endpoint needs of them is checked by ``BearerAuthentication``.
struct VerifiedClaims: Decodable, Equatable, Sendable {
    var sub: String?
    var exp: Date?
    var nbf: Date?
    var role: String
    var sessionID: String?

    enum CodingKeys: String, CodingKey {
        case sub, exp, nbf, role
        case sessionID = "session_id"
    }

    init(sub: String?, exp: Date?, nbf: Date? = nil, role: String, sessionID: String?) {
        self.sub = sub
        self.exp = exp
        self.nbf = nbf
        self.role = role
        self.sessionID = sessionID
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sub = try container.decodeIfPresent(String.self, forKey: .sub)
        exp = try container.decodeIfPresent(Double.self, forKey: .exp).map(Date.init(timeIntervalSince1970:))
        nbf = try container.decodeIfPresent(Double.self, forKey: .nbf).map(Date.init(timeIntervalSince1970:))
        role = try container.decodeIfPresent(String.self, forKey: .role) ?? ""
        sessionID = try container.decodeIfPresent(String.self, forKey: .sessionID)
    }

    /// The session the token claims to belong to: `nil` when it names none (an API key), as
    /// GoTrue reads an empty `session_id` or the nil UUID.
    var sessionClaim: String? {
        guard let sessionID, !sessionID.isEmpty, sessionID != "00000000-0000-0000-0000-000000000000" else { return nil }
        return sessionID
    }
}

/// The claims of an API key (`anon`, `service_role`), shaped as Supabase's own keys: a role and
/// times, no user and no session.
struct APIKeyClaims: JWTPayload {
    var iss: IssuerClaim
    var role: String
    var iat: IssuedAtClaim
    var exp: ExpirationClaim

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
