import Foundation
import JWTKit

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

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, email, phone, role, aal, amr
        case sessionID = "session_id"
        case isAnonymous = "is_anonymous"
        case appMetadata = "app_metadata"
        case userMetadata = "user_metadata"
    }

    /// Signature checks only: expiry is checked by ``TokenSigner`` against the server's clock.
    func verify(using algorithm: some JWTAlgorithm) async throws {}

    /// Whether the token was issued to the server's administrator key.
    var isServiceRole: Bool { role == "service_role" }
}

extension AccessTokenClaims {
    /// The claims of `user`'s access token for `session`, issued by `issuer` at `issuedAt`
    /// (whole seconds, as clients decode them).
    init(user: UserRecord, session: SessionRecord, issuer: String, issuedAt: Date, expiresAt: Date) {
        self.init(
            iss: .init(value: issuer), sub: .init(value: user.id.uuidString.lowercased()), aud: .init(value: user.aud),
            exp: .init(value: expiresAt), iat: .init(value: issuedAt), email: user.email, phone: "", role: user.role, aal: "aal1",
            amr: [.init(method: session.authMethod, timestamp: Int(session.createdAt.timeIntervalSince1970))],
            sessionID: session.id.uuidString.lowercased(), isAnonymous: user.isAnonymous,
            appMetadata: user.appMetadata, userMetadata: user.userMetadata)
    }
}

/// The claims a bearer check needs, and nothing else: verifying a token decodes only these,
/// not the metadata the token also carries.
struct VerifiedClaims: JWTPayload, Equatable {
    var sub: SubjectClaim
    var exp: ExpirationClaim
    var role: String
    var sessionID: String?

    enum CodingKeys: String, CodingKey {
        case sub, exp, role
        case sessionID = "session_id"
    }

    /// Signature checks only: expiry is checked by ``TokenSigner`` against the server's clock.
    func verify(using algorithm: some JWTAlgorithm) async throws {}

    /// Whether the token was issued to the server's administrator key.
    var isServiceRole: Bool { role == "service_role" }

    /// The user the token was issued to, when `sub` is a user id.
    var userID: UUID? { UUID(uuidString: sub.value) }

    /// The session the token belongs to; `nil` for API keys.
    var sessionUUID: UUID? { sessionID.flatMap(UUID.init(uuidString:)) }
}
