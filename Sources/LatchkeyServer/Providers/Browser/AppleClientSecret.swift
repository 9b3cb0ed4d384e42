import Crypto
import Foundation
import HTTPTypes
import LatchkeyWire

/// The client secret Sign in with Apple's token endpoint takes: a JWT signed with ES256 by the
/// private key (`.p8`) made for the app in Apple's developer account, naming the team as
/// issuer, the services ID as subject and Apple as audience ("Creating a client secret").
///
/// Made fresh for each exchange and valid for five minutes, so no long-lived secret (Apple
/// allows six months) sits in the configuration.
struct AppleClientSecret: Sendable {
    static let audience = "https://appleid.apple.com"
    static let lifetime: TimeInterval = 300

    /// The team ID (ten characters) of the developer account.
    var teamID: String
    /// The key ID Apple shows for the `.p8` key.
    var keyID: String
    /// The `.p8` key: PEM, `-----BEGIN PRIVATE KEY-----`.
    var privateKeyPEM: String

    init(teamID: String, keyID: String, privateKeyPEM: String) {
        self.teamID = teamID
        self.keyID = keyID
        self.privateKeyPEM = privateKeyPEM
    }

    /// A secret for the client `clientID` (the services ID, or the bundle ID for a native
    /// app's code), issued at `now`.
    func make(clientID: String, now: Date) throws -> String {
        let key: P256.Signing.PrivateKey
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw ConfigurationError("the Sign in with Apple key is not a P-256 private key in PEM form")
        }
        let header: [String: String] = ["alg": "ES256", "kid": keyID]
        let issuedAt = Int(now.timeIntervalSince1970)
        struct Claims: Encodable {
            var iss: String
            var iat: Int
            var exp: Int
            var aud: String
            var sub: String
        }
        let claims = Claims(iss: teamID, iat: issuedAt, exp: issuedAt + Int(Self.lifetime), aud: Self.audience, sub: clientID)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let signingInput = Base64URL.encode(try encoder.encode(header)) + "." + Base64URL.encode(try encoder.encode(claims))
        // JWS ES256 signatures are r ‖ s, 64 bytes (RFC 7518 §3.4), which rawRepresentation is.
        let signature = try key.signature(for: Data(signingInput.utf8)).rawRepresentation
        return signingInput + "." + Base64URL.encode(signature)
    }
}

extension AppleClientSecret: CustomStringConvertible {
    var description: String { "AppleClientSecret(team: \(teamID), key: \(keyID), private key: <redacted>)" }
}
