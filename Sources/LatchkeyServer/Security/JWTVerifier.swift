import Crypto
import Foundation
import LatchkeyWire

/// Checks a compact JWT the way GoTrue's parser does (golang-jwt v5 with the valid methods set
/// to the algorithms of the configured keys): the token's three parts, its header's `alg` and
/// `kid`, the signature, then the registered time claims that are present.
///
/// - The key is chosen by the header's `kid` among the configured JWT keys (``JWTKeySet``); an
///   HS256 token whose `kid` names none of them (or that has no `kid`) is checked with the legacy
///   HS256 secret, as GoTrue does. The header's `alg` must be the chosen key's algorithm: it
///   never picks the algorithm. So `none`, an ES256 or RS256 token whose `kid` names no key, and
///   an HS256 token whose `kid` names an EC or RSA key (the "HMAC keyed with the public key"
///   confusion) are refused before any key is used.
/// - `exp` and `nbf` are optional, as in GoTrue (Supabase's older API keys have no `exp`);
///   when present they are checked against the server's clock.
///
/// Failures are ``AuthError/invalidJWT(_:)`` with GoTrue's reason text; none contains the token.
struct JWTVerifier: Sendable {
    /// Every `alg` golang-jwt knows; any other is "unavailable" rather than "invalid".
    static let knownAlgorithms: Set<String> = [
        "HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
        "ES256", "ES384", "ES512", "EdDSA", "none",
    ]

    /// The legacy secret, for HS256 tokens without `kid`.
    private let legacyKey: VerificationKey
    /// The configured JWT keys by `kid`.
    private let keys: [String: VerificationKey]
    /// The algorithms a token may be signed with: HS256 and those of the configured keys.
    let validAlgorithms: Set<String>

    init(secret: String, keys: JWTKeySet? = nil) {
        legacyKey = .hs256(SymmetricKey(data: Data(secret.utf8)))
        let keys = keys?.keys ?? []
        self.keys = Dictionary(keys.map { ($0.id, $0.verification) }, uniquingKeysWith: { first, _ in first })
        validAlgorithms = Set(["HS256"] + keys.map(\.algorithm.rawValue))
    }

    /// The claims of `token` once its form, algorithm and signature are right. Time claims are
    /// checked separately (``checkTimes(_:now:)``), so that verified claims can be cached.
    func claims(of token: String) throws(AuthError) -> VerifiedClaims {
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw Self.malformed("token contains an invalid number of segments") }
        guard let headerData = Base64URL.decode(utf8: parts[0]) else { throw Self.malformed("could not base64 decode header") }
        guard let header = try? JSONDecoder().decode(Header.self, from: headerData) else {
            throw Self.malformed("could not JSON decode header")
        }
        guard let payload = Base64URL.decode(utf8: parts[1]) else { throw Self.malformed("could not base64 decode claim") }
        guard let claims = try? JSONDecoder().decode(VerifiedClaims.self, from: payload) else {
            throw Self.malformed("could not JSON decode claim")
        }
        guard let alg = header.alg, !alg.isEmpty else { throw .invalidJWT("token is unverifiable: signing method (alg) is unspecified") }
        guard Self.knownAlgorithms.contains(alg) else { throw .invalidJWT("token is unverifiable: signing method (alg) is unavailable") }
        guard let signature = Base64URL.decode(utf8: parts[2]) else { throw Self.malformed("could not base64 decode signature") }
        guard validAlgorithms.contains(alg) else {
            // Checked before any key is used, so no other algorithm ever reaches one.
            throw .invalidJWT("token signature is invalid: signing method \(alg) is invalid")
        }
        let key: VerificationKey
        if let kid = header.kid, let configured = keys[kid] {
            key = configured
        } else if alg == "HS256" {
            // As GoTrue: an HS256 token whose kid names no configured key is checked with the
            // legacy secret, exactly like one without kid.
            key = legacyKey
        } else {
            // The kid is the caller's text: it is not repeated in the answer.
            throw .invalidJWT("token is unverifiable: error while executing keyfunc: unrecognized JWT kid for algorithm \(alg)")
        }
        // The key decides the algorithm: a header naming another one is refused unchecked.
        guard key.algorithm == alg else { throw .invalidJWT("token signature is invalid: key is of invalid type") }
        let signedPart = Data(token.utf8.prefix(parts[0].count + 1 + parts[1].count))
        // HMACs are compared in constant time.
        guard key.isValid(signature: signature, for: signedPart) else {
            throw .invalidJWT("token signature is invalid: signature is invalid")
        }
        return claims
    }

    /// Refuses a token past its `exp` or before its `nbf`, when it has them.
    static func checkTimes(_ claims: VerifiedClaims, now: Date) throws(AuthError) {
        var problems: [String] = []
        if let exp = claims.exp, !(now < exp) {
            problems.append("token is expired by \(goDuration(seconds: Int(now.timeIntervalSince(exp).rounded(.down))))")
        }
        if let nbf = claims.nbf, now < nbf {
            problems.append("token is not valid yet")
        }
        guard problems.isEmpty else { throw .invalidJWT("token has invalid claims: " + problems.joined(separator: ", ")) }
    }

    private struct Header: Decodable {
        var alg: String?
        var kid: String?
    }

    private static func malformed(_ reason: String) -> AuthError {
        .invalidJWT("token is malformed: \(reason)")
    }

    /// Go's `time.Duration` text for whole seconds: `0s`, `42s`, `5m0s`, `1h2m3s`.
    static func goDuration(seconds: Int) -> String {
        let total = max(0, seconds)
        let (hours, minutes, rest) = (total / 3600, total % 3600 / 60, total % 60)
        if hours > 0 { return "\(hours)h\(minutes)m\(rest)s" }
        if minutes > 0 { return "\(minutes)m\(rest)s" }
        return "\(rest)s"
    }
}
