import Foundation

/// Passkeys: signing in with a WebAuthn credential instead of a password, with GoTrue's
/// settings (its passkey and WebAuthn variables).
public struct PasskeySettings: Sendable, Equatable {
    /// Whether the `/passkeys` routes answer (off: 404 `passkey_disabled`, as GoTrue).
    public var enabled = false
    /// Most passkeys one user may register.
    public var maximumPerUser = 10
    /// The relying party id: the domain passkeys are bound to (`example.com`), equal to or a
    /// registrable suffix of every origin's host. Without it the server starts with a warning
    /// and passkey and WebAuthn factor ceremonies fail, as GoTrue's.
    public var relyingPartyID: String?
    /// The name authenticators show; default: the relying party id.
    public var relyingPartyName: String?
    /// The exact origins ceremonies may run on (`https://example.com`, `https://app.example.com`;
    /// an iOS app's ceremonies carry `https://<relying party id>`). Needed as the id is.
    public var origins: [String] = []
    /// Seconds a ceremony's challenge stays usable.
    public var challengeExpiry: TimeInterval = 300
    /// App IDs (`TEAMID.com.example.app`) listed as `webcredentials` in
    /// `/.well-known/apple-app-site-association`, so iOS apps may use this server's domain as
    /// their relying party. Empty: the file is not served.
    public var appleAppIDs: [String] = []

    public init() {}

    /// The name authenticators show.
    var displayName: String { relyingPartyName.flatMap { $0.isEmpty ? nil : $0 } ?? relyingPartyID ?? "" }

    /// Checks the settings that are refused whatever is enabled (the relying party is checked
    /// by ``relyingPartyProblem()``: GoTrue starts without one, and only its ceremonies fail).
    func validate() throws(ConfigurationError) {
        typealias S = ServerSetting
        guard maximumPerUser >= 1 else { throw S.passkeysPerUser.error("must be at least 1") }
        guard challengeExpiry >= 1 else { throw S.webAuthnChallengeExpiry.error("must be at least 1 second") }
        for appID in appleAppIDs where !Self.isAppleAppID(appID) {
            throw S.appleAppIDs.error("needs TEAMID.bundle.id entries (a 10-character team ID), not '\(appID.prefix(100))'")
        }
    }

    /// Why the relying party cannot run a WebAuthn ceremony (no id, no origins, an origin off the
    /// id), or `nil` when it can. Passkeys and WebAuthn factors need it.
    func relyingPartyProblem() -> ConfigurationError? {
        typealias S = ServerSetting
        guard let id = relyingPartyID, !id.isEmpty else { return S.webAuthnRPID.error("is not set") }
        guard id == id.lowercased(), !id.contains("/"), !id.contains(":") else {
            return S.webAuthnRPID.error("must be a lowercase domain name such as example.com, not '\(id.prefix(100))'")
        }
        guard !origins.isEmpty else { return S.webAuthnRPOrigins.error("is not set") }
        for origin in origins where !origin.hasPrefix("android:apk-key-hash:") {
            guard let url = URL(string: origin), let scheme = url.scheme, scheme == "https" || scheme == "http", let host = url.host,
                url.path.isEmpty, url.query == nil, url.fragment == nil
            else { return S.webAuthnRPOrigins.error("needs origins such as https://example.com (no path), not '\(origin.prefix(100))'") }
            guard host == id || host.hasSuffix("." + id) else {
                return S.webAuthnRPOrigins.error("'\(origin.prefix(100))' is not on the relying party id \(id) or a subdomain of it")
            }
        }
        return nil
    }

    private static func isAppleAppID(_ text: String) -> Bool {
        let parts = text.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, parts[0].count == 10, parts[0].allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else { return false }
        return parts[1].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
    }
}
