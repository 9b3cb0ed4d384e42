import Foundation

/// One account of `firebase auth:export --format=json`: the fields the exporter writes
/// (`localId`, `email`, `emailVerified`, `passwordHash`, `salt`, `displayName`, `photoUrl`,
/// `lastSignedInAt`, `createdAt`, `phoneNumber`, `disabled`, `customAttributes`,
/// `providerUserInfo`). Times are milliseconds since 1970, as a string or a number.
package struct FirebaseExportUser: Decodable, Sendable, Equatable {
    var localId: String
    var email: String?
    var emailVerified: Bool?
    var passwordHash: String?
    var salt: String?
    var displayName: String?
    var photoUrl: String?
    var lastSignedInAt: Milliseconds?
    var createdAt: Milliseconds?
    var phoneNumber: String?
    var disabled: Bool?
    /// The custom claims, as a JSON object in a string.
    var customAttributes: String?
    var providerUserInfo: [ProviderUserInfo]?

    /// A linked sign-in method: `google.com`, `facebook.com`, `twitter.com`, `github.com`, …
    struct ProviderUserInfo: Decodable, Sendable, Equatable {
        var providerId: String
        var rawId: String?
        var email: String?
        var displayName: String?
        var photoUrl: String?

        init(providerId: String, rawId: String?, email: String? = nil, displayName: String? = nil, photoUrl: String? = nil) {
            self.providerId = providerId
            self.rawId = rawId
            self.email = email
            self.displayName = displayName
            self.photoUrl = photoUrl
        }
    }

    /// A time in milliseconds since 1970, written by Firebase as a string or a number.
    struct Milliseconds: Decodable, Sendable, Equatable {
        var value: Int64

        init(_ value: Int64) { self.value = value }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int64.self) {
                value = number
            } else if let number = Int64(try container.decode(String.self)) {
                value = number
            } else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not milliseconds since 1970")
            }
        }

        var date: Date { Date(timeIntervalSince1970: TimeInterval(value) / 1000) }
    }

    init(
        localId: String, email: String? = nil, emailVerified: Bool? = nil, passwordHash: String? = nil, salt: String? = nil,
        displayName: String? = nil, photoUrl: String? = nil, lastSignedInAt: Milliseconds? = nil, createdAt: Milliseconds? = nil,
        phoneNumber: String? = nil, disabled: Bool? = nil, customAttributes: String? = nil, providerUserInfo: [ProviderUserInfo]? = nil
    ) {
        self.localId = localId
        self.email = email
        self.emailVerified = emailVerified
        self.passwordHash = passwordHash
        self.salt = salt
        self.displayName = displayName
        self.photoUrl = photoUrl
        self.lastSignedInAt = lastSignedInAt
        self.createdAt = createdAt
        self.phoneNumber = phoneNumber
        self.disabled = disabled
        self.customAttributes = customAttributes
        self.providerUserInfo = providerUserInfo
    }
}
