import Foundation

/// One account of `firebase auth:export --format=json`: the fields the exporter writes
/// (`localId`, `email`, `emailVerified`, `passwordHash`, `salt`, `displayName`, `photoUrl`,
/// `lastSignedInAt`, `createdAt`, `phoneNumber`, `disabled`, `customAttributes`,
/// `providerUserInfo`). Times are milliseconds since 1970, as a string or a number.
package struct FirebaseExportUser: Decodable, Sendable, Equatable {
    package var localId: String
    package var email: String?
    package var emailVerified: Bool?
    package var passwordHash: String?
    package var salt: String?
    package var displayName: String?
    package var photoUrl: String?
    package var lastSignedInAt: Milliseconds?
    package var createdAt: Milliseconds?
    package var phoneNumber: String?
    package var disabled: Bool?
    /// The custom claims, as a JSON object in a string.
    package var customAttributes: String?
    package var providerUserInfo: [ProviderUserInfo]?

    /// A linked sign-in method: `google.com`, `facebook.com`, `twitter.com`, `github.com`, …
    package struct ProviderUserInfo: Decodable, Sendable, Equatable {
        package var providerId: String
        package var rawId: String?
        package var email: String?
        package var displayName: String?
        package var photoUrl: String?

        package init(providerId: String, rawId: String?, email: String? = nil, displayName: String? = nil, photoUrl: String? = nil) {
            self.providerId = providerId
            self.rawId = rawId
            self.email = email
            self.displayName = displayName
            self.photoUrl = photoUrl
        }
    }

    /// A time in milliseconds since 1970, written by Firebase as a string or a number.
    package struct Milliseconds: Decodable, Sendable, Equatable {
        package var value: Int64

        package init(_ value: Int64) { self.value = value }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int64.self) {
                value = number
            } else if let number = Int64(try container.decode(String.self)) {
                value = number
            } else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not milliseconds since 1970")
            }
        }

        package var date: Date { Date(timeIntervalSince1970: TimeInterval(value) / 1000) }
    }

    package init(
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
