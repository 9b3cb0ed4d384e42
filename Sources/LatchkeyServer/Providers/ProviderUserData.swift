import Foundation
import LatchkeyWire

/// What a provider says about the person signing in, from a verified ID token (or user-info
/// answer): GoTrue's `UserProvidedData`.
struct ProviderUserData: Sendable, Equatable, Codable {
    /// The provider's identifier of the person (`sub`).
    var subject: String
    /// The address the provider gives, lowercased, if any.
    var email: String?
    /// Whether the provider says it verified ``email``.
    var emailVerified: Bool
    /// The identity's data as GoTrue stores it in `identity_data` (and merges into
    /// `user_metadata`): the standard claims, `email_verified`, `phone_verified`, and the
    /// provider's own in `custom_claims`.
    var identityData: [String: JSONValue]

    /// The claims of a generic OpenID Connect token that GoTrue's `Claims` keeps.
    static let standardClaims = [
        "iss", "sub", "aud", "iat", "exp", "name", "family_name", "given_name", "middle_name", "nickname", "preferred_username",
        "profile", "picture", "website", "gender", "birthdate", "zoneinfo", "locale", "updated_at", "email", "phone", "full_name",
        "avatar_url", "slug", "user_name",
    ]

    /// Data read from a provider's API rather than an ID token (GitHub).
    init(subject: String, email: String?, emailVerified: Bool, identityData: [String: JSONValue]) {
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.identityData = identityData
    }

    /// The data of verified `claims`, read the way `style` says.
    init(claims: [String: JSONValue], style: ProviderClaimsStyle) {
        subject = claims["sub"]?.stringValue ?? ""
        let email = claims["email"]?.stringValue.flatMap { $0.isEmpty ? nil : $0.lowercased() }
        self.email = email
        var data: [String: JSONValue] = [:]
        var custom: [String: JSONValue] = [:]
        switch style {
        case .apple:
            // Apple verifies every address it hands out, relay addresses included.
            emailVerified = email != nil
            for key in ["iss", "sub"] { data[key] = claims[key] }
            data["provider_id"] = claims["sub"]
            for key in ["is_private_email", "auth_time", "transfer_sub"] { custom[key] = claims[key] }
        case .google:
            emailVerified = Self.flag(claims["email_verified"])
            for key in ["iss", "sub", "name", "picture"] { data[key] = claims[key] }
            data["full_name"] = claims["name"]
            data["avatar_url"] = claims["picture"]
            data["provider_id"] = claims["sub"]
            custom["hd"] = claims["hd"]
        case .generic:
            emailVerified = Self.flag(claims["email_verified"])
            for key in Self.standardClaims { data[key] = claims[key] }
            data["phone_verified"] = .bool(Self.flag(claims["phone_verified"]))
        }
        if let email { data["email"] = .string(email) }
        data["email_verified"] = .bool(emailVerified)
        data["phone_verified"] = data["phone_verified"] ?? .bool(false)
        if !custom.isEmpty { data["custom_claims"] = .object(custom) }
        identityData = data
    }

    /// A claim that is `true` or the text `"true"` (some providers send strings).
    static func flag(_ value: JSONValue?) -> Bool {
        switch value {
        case .bool(let on)?: on
        case .string(let text)?: text.lowercased() == "true"
        default: false
        }
    }
}

extension ProviderUserData {
    /// Copies the claims `mapping` names into the identity data under its keys (a custom
    /// provider's `attribute_mapping`: identity key → claim); `email` and `sub` are not remapped.
    mutating func map(_ mapping: [String: String], from claims: [String: JSONValue]) {
        for (key, claim) in mapping where !["sub", "email", "email_verified", "iss"].contains(key) {
            if let value = claims[claim] { identityData[key] = value }
        }
    }
}
