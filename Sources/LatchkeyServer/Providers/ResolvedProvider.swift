import Foundation
import HTTPTypes

/// The provider an ID token or a browser sign-in is for, with what its tokens must say: found
/// from a request's `provider` (or `issuer`) and the configuration, as GoTrue's
/// `IdTokenGrantParams.getProvider` does.
struct ResolvedProvider: Sendable, Equatable {
    /// The provider's name, as identities store it: `apple`, `google`, `keycloak`, `github`,
    /// `firebase`, `custom:<name>`, or an allowed issuer's URL.
    var name: String
    /// The issuer whose discovery document and keys are fetched.
    var discoveryIssuer: String
    /// The `iss` values its tokens may carry.
    var issuers: Set<String>
    /// The audiences one of which a token must name.
    var clientIDs: [String]
    var skipNonceCheck: Bool
    var emailOptional: Bool
    /// How the token's claims become a user's data.
    var claims: ProviderClaimsStyle

    /// Apple's issuers: tokens carry either.
    static let appleIssuers: Set<String> = ["https://appleid.apple.com", "https://account.apple.com"]
    static let appleIssuer = "https://appleid.apple.com"
    static let googleIssuer = "https://accounts.google.com"
    /// Firebase's issuer, followed by the project ID.
    static let firebaseIssuerPrefix = "https://securetoken.google.com/"

    /// The provider for a request naming `provider` and/or `issuer` (and `clientID` for an
    /// allowed issuer). Errors are GoTrue's: 400 `validation_failed` for a provider that is
    /// not configured, 400 `provider_disabled` for one that is off.
    static func resolve(
        provider: String?, issuer: String?, clientID: String?, tokenIssuer: @autoclosure () -> String?, in settings: ExternalProviderSettings
    ) throws(AuthError) -> ResolvedProvider {
        let provider = provider ?? ""
        let issuer = issuer ?? ""
        func fixed(
            _ name: String, _ configured: ProviderSettings, issuer: String, issuers: Set<String>, style: ProviderClaimsStyle, extra: [String] = []
        )
            throws(AuthError) -> ResolvedProvider
        {
            guard configured.enabled else { throw AuthError(.badRequest, "provider_disabled", "Provider (issuer \"\(issuer)\") is not enabled") }
            var discovery = issuer
            var accepted = issuers
            if settings.allowLoopbackProviders, let override = settings.issuerOverrides[name] {
                discovery = override
                accepted = [override]
            }
            return ResolvedProvider(
                name: name, discoveryIssuer: discovery, issuers: accepted, clientIDs: configured.clientIDs + extra,
                skipNonceCheck: configured.skipNonceCheck, emailOptional: configured.emailOptional, claims: style)
        }
        if provider == "apple" || appleIssuers.contains(issuer) {
            // As GoTrue: the token's own issuer must be one of Apple's, and match a given one.
            if let detected = tokenIssuer(), !(settings.allowLoopbackProviders && settings.issuerOverrides["apple"] == detected) {
                guard appleIssuers.contains(detected) else {
                    throw AuthError.validation("Detected ID token issuer is not an Apple ID token issuer")
                }
                if !issuer.isEmpty, issuer != detected {
                    throw AuthError.validation("Provided issuer does not match ID token issuer")
                }
            }
            return try fixed(
                "apple", settings.apple, issuer: appleIssuer, issuers: appleIssuers, style: .apple, extra: settings.iosBundleID.map { [$0] } ?? [])
        }
        if provider == "google" || issuer == googleIssuer {
            return try fixed("google", settings.google, issuer: googleIssuer, issuers: [googleIssuer], style: .google)
        }
        let keycloakURL = settings.keycloak.url ?? ""
        if provider == "keycloak" || (settings.keycloak.enabled && !keycloakURL.isEmpty && issuer == keycloakURL) {
            let resolved = try fixed("keycloak", settings.keycloak, issuer: keycloakURL, issuers: [keycloakURL], style: .generic)
            // As GoTrue: enabled without a URL, it starts, and its issuer cannot be discovered.
            guard !keycloakURL.isEmpty else { throw AuthError.unexpected }
            return resolved
        }
        if provider == "firebase" || issuer.hasPrefix(firebaseIssuerPrefix) {
            guard let project = settings.firebaseProjectID, !project.isEmpty else {
                throw AuthError(.badRequest, "provider_disabled", "Firebase ID tokens are not accepted (no Firebase project is set)")
            }
            // Firebase ID tokens: no nonce (the Firebase SDKs send none), the UID as the subject,
            // an address only for accounts that have one.
            let firebase = ProviderSettings(enabled: true, clientIDs: [project], skipNonceCheck: true, emailOptional: true)
            let issuer = firebaseIssuerPrefix + project
            return try fixed("firebase", firebase, issuer: issuer, issuers: [issuer], style: .generic)
        }
        if provider.hasPrefix("custom:") {
            throw AuthError.customProvidersDisabled
        }
        guard !issuer.isEmpty, settings.allowedIDTokenIssuers.contains(issuer), let clientID, !clientID.isEmpty else {
            throw AuthError.validation("Custom OIDC provider \"\(provider.prefix(80))\" not allowed")
        }
        return ResolvedProvider(
            name: issuer, discoveryIssuer: issuer, issuers: [issuer], clientIDs: [clientID], skipNonceCheck: false, emailOptional: false,
            claims: .generic)
    }
}

/// How a provider's claims are read (GoTrue's `parseAppleIDToken`, `parseGoogleIDToken`,
/// `parseGenericIDToken`).
enum ProviderClaimsStyle: Sendable, Equatable {
    /// Apple's email is always verified; `is_private_email`, `auth_time` and `transfer_sub` are
    /// kept as custom claims.
    case apple
    /// `email_verified`, name, picture; the hosted domain `hd` as a custom claim.
    case google
    /// The standard claims as they are.
    case generic
}
