import Foundation
import Hummingbird
import LatchkeyWire

/// `GET /oauth/userinfo` (OpenID Connect Core §5.3): what the scopes granted to the token's
/// session let its client know about the user, as GoTrue answers it. Always `sub`; `email`
/// adds the address, `phone` the number, `profile` the name, picture, username and metadata.
/// A session no client was granted (a first-party sign-in) gets `sub` alone.
struct OAuthUserInfo: ResponseEncodable, Sendable, Equatable {
    var sub: String
    var email: String?
    var email_verified: Bool?
    var phone: String?
    var phone_verified: Bool?
    var name: String?
    var picture: String?
    var preferred_username: String?
    var updated_at: Int?
    var user_metadata: [String: JSONValue]?

    init(user: UserRecord, session: SessionRecord) {
        let scopes = Set(OAuthScope.parse(session.scopes))
        sub = user.id.lowercasedString
        if scopes.contains("email") {
            if !user.email.isEmpty { email = user.email }
            if user.emailConfirmedAt != nil { email_verified = true }
        }
        if scopes.contains("phone") {
            if !user.phone.isEmpty { phone = user.phone }
            if user.phoneConfirmedAt != nil { phone_verified = true }
        }
        if scopes.contains("profile") {
            let profile = OAuthProfile(user)
            name = profile.name
            picture = profile.picture
            preferred_username = profile.preferredUsername
            updated_at = Int(user.updatedAt.timeIntervalSince1970)
            user_metadata = user.userMetadata
        }
    }
}
