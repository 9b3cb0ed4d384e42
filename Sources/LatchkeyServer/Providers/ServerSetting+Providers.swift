import Foundation

/// The external providers' settings: environment variables only, with GoTrue's names, as
/// GoTrue is configured; `--allow-loopback-providers` is also a flag.
extension ServerSetting {
    /// The settings of each provider: `GOTRUE_EXTERNAL_<NAME>_ENABLED`, `_CLIENT_ID` (several,
    /// comma-separated), `_SECRET`, `_REDIRECT_URI`, `_URL`, `_SKIP_NONCE_CHECK`, `_EMAIL_OPTIONAL`.
    static func provider(_ name: String, _ keyPath: WritableKeyPath<ExternalProviderSettings, ProviderSettings>, title: String) -> [ServerSetting] {
        let settings: WritableKeyPath<ServerConfiguration, ProviderSettings> =
            (\ServerConfiguration.external as WritableKeyPath<ServerConfiguration, ExternalProviderSettings>).appending(path: keyPath)
        func at<T>(_ member: WritableKeyPath<ProviderSettings, T>) -> WritableKeyPath<ServerConfiguration, T> { settings.appending(path: member) }
        let prefix = "GOTRUE_EXTERNAL_\(name.uppercased())"
        return [
            ServerSetting(environment: "\(prefix)_ENABLED", at(\.enabled), .boolean, help: "Allow sign-in with \(title)."),
            ServerSetting(
                environment: "\(prefix)_CLIENT_ID", at(\.clientIDs), .commaList,
                help: "\(title)'s OAuth client IDs, comma-separated; an ID token's audience must name one."),
            ServerSetting(
                environment: "\(prefix)_SECRET", at(\.secret), .optionalText, help: "\(title)'s OAuth client secret.",
                isSecret: true),
            ServerSetting(
                environment: "\(prefix)_REDIRECT_URI", at(\.redirectURI), .optionalText,
                help: "The callback URL registered with \(title) (default: <external URL>/callback)."),
            ServerSetting(
                environment: "\(prefix)_URL", at(\.url), .optionalText,
                help: "\(title)'s issuer URL, where it has no fixed one."),
            ServerSetting(
                environment: "\(prefix)_SKIP_NONCE_CHECK", at(\.skipNonceCheck), .boolean,
                help: "Accept \(title) ID tokens without checking a nonce."),
            ServerSetting(
                environment: "\(prefix)_EMAIL_OPTIONAL", at(\.emailOptional), .boolean,
                help: "Sign users in with \(title) even when it gives no email address."),
        ]
    }

    package static let allowLoopbackProviders = ServerSetting(
        "allow-loopback-providers", \.external.allowLoopbackProviders, .switch,
        help: "Development only: let identity providers on 127.0.0.1 or ::1 be used, over http too (logged as a warning).")

    package static let firebaseProjectID = ServerSetting(
        "firebase-project-id", \.external.firebaseProjectID, .optionalText,
        help: "Accept Firebase ID tokens of this project (provider firebase), so users moved from Firebase stay signed in.")

    /// Every external-provider setting.
    package static let externalProviders: [ServerSetting] =
        provider("apple", \.apple, title: "Sign in with Apple") + provider("google", \.google, title: "Google")
        + provider("keycloak", \.keycloak, title: "Keycloak (any OpenID Connect issuer)") + provider("github", \.github, title: "GitHub") + [
            ServerSetting(
                environment: "GOTRUE_EXTERNAL_IOS_BUNDLE_ID", \.external.iosBundleID, .optionalText,
                help: "An iOS app's bundle ID, accepted as the audience of Apple ID tokens."),
            ServerSetting(
                environment: "GOTRUE_EXTERNAL_ALLOWED_ID_TOKEN_ISSUERS", \.external.allowedIDTokenIssuers, .commaList,
                help: "Further issuers whose ID tokens are accepted with the request's issuer and client_id, comma-separated."),
            ServerSetting(
                environment: "LATCHKEY_EXTERNAL_APPLE_TEAM_ID", \.external.appleTeamID, .optionalText,
                help: "The Apple developer team ID, for the client secret made from the Sign in with Apple key."),
            ServerSetting(
                environment: "LATCHKEY_EXTERNAL_APPLE_KEY_ID", \.external.appleKeyID, .optionalText,
                help: "The key ID of the Sign in with Apple key."),
            ServerSetting(
                environment: "LATCHKEY_EXTERNAL_APPLE_PRIVATE_KEY_FILE", \.external.applePrivateKeyFile, .optionalText,
                help: "The Sign in with Apple key (.p8, PEM); the server makes each exchange's client secret from it."),
            ServerSetting(
                environment: "LATCHKEY_EXTERNAL_APPLE_API_URL", \.external.appleAPIURL, .text,
                help: "Sign in with Apple's REST API (native code exchange, token revocation); default https://appleid.apple.com."),
            ServerSetting(
                environment: "GOTRUE_CUSTOM_OAUTH_ENABLED", \.external.customProvidersEnabled, .boolean,
                help: "Let providers added through /admin/custom-providers (custom:<name>) sign people in."),
            ServerSetting(
                environment: "GOTRUE_SECURITY_MANUAL_LINKING_ENABLED", \.external.manualLinkingEnabled, .boolean,
                help: "Let a signed-in user link and unlink identities."),
        ]

    /// An environment-only setting stored at `keyPath`, read from `variable`, else from the
    /// first of `others` that is set (GoTrue's names).
    init<T>(
        environment variable: String, or others: [String] = [], _ keyPath: WritableKeyPath<ServerConfiguration, T>, _ parser: Parser<T>,
        help: String, isSecret: Bool = false
    ) {
        nonisolated(unsafe) let keyPath = keyPath
        let conversion: Conversion = T.self == Bool.self ? .boolean : .none
        self.init(
            variable, kind: .environmentOnly, variables: ([variable] + others).map { Variable($0, conversion) }, help: help, isSecret: isSecret,
            defaultText: { parser.describe($0[keyPath: keyPath]) },
            store: { value, setting, configuration throws(ConfigurationError) in
                configuration[keyPath: keyPath] = try parser.parse(value, setting)
            })
    }
}

extension ExternalProviderSettings {
    /// Refuses an issuer URL that is not `https` (on 127.0.0.1 or ::1, `http` with
    /// ``allowLoopbackProviders``): codes and tokens would cross the network in the clear.
    /// What GoTrue starts with (Keycloak without a URL, an incomplete Apple key) is in
    /// ``warnings()``.
    func validate() throws(ConfigurationError) {
        var urls: [(setting: String, text: String)] = []
        for name in ["apple", "google", "keycloak", "github"] {
            guard let provider = self[name], provider.enabled, let text = provider.url, !text.isEmpty else { continue }
            urls.append(("GOTRUE_EXTERNAL_\(name.uppercased())_URL", text))
        }
        if appleAPIURL != Self.appleAPIDefault { urls.append(("LATCHKEY_EXTERNAL_APPLE_API_URL", appleAPIURL)) }
        for (setting, text) in urls {
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host else {
                throw ConfigurationError("\(setting) is not a URL: '\(text)'")
            }
            let loopback = host == "127.0.0.1" || host == "::1" || host == "[::1]" || host == "localhost"
            guard scheme == "https" || (scheme == "http" && loopback && allowLoopbackProviders) else {
                throw ConfigurationError(
                    "\(setting) must be an https URL ('\(text)'); a provider on 127.0.0.1 over http needs --allow-loopback-providers")
            }
        }
    }

    /// Providers that start, as GoTrue starts them, but fail at use: each names the settings and
    /// what fails.
    func warnings() -> [String] {
        var warnings: [String] = []
        if keycloak.enabled, keycloak.url?.isEmpty ?? true {
            warnings.append(
                "GOTRUE_EXTERNAL_KEYCLOAK_ENABLED is on but GOTRUE_EXTERNAL_KEYCLOAK_URL is not set: Keycloak sign-in in the browser fails with "
                    + "400 \"Unsupported provider: unable to find URL for the Keycloak provider\" and Keycloak ID tokens with 500 unexpected_failure")
        }
        let appleKey = [
            ("LATCHKEY_EXTERNAL_APPLE_TEAM_ID", appleTeamID), ("LATCHKEY_EXTERNAL_APPLE_KEY_ID", appleKeyID),
            ("LATCHKEY_EXTERNAL_APPLE_PRIVATE_KEY_FILE", applePrivateKeyFile),
        ]
        let missing = appleKey.filter { $0.1?.isEmpty ?? true }.map(\.0)
        let fallback =
            "Sign in with Apple in the browser uses GOTRUE_EXTERNAL_APPLE_SECRET instead, and without it fails with "
            + "400 \"Unsupported provider: missing OAuth secret for apple\" (Apple ID tokens still work); Apple refresh tokens are not "
            + "kept, so deleting an account does not revoke the user's Apple tokens"
        if apple.enabled, missing.count == appleKey.count {
            warnings.append(
                "GOTRUE_EXTERNAL_APPLE_ENABLED is on but the Sign in with Apple key (LATCHKEY_EXTERNAL_APPLE_TEAM_ID, "
                    + "LATCHKEY_EXTERNAL_APPLE_KEY_ID, LATCHKEY_EXTERNAL_APPLE_PRIVATE_KEY_FILE) is not set: Apple refresh tokens are not kept, "
                    + "so deleting an account does not revoke the user's Apple tokens (App Review guideline 5.1.1(v))")
        }
        if !missing.isEmpty, missing.count < appleKey.count {
            warnings.append(
                "the Sign in with Apple key is incomplete: \(missing.joined(separator: ", ")) \(missing.count == 1 ? "is" : "are") not set: "
                    + fallback)
        } else if missing.isEmpty {
            do {
                _ = try appleClientSecret()
            } catch {
                warnings.append("\(error.description): " + fallback)
            }
        }
        return warnings
    }
}

extension ExternalProviderSettings {
    /// The maker of Sign in with Apple's client secrets, when the Apple key is configured; the
    /// key file is read each time, so a replaced key is used without a restart.
    func appleClientSecret() throws(ConfigurationError) -> AppleClientSecret? {
        guard let teamID = appleTeamID, !teamID.isEmpty, let keyID = appleKeyID, !keyID.isEmpty, let path = applePrivateKeyFile, !path.isEmpty
        else { return nil }
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigurationError("LATCHKEY_EXTERNAL_APPLE_PRIVATE_KEY_FILE cannot be read: '\(path)'")
        }
        let secret = AppleClientSecret(teamID: teamID, keyID: keyID, privateKeyPEM: pem)
        do {
            _ = try secret.make(clientID: "check", now: Date())
        } catch {
            throw ConfigurationError("LATCHKEY_EXTERNAL_APPLE_PRIVATE_KEY_FILE is not a P-256 private key in PEM form (a .p8 key): '\(path)'")
        }
        return secret
    }
}
