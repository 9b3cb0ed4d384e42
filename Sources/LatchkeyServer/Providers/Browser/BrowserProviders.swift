import Foundation
import HTTPTypes

/// The providers people can sign in with in a browser, made from the configuration: Apple,
/// Google, Keycloak (any OpenID issuer at a configured URL) and GitHub. Errors are GoTrue's 400
/// `validation_failed` "Unsupported provider: …".
struct BrowserProviders: Sendable {
    let settings: ExternalProviderSettings
    let directory: OIDCProviderDirectory
    let verifier: IDTokenVerifier
    let http: any ProviderHTTP
    let clock: any ServerClock
    let custom: CustomProviders
    /// The server's own URL: its callback is `<external URL>/callback` unless a provider
    /// names its own.
    let origin: ServerOrigin

    /// The provider `name`, enabled and configured for the browser.
    func provider(named name: String) async throws -> any BrowserProvider {
        func refuse(_ reason: String) -> AuthError { AuthError.validation("Unsupported provider: \(reason)") }
        if name.hasPrefix(CustomProviders.prefix) {
            let (resolved, record, secret) = try await custom.signInProvider(name)
            if record.isOAuth2 { return OAuth2BrowserProvider(record: record, clientSecret: secret, http: http) }
            return OIDCBrowserProvider(
                provider: resolved, clientID: record.clientID, clientSecret: { secret },
                ownScopes: ["openid"] + (record.scopes.isEmpty ? ["email", "profile"] : record.scopes), fixedParameters: [],
                usesPKCE: record.pkceEnabled, credentials: .discovered, attributeMapping: record.attributeMapping, directory: directory,
                verifier: verifier, http: http)
        }
        guard ["apple", "google", "keycloak", "github"].contains(name) else {
            throw refuse("provider \(name.prefix(80)) could not be found")
        }
        guard let configured = settings[name], configured.enabled else { throw refuse("Provider \(name) is not enabled") }
        guard let clientID = configured.clientIDs.first, !clientID.isEmpty else { throw refuse("missing OAuth client ID for \(name)") }
        if name == "github" {
            guard let secret = configured.secret, !secret.isEmpty else { throw refuse("missing OAuth secret for \(name)") }
            return GitHubBrowserProvider(settings: configured, baseURL: configured.url, http: http)
        }
        let secret: @Sendable () throws -> String
        if name == "apple", let maker = try? settings.appleClientSecret() {
            let clock = clock
            secret = { try maker.make(clientID: clientID, now: clock.now()) }
        } else {
            guard let configuredSecret = configured.secret, !configuredSecret.isEmpty else { throw refuse("missing OAuth secret for \(name)") }
            secret = { configuredSecret }
        }
        // As GoTrue: Keycloak without its URL starts, and fails here.
        if name == "keycloak", configured.url?.isEmpty ?? true { throw refuse("unable to find URL for the Keycloak provider") }
        let resolved = try ResolvedProvider.resolve(provider: name, issuer: nil, clientID: nil, tokenIssuer: nil, in: settings)
        let isApple = name == "apple"
        return OIDCBrowserProvider(
            provider: resolved, clientID: clientID, clientSecret: secret,
            ownScopes: isApple ? ["name", "email"] : ["openid", "email", "profile"],
            // Apple posts the code (and, once, the name) back: it sends nothing else when name or
            // email are asked for.
            fixedParameters: isApple ? [("response_mode", "form_post")] : [], usesPKCE: !isApple, credentials: isApple ? .form : .discovered,
            attributeMapping: [:], directory: directory, verifier: verifier, http: http)
    }

    /// Where `provider` sends the browser back to.
    func redirectURI(for provider: String) -> String {
        guard let configured = settings[provider]?.redirectURI, !configured.isEmpty else { return origin.url + "/callback" }
        return configured
    }
}
