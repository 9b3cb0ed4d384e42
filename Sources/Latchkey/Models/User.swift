import Foundation
// Public: the metadata fields are JSONValue (Exports.swift). No wire body is part of the API.
public import LatchkeyWire

/// An account as the auth server describes it (GoTrue's user object).
///
/// Decoding is tolerant: unknown fields are ignored, every field but `id` is optional, and a
/// malformed timestamp is read as absent rather than failing the whole session.
public struct User: Sendable, Hashable, Codable, Identifiable {
    /// The account's stable identifier (a UUID string on GoTrue).
    public var id: String
    public var aud: String?
    public var role: String?
    public var email: String?
    public var phone: String?
    public var emailConfirmedAt: Date?
    public var phoneConfirmedAt: Date?
    public var confirmedAt: Date?
    public var lastSignInAt: Date?
    public var createdAt: Date?
    public var updatedAt: Date?
    public var bannedUntil: Date?
    public var isAnonymous: Bool
    /// Server-controlled metadata (provider, roles…); users cannot change it.
    public var appMetadata: [String: JSONValue]
    /// User-editable metadata (display name, avatar…).
    public var userMetadata: [String: JSONValue]
    /// The account's second factors (authenticator apps), verified or not. As of the last time
    /// the user was fetched: ``AuthMFA/listFactors()`` asks the server.
    public var factors: [Factor]
    /// The ways to sign in to the account (its email and password, Apple, Google…), as of the
    /// last time the user was fetched: ``AuthIdentities/list()`` asks the server.
    public var identities: [Identity]

    /// Whether the account is protected by a verified second factor.
    public var hasVerifiedFactor: Bool { factors.contains { $0.status == .verified } }

    /// Whether the email address has been confirmed.
    public var isEmailConfirmed: Bool { emailConfirmedAt != nil || confirmedAt != nil }

    public init(
        id: String, email: String? = nil, phone: String? = nil, aud: String? = "authenticated",
        role: String? = "authenticated", emailConfirmedAt: Date? = nil, createdAt: Date? = nil,
        appMetadata: [String: JSONValue] = [:], userMetadata: [String: JSONValue] = [:], factors: [Factor] = [],
        identities: [Identity] = []
    ) {
        self.id = id
        self.aud = aud
        self.role = role
        self.email = email
        self.phone = phone
        self.emailConfirmedAt = emailConfirmedAt
        self.createdAt = createdAt
        self.isAnonymous = false
        self.appMetadata = appMetadata
        self.userMetadata = userMetadata
        self.factors = factors
        self.identities = identities
    }

    enum CodingKeys: String, CodingKey {
        case id, aud, role, email, phone
        case emailConfirmedAt = "email_confirmed_at"
        case phoneConfirmedAt = "phone_confirmed_at"
        case confirmedAt = "confirmed_at"
        case lastSignInAt = "last_sign_in_at"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case bannedUntil = "banned_until"
        case isAnonymous = "is_anonymous"
        case appMetadata = "app_metadata"
        case userMetadata = "user_metadata"
        case factors, identities
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let storedForm = decoder.readsStoredForm
        id = try container.decode(String.self, forKey: .id)
        aud = try? container.decodeIfPresent(String.self, forKey: .aud)
        role = try? container.decodeIfPresent(String.self, forKey: .role)
        email = container.nonEmptyString(forKey: .email)
        phone = container.nonEmptyString(forKey: .phone)
        emailConfirmedAt = container.modelDate(forKey: .emailConfirmedAt, storedForm: storedForm)
        phoneConfirmedAt = container.modelDate(forKey: .phoneConfirmedAt, storedForm: storedForm)
        confirmedAt = container.modelDate(forKey: .confirmedAt, storedForm: storedForm)
        lastSignInAt = container.modelDate(forKey: .lastSignInAt, storedForm: storedForm)
        createdAt = container.modelDate(forKey: .createdAt, storedForm: storedForm)
        updatedAt = container.modelDate(forKey: .updatedAt, storedForm: storedForm)
        bannedUntil = container.modelDate(forKey: .bannedUntil, storedForm: storedForm)
        isAnonymous = (try? container.decodeIfPresent(Bool.self, forKey: .isAnonymous)) ?? false
        appMetadata = (try? container.decodeIfPresent([String: JSONValue].self, forKey: .appMetadata)) ?? [:]
        userMetadata = (try? container.decodeIfPresent([String: JSONValue].self, forKey: .userMetadata)) ?? [:]
        factors = (try? container.decodeIfPresent([Factor].self, forKey: .factors)) ?? []
        identities = (try? container.decodeIfPresent([Identity].self, forKey: .identities)) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encodeIfPresent(aud, forKey: .aud)
        try container.encodeIfPresent(role, forKey: .role)
        try container.encodeIfPresent(email, forKey: .email)
        try container.encodeIfPresent(phone, forKey: .phone)
        try container.encodeModelDate(emailConfirmedAt, forKey: .emailConfirmedAt)
        try container.encodeModelDate(phoneConfirmedAt, forKey: .phoneConfirmedAt)
        try container.encodeModelDate(confirmedAt, forKey: .confirmedAt)
        try container.encodeModelDate(lastSignInAt, forKey: .lastSignInAt)
        try container.encodeModelDate(createdAt, forKey: .createdAt)
        try container.encodeModelDate(updatedAt, forKey: .updatedAt)
        try container.encodeModelDate(bannedUntil, forKey: .bannedUntil)
        try container.encode(isAnonymous, forKey: .isAnonymous)
        try container.encode(appMetadata, forKey: .appMetadata)
        try container.encode(userMetadata, forKey: .userMetadata)
        if !factors.isEmpty { try container.encode(factors, forKey: .factors) }
        if !identities.isEmpty { try container.encode(identities, forKey: .identities) }
    }
}
