import Foundation
import JWTKit
import LatchkeyWire

/// An OpenID Connect ID token (OpenID Connect Core §2), issued with a code's tokens when
/// `openid` was granted: who signed in, for which client, with what the other granted scopes
/// allow it to know. Signed with the server's asymmetric key, so the client verifies it against
/// `/.well-known/jwks.json`. Lives one hour, as GoTrue's.
struct OAuthIDTokenClaims: JWTPayload, Equatable {
    var iss: IssuerClaim
    var sub: SubjectClaim
    /// The client, alone.
    var aud: String
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var authTime: Int?
    var clientID: String
    var nonce: String?
    var email: String?
    var emailVerified: Bool
    var phoneNumber: String?
    var phoneNumberVerified: Bool
    var name: String?
    var picture: String?
    var preferredUsername: String?
    var updatedAt: Int?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, email, name, picture
        case authTime = "auth_time"
        case clientID = "client_id"
        case emailVerified = "email_verified"
        case phoneNumber = "phone_number"
        case phoneNumberVerified = "phone_number_verified"
        case preferredUsername = "preferred_username"
        case updatedAt = "updated_at"
    }

    /// How long an ID token is valid.
    static let lifetime: TimeInterval = 3600

    func verify(using algorithm: some JWTAlgorithm) async throws {}

    /// The ID token of `user` for `authorization`'s client and scopes, issued at `now`.
    init(user: UserRecord, authorization: OAuthAuthorizationRecord, issuer: String, now: Date) {
        let scopes = Set(OAuthScope.parse(authorization.scope))
        let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        iss = IssuerClaim(value: issuer)
        sub = SubjectClaim(value: user.id.lowercasedString)
        aud = authorization.clientID.lowercasedString
        exp = ExpirationClaim(value: issuedAt.addingTimeInterval(Self.lifetime))
        iat = IssuedAtClaim(value: issuedAt)
        authTime = (user.lastSignInAt ?? issuedAt).timeIntervalSince1970.rounded(.down).asInt
        clientID = aud
        nonce = authorization.nonce
        emailVerified = scopes.contains("email") && user.emailConfirmedAt != nil
        phoneNumberVerified = scopes.contains("phone") && user.phoneConfirmedAt != nil
        if scopes.contains("email"), !user.email.isEmpty { email = user.email }
        if scopes.contains("phone"), !user.phone.isEmpty { phoneNumber = user.phone }
        if scopes.contains("profile") {
            let profile = OAuthProfile(user)
            name = profile.name
            picture = profile.picture
            preferredUsername = profile.preferredUsername
            updatedAt = user.updatedAt.timeIntervalSince1970.rounded(.down).asInt
        }
    }
}

/// What the `profile` scope tells about a user, from the user's metadata as GoTrue reads it.
struct OAuthProfile: Sendable {
    var name: String?
    var picture: String?
    var preferredUsername: String?

    init(_ user: UserRecord) {
        func text(_ key: String) -> String? {
            guard case .string(let value)? = user.userMetadata[key], !value.isEmpty else { return nil }
            return value
        }
        name = text("name") ?? (user.email.isEmpty ? nil : user.email)
        picture = text("picture") ?? text("avatar_url")
        preferredUsername = text("preferred_username") ?? text("username")
    }
}

extension Double {
    fileprivate var asInt: Int { Int(self) }
}
