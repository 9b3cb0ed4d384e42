import Crypto
import Foundation
import HTTPTypes
import LatchkeyWire
import Logging

/// Checks an identity provider's ID token the way GoTrue does (go-oidc's verifier, then
/// `IdTokenGrant`'s own checks), before anything in it is believed.
///
/// In order: three base64url parts; an `alg` of RS256 or ES256 (so `none` and HMAC, keyed with
/// a public key or not, never get near a key); `iss` one of the provider's; a key of the
/// provider's published set chosen by `kid` and usable for that `alg` (an unknown `kid` makes
/// the set be fetched again, throttled by ``OIDCProviderDirectory``); the signature; `exp`
/// in the future and `iat` not in it; `sub` present; `aud` naming one of the provider's
/// client IDs; the nonce; and `at_hash` when the client sends the access token.
///
/// Failures are GoTrue's OAuth errors (`{"error": "invalid request", ...}`); the reason a
/// signature or claim failed is logged, never the token.
struct IDTokenVerifier: Sendable {
    /// How far in the future `iat` may be (clocks differ).
    static let clockSkew: TimeInterval = 300
    static let algorithms: Set<String> = ["RS256", "ES256"]

    let directory: OIDCProviderDirectory
    let clock: any ServerClock
    let logger: Logger

    init(directory: OIDCProviderDirectory, clock: any ServerClock, logger: Logger) {
        self.directory = directory
        self.clock = clock
        self.logger = logger
    }

    /// The verified claims of `token` for `provider`. `nonce` is the raw nonce the client
    /// sends (the token carries its SHA-256 in hex); `accessToken` the provider's access token
    /// when the client sends it.
    func verify(_ token: String, for provider: ResolvedProvider, nonce: String?, accessToken: String?) async throws -> [String: JSONValue] {
        let claims = try await signedClaims(token, for: provider)
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else {
            throw AuthError.oauth("invalid request", "Missing sub claim in id_token")
        }
        let audiences = Self.audiences(claims["aud"])
        guard provider.clientIDs.contains(where: { !$0.isEmpty && audiences.contains($0) }) else {
            let named = audiences.prefix(5).map { String($0.prefix(100)) }.joined(separator: " ")
            throw AuthError.oauth("invalid request", "Unacceptable audience in id_token: [\(named)]")
        }
        try Self.checkNonce(claims["nonce"]?.stringValue, sent: nonce, skip: provider.skipNonceCheck)
        if let accessToken, !accessToken.isEmpty, let hash = claims["at_hash"]?.stringValue {
            guard constantTimeEquals(OAuthDigest.accessTokenHash(accessToken), hash) else {
                logger.info("ID token refused", metadata: ["provider": "\(provider.name)", "reason": "at_hash does not match the access token"])
                throw AuthError.badIDToken
            }
        }
        return claims
    }

    /// GoTrue's nonce rules: unless the provider skips the check, the token and the request
    /// both have a nonce or neither does, and the token's is the SHA-256 (hex) of the request's.
    static func checkNonce(_ inToken: String?, sent: String?, skip: Bool) throws(AuthError) {
        guard !skip else { return }
        let inToken = inToken ?? ""
        let sent = sent ?? ""
        guard inToken.isEmpty == sent.isEmpty else {
            throw AuthError.oauth("invalid request", "Passed nonce and nonce in id_token should either both exist or not.")
        }
        guard !sent.isEmpty else { return }
        guard constantTimeEquals(hashedNonce(sent), inToken) else { throw AuthError.oauth("invalid nonce", "Nonces mismatch") }
    }

    /// The nonce a token carries for the raw `nonce`: its SHA-256 in lowercase hex.
    static func hashedNonce(_ nonce: String) -> String {
        OAuthDigest.hashedNonce(nonce)
    }

    /// `aud` as a list: a single string or an array of strings.
    static func audiences(_ value: JSONValue?) -> [String] {
        switch value {
        case .string(let audience)?: [audience]
        case .array(let items)?: items.compactMap(\.stringValue)
        default: []
        }
    }

    /// The claims once the token's form, issuer, key, signature and times are right.
    private func signedClaims(_ token: String, for provider: ResolvedProvider) async throws -> [String: JSONValue] {
        func refuse(_ reason: String) -> AuthError {
            logger.info("ID token refused", metadata: ["provider": "\(provider.name)", "reason": "\(reason)"])
            return .badIDToken
        }
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(utf8: parts[0]), let payload = Base64URL.decode(utf8: parts[1]),
            let signature = Base64URL.decode(utf8: parts[2])
        else { throw refuse("malformed") }
        struct Header: Decodable {
            var alg: String?
            var kid: String?
        }
        guard let header = try? JSONDecoder().decode(Header.self, from: headerData),
            let claims = try? JSONDecoder().decode([String: JSONValue].self, from: payload)
        else { throw refuse("malformed header or claims") }
        guard let alg = header.alg, Self.algorithms.contains(alg) else { throw refuse("algorithm \(header.alg ?? "none") not accepted") }
        guard let issuer = claims["iss"]?.stringValue, provider.issuers.contains(issuer) else { throw refuse("issuer not the provider's") }
        let keys: [VerificationKey]
        do {
            keys = try await directory.verificationKeys(issuer: provider.discoveryIssuer, kid: header.kid, alg: alg)
        } catch {
            throw AuthError(.internalServerError, "unexpected_failure", "Unable to reach the identity provider \(provider.name)")
        }
        guard !keys.isEmpty else { throw refuse("no key of the provider matches kid and alg") }
        let signedPart = Data(token.utf8.prefix(parts[0].count + 1 + parts[1].count))
        guard keys.contains(where: { $0.isValid(signature: signature, for: signedPart) }) else { throw refuse("signature invalid") }
        let now = clock.now()
        guard let exp = claims["exp"]?.numberValue else { throw refuse("no exp") }
        guard now < Date(timeIntervalSince1970: exp) else { throw refuse("expired") }
        if let iat = claims["iat"]?.numberValue, Date(timeIntervalSince1970: iat) > now.addingTimeInterval(Self.clockSkew) {
            throw refuse("issued in the future")
        }
        if let nbf = claims["nbf"]?.numberValue, Date(timeIntervalSince1970: nbf) > now.addingTimeInterval(Self.clockSkew) {
            throw refuse("not valid yet")
        }
        return claims
    }
}
