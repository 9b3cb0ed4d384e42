import Foundation

/// The OAuth 2.1 authorization server's settings (GoTrue's `GOTRUE_OAUTH_SERVER_*`): other apps,
/// web sites and agents sign their users in with this server's accounts. Off by default, as in
/// GoTrue.
public struct OAuthServerSettings: Sendable, Hashable {
    /// Whether the OAuth server's routes answer (`GOTRUE_OAUTH_SERVER_ENABLED`); while off they
    /// answer 404 `feature_disabled`, as GoTrue's.
    public var enabled = false
    /// Whether clients may register themselves at `POST /oauth/clients/register` (RFC 7591;
    /// `GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION`).
    public var allowDynamicRegistration = false
    /// The path, on the site URL, of the app's consent page (`GOTRUE_OAUTH_SERVER_AUTHORIZATION_PATH`).
    /// Empty: the server's own consent page, `/welcome/consent` (``HostedConsent``), where GoTrue
    /// refuses the request.
    public var authorizationPath = ""
    /// Seconds an authorization (and its code) lives (`GOTRUE_OAUTH_SERVER_AUTHORIZATION_TTL`, 10 minutes).
    public var authorizationTTL: TimeInterval = 600
    /// The scope of an authorization request that names none (`GOTRUE_OAUTH_SERVER_DEFAULT_SCOPE`).
    public var defaultScope = "email"

    public init() {}
}

extension ServerSetting {
    static let oauthServerEnabled = ServerSetting(
        "oauth-server", \.oauthServer.enabled, .switch, variables: [Variable("GOTRUE_OAUTH_SERVER_ENABLED")],
        help: "Serve the OAuth 2.1 authorization server: other apps sign their users in with this server's accounts.")
    static let oauthServerDynamicRegistration = ServerSetting(
        "oauth-server-dynamic-registration", \.oauthServer.allowDynamicRegistration, .switch,
        variables: [Variable("GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION")],
        help: "Let OAuth clients register themselves at POST /oauth/clients/register (RFC 7591).")
    static let oauthServerAuthorizationPath = ServerSetting(
        "oauth-server-authorization-path", \.oauthServer.authorizationPath, .text,
        variables: [Variable("GOTRUE_OAUTH_SERVER_AUTHORIZATION_PATH")],
        help:
            "The path, on the site URL, of the app's consent page; /oauth/authorize sends the browser there (default: the server's own page, /welcome/consent)."
    )
    static let oauthServerAuthorizationTTL = ServerSetting(
        "oauth-server-authorization-ttl", \.oauthServer.authorizationTTL, .seconds,
        variables: [Variable("GOTRUE_OAUTH_SERVER_AUTHORIZATION_TTL", .duration)],
        help: "Seconds an OAuth authorization and its code live.")
    static let oauthServerDefaultScope = ServerSetting(
        "oauth-server-default-scope", \.oauthServer.defaultScope, .text,
        variables: [Variable("GOTRUE_OAUTH_SERVER_DEFAULT_SCOPE")],
        help: "The scope of an authorization request that names none.")
    static let rateLimitOAuthClientRegistration = ServerSetting(
        "rate-limit-oauth-client-register", \.rateLimits.oauthClientRegistrationsPerIP.count, .rateLimit,
        variables: [Variable("GOTRUE_RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER", .positiveInteger)],
        help: "OAuth clients registering themselves per IP per 5 minutes.")
    static let rateLimitOAuthAuthorization = ServerSetting(
        "rate-limit-oauth-authorize", \.rateLimits.oauthAuthorizationsPerIP.count, .rateLimit,
        help: "OAuth authorization requests (GET /oauth/authorize) per IP per 5 minutes (Latchkey's).")

    /// The OAuth server's settings, in the order `latchkey serve --help` lists them.
    static let oauthServer: [ServerSetting] = [
        oauthServerEnabled, oauthServerDynamicRegistration, oauthServerAuthorizationPath, oauthServerAuthorizationTTL,
        oauthServerDefaultScope, rateLimitOAuthClientRegistration, rateLimitOAuthAuthorization,
    ]
}
