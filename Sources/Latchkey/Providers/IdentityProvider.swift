import Foundation

/// A sign-in provider, by the name the auth server knows it as (`apple`, `google`,
/// `keycloak`…). Any name the server accepts works: `IdentityProvider("gitlab")` or the string
/// literal `"gitlab"`.
public struct IdentityProvider: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The server's name for the provider, as in `/settings`' `external`.
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(_ name: String) {
        self.init(rawValue: name)
    }

    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    public var description: String { rawValue }

    /// Sign in with Apple.
    public static let apple = IdentityProvider("apple")
    /// Google (Google Sign-In, or Google's OAuth in the browser).
    public static let google = IdentityProvider("google")
    /// A Keycloak realm the server is configured with.
    public static let keycloak = IdentityProvider("keycloak")
    /// GitHub (browser sign-in only: GitHub issues no ID tokens).
    public static let github = IdentityProvider("github")
    /// Firebase Authentication: a Firebase ID token traded for a session by a server that
    /// accepts its project's tokens (``AuthAccount/migrateFromFirebase(idToken:)``).
    public static let firebase = IdentityProvider("firebase")
    /// Microsoft Entra ID (Azure).
    public static let azure = IdentityProvider("azure")
    /// The email address and password of the account itself: an identity every account made
    /// with a password has.
    public static let email = IdentityProvider("email")
}
