import Foundation
// Public: the identity data is JSONValue (Exports.swift). No wire body is part of the API.
public import LatchkeyWire

/// A way to sign in to an account: its email address and password (`email`), or an account at
/// a provider such as Apple or Google. GoTrue's identity object, listed in ``User/identities``.
public struct Identity: Sendable, Hashable, Codable, Identifiable {
    /// The identity's own identifier: what ``AuthIdentities/unlink(_:)`` removes.
    public var identityID: String
    /// The person's identifier at the provider (the ID token's `sub`; the user id for `email`).
    public var providerUserID: String
    /// The account the identity belongs to.
    public var userID: String?
    /// `email`, `apple`, `google`, `keycloak`…
    public var provider: String
    /// The address the provider gave, when it gave one.
    public var email: String?
    /// What the provider said about the person (name, picture, `email_verified`…).
    public var identityData: [String: JSONValue]
    public var createdAt: Date?
    public var lastSignInAt: Date?
    public var updatedAt: Date?

    /// ``identityID``.
    public var id: String { identityID }

    public init(
        identityID: String, providerUserID: String, userID: String? = nil, provider: String, email: String? = nil,
        identityData: [String: JSONValue] = [:], createdAt: Date? = nil, lastSignInAt: Date? = nil, updatedAt: Date? = nil
    ) {
        self.identityID = identityID
        self.providerUserID = providerUserID
        self.userID = userID
        self.provider = provider
        self.email = email
        self.identityData = identityData
        self.createdAt = createdAt
        self.lastSignInAt = lastSignInAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case identityID = "identity_id"
        case providerUserID = "id"
        case userID = "user_id"
        case provider, email
        case identityData = "identity_data"
        case createdAt = "created_at"
        case lastSignInAt = "last_sign_in_at"
        case updatedAt = "updated_at"
    }

    /// Reads the stored form (timestamps in seconds since 1970) and GoTrue's (RFC 3339 strings).
    /// Servers older than `identity_id` identify an identity by `id` alone.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let storedForm = decoder.readsStoredForm
        providerUserID = try container.decode(String.self, forKey: .providerUserID)
        identityID = (try? container.decodeIfPresent(String.self, forKey: .identityID)) ?? providerUserID
        userID = try? container.decodeIfPresent(String.self, forKey: .userID)
        provider = (try? container.decodeIfPresent(String.self, forKey: .provider)) ?? ""
        email = container.nonEmptyString(forKey: .email)
        identityData = (try? container.decodeIfPresent([String: JSONValue].self, forKey: .identityData)) ?? [:]
        createdAt = container.modelDate(forKey: .createdAt, storedForm: storedForm)
        lastSignInAt = container.modelDate(forKey: .lastSignInAt, storedForm: storedForm)
        updatedAt = container.modelDate(forKey: .updatedAt, storedForm: storedForm)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(identityID, forKey: .identityID)
        try container.encode(providerUserID, forKey: .providerUserID)
        try container.encodeIfPresent(userID, forKey: .userID)
        try container.encode(provider, forKey: .provider)
        try container.encodeIfPresent(email, forKey: .email)
        try container.encode(identityData, forKey: .identityData)
        try container.encodeModelDate(createdAt, forKey: .createdAt)
        try container.encodeModelDate(lastSignInAt, forKey: .lastSignInAt)
        try container.encodeModelDate(updatedAt, forKey: .updatedAt)
    }
}
