import Foundation

/// The settings of one external identity provider, with GoTrue's names
/// (`GOTRUE_EXTERNAL_<PROVIDER>_ENABLED`, `_CLIENT_ID`, `_SECRET`, `_REDIRECT_URI`, `_URL`,
/// `_SKIP_NONCE_CHECK`, `_EMAIL_OPTIONAL`).
public struct ProviderSettings: Sendable, Equatable, CustomStringConvertible {
    /// Whether the provider may be used.
    public var enabled: Bool
    /// The OAuth client IDs a token's audience may name (for Apple: the bundle IDs and
    /// services IDs); the first is the client the browser flow uses.
    public var clientIDs: [String]
    /// The OAuth client secret (for Apple: the ES256 client-secret JWT made from the `.p8` key).
    public var secret: String?
    /// The callback URL registered with the provider (default: `<external URL>/callback`).
    public var redirectURI: String?
    /// The issuer URL, for providers without a fixed one (Keycloak).
    public var url: String?
    /// Accept ID tokens without a nonce check (for clients whose SDK cannot pass one).
    public var skipNonceCheck: Bool
    /// Sign users in even when the provider gives no email address.
    public var emailOptional: Bool

    public init(
        enabled: Bool = false, clientIDs: [String] = [], secret: String? = nil, redirectURI: String? = nil, url: String? = nil,
        skipNonceCheck: Bool = false, emailOptional: Bool = false
    ) {
        self.enabled = enabled
        self.clientIDs = clientIDs
        self.secret = secret
        self.redirectURI = redirectURI
        self.url = url
        self.skipNonceCheck = skipNonceCheck
        self.emailOptional = emailOptional
    }

    /// The settings without the secret, for logs.
    public var description: String {
        guard enabled else { return "off" }
        var parts = ["client IDs: \(clientIDs.joined(separator: ", "))", "secret: \(secret == nil ? "<unset>" : "<redacted>")"]
        if let url { parts.append("url: \(url)") }
        if let redirectURI { parts.append("redirect URI: \(redirectURI)") }
        if skipNonceCheck { parts.append("nonce check skipped") }
        if emailOptional { parts.append("email optional") }
        return parts.joined(separator: "; ")
    }
}

/// Sign-in with external identity providers: Apple, Google, Keycloak (any OpenID Connect
/// issuer at a configured URL) and GitHub, ID tokens from issuers on an allow list, linking.
public struct ExternalProviderSettings: Sendable, Equatable, CustomStringConvertible {
    public var apple = ProviderSettings()
    public var google = ProviderSettings()
    public var keycloak = ProviderSettings()
    public var github = ProviderSettings()
    /// An iOS app's bundle ID, accepted as the audience of Apple ID tokens
    /// (`GOTRUE_EXTERNAL_IOS_BUNDLE_ID`).
    public var iosBundleID: String?
    /// Issuers whose ID tokens `POST /token?grant_type=id_token` accepts with a request's
    /// `issuer` and `client_id` (`GOTRUE_EXTERNAL_ALLOWED_ID_TOKEN_ISSUERS`).
    public var allowedIDTokenIssuers: [String] = []
    /// Sign in with Apple's key, from which the server makes the client secret of each code
    /// exchange (``AppleClientSecret``): the team ID (`LATCHKEY_EXTERNAL_APPLE_TEAM_ID`), the
    /// key ID (`LATCHKEY_EXTERNAL_APPLE_KEY_ID`) and the `.p8` file
    /// (`LATCHKEY_EXTERNAL_APPLE_PRIVATE_KEY_FILE`). Without them, `GOTRUE_EXTERNAL_APPLE_SECRET`
    /// must hold a client-secret JWT made beforehand, as with GoTrue.
    public var appleTeamID: String?
    public var appleKeyID: String?
    public var applePrivateKeyFile: String?
    /// Where Sign in with Apple's REST API is (`LATCHKEY_EXTERNAL_APPLE_API_URL`): the server
    /// trades a native app's authorization code at `<URL>/auth/token` and revokes a deleted
    /// account's Apple refresh tokens at `<URL>/auth/revoke`. A local stand-in for tests and
    /// demos (`http://127.0.0.1:…` with ``allowLoopbackProviders``).
    public var appleAPIURL = ExternalProviderSettings.appleAPIDefault
    /// Apple's own: `https://appleid.apple.com`.
    public static let appleAPIDefault = "https://appleid.apple.com"
    /// The Firebase project whose users' ID tokens `POST /token?grant_type=id_token` accepts
    /// with provider `firebase` (`--firebase-project-id`): the issuer
    /// `https://securetoken.google.com/<project>`, the project as the audience, Google's published
    /// keys. An app moving from Firebase trades the ID token it still has for a session, so its
    /// users stay signed in; the person is found by the `firebase` identity
    /// `latchkey import firebase` gives every imported user.
    public var firebaseProjectID: String?
    /// Whether providers added through `/admin/custom-providers` may be used
    /// (`GOTRUE_CUSTOM_OAUTH_ENABLED`).
    public var customProvidersEnabled = false
    /// Whether a signed-in user may link further identities (`GOTRUE_SECURITY_MANUAL_LINKING_ENABLED`).
    public var manualLinkingEnabled = false
    /// Development only: providers on 127.0.0.1 or ::1 may be used, over `http` too
    /// (`--allow-loopback-providers`). Off by default, and logged as a warning when on.
    public var allowLoopbackProviders = false
    /// How long a request to a provider (token exchange, user info, keys, captcha, SMS and
    /// leaked-password checks) may take: 10 seconds. Not a `serve` setting; the test server
    /// raises it, so that a loaded machine's slow stand-in is not taken for a provider that hung.
    public var requestTimeout: TimeInterval = 10
    /// Local stand-ins for providers with a fixed issuer (`apple`, `google`), by provider name;
    /// used only with ``allowLoopbackProviders``, for tests and demos.
    package var issuerOverrides: [String: String] = [:]

    public init() {}

    /// The providers that may be used, by name, as `/settings` reports them.
    public var enabledProviders: [String: Bool] {
        ["apple": apple.enabled, "google": google.enabled, "keycloak": keycloak.enabled, "github": github.enabled]
    }

    public var description: String {
        var on = enabledProviders.filter(\.value).keys.sorted().map { name in "\(name) (\(self[name]?.description ?? ""))" }
        if let firebaseProjectID { on.append("firebase ID tokens (project \(firebaseProjectID))") }
        return on.isEmpty ? "none" : on.joined(separator: ", ")
    }

    /// The settings of the provider called `name`, if it is one of the four.
    public subscript(_ name: String) -> ProviderSettings? {
        switch name {
        case "apple": apple
        case "google": google
        case "keycloak": keycloak
        case "github": github
        default: nil
        }
    }
}
