import Foundation
import JWTKit
import LatchkeyWire
import NIOConcurrencyHelpers

/// Signs and verifies access tokens: with the signing key of the configured JWT keys
/// (``JWTKeySet``; the token's header names its `kid`), or, without JWT keys, with the legacy
/// HS256 secret (no `kid`, as GoTrue). API keys are always signed with the legacy secret.
///
/// Verification (``JWTVerifier``) picks the key by the token's `kid` (the legacy secret for
/// HS256 tokens naming no configured key) and accepts only that key's algorithm: `alg: none`,
/// other algorithms, unknown `kid`s of ES256/RS256 tokens and tokens signed with another key
/// are refused.
///
/// JWTKit's key collection is an actor, so every signature it makes or checks runs on that one
/// actor. The signer keeps a few identical collections and spreads requests over them, so that
/// token checks use every core instead of queueing behind each other.
final class TokenSigner: Sendable {
    private let collections: [JWTKeyCollection]
    /// Signs API keys with the legacy secret.
    private let legacy: JWTKeyCollection
    /// The `kid` new access tokens carry; `nil` when the legacy secret signs them.
    let signingKeyID: String?
    /// The public keys `/.well-known/jwks.json` publishes.
    let publicKeys: [JSONWebKey]
    /// The algorithm new tokens are signed with (`HS256` with the legacy secret).
    let signingAlgorithm: JWTKeySet.Algorithm
    /// Whether tokens are signed with a private key whose public half `/.well-known/jwks.json`
    /// publishes (ES256, RS256): what an ID token needs, so that another app can check it.
    var signsAsymmetrically: Bool { signingAlgorithm != .hs256 }
    private let next = NIOLockedValueBox(0)
    /// Tokens whose signature was already checked, by their exact text, so that a client sending
    /// the same token many times pays for the signature check and JSON decoding once; expiry
    /// and the session are still checked on every request.
    private let verified = BoundedCache<String, VerifiedClaims>(capacity: 16_384)
    private let verifier: JWTVerifier
    private let origin: ServerOrigin

    /// The `iss` of the tokens it signs: the server's URL and `/auth/v1`, as Supabase's.
    var issuer: String { origin.url + "/auth/v1" }

    init(secret: String, keys: JWTKeySet? = nil, origin: ServerOrigin, lanes: Int = ProcessInfo.processInfo.activeProcessorCount * 2) async {
        legacy = JWTKeyCollection()
        await legacy.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        var collections: [JWTKeyCollection] = []
        for _ in 0..<max(1, lanes) {
            let collection = JWTKeyCollection()
            if let key = keys?.signingKey, let material = key.signing {
                let kid = JWKIdentifier(string: key.id)
                switch material {
                case .hs256(let secret):
                    await collection.add(hmac: secret, digestAlgorithm: .sha256, kid: kid)
                case .es256(let privateKey):
                    await collection.add(ecdsa: privateKey, kid: kid)
                case .rs256(let privateKey):
                    await collection.add(rsa: privateKey, digestAlgorithm: .sha256, kid: kid)
                }
            } else {
                await collection.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
            }
            collections.append(collection)
        }
        self.collections = collections
        self.signingKeyID = keys?.signingKey.id
        self.publicKeys = keys?.publicKeys ?? []
        self.signingAlgorithm = keys?.signingKey.algorithm ?? .hs256
        self.verifier = JWTVerifier(secret: secret, keys: keys)
        self.origin = origin
    }

    private var keys: JWTKeyCollection {
        let lane = next.withLockedValue { counter in
            counter &+= 1
            return counter
        }
        return collections[lane % collections.count]
    }

    /// Signs `claims` (``AccessTokenClaims``, or a custom access token hook's answer).
    func sign(_ claims: some JWTPayload) async throws -> String {
        try await keys.sign(claims, kid: signingKeyID.map { JWKIdentifier(string: $0) }, header: ["typ": "JWT"])
    }

    /// The claims of a validly signed token that is neither expired nor not yet valid, or 403
    /// `bad_jwt` (``AuthError/invalidJWT(_:)``) saying why not.
    func verify(_ token: String, now: Date) async throws(AuthError) -> VerifiedClaims {
        let claims: VerifiedClaims
        if let cached = verified.value(for: token) {
            claims = cached
        } else {
            claims = try verifier.claims(of: token)
            verified.insert(claims, for: token)
        }
        // Checked on every use, against the server's clock.
        try JWTVerifier.checkTimes(claims, now: now)
        return claims
    }

    /// A long-lived key for `role` (`anon` or `service_role`), shaped as Supabase's own keys
    /// (`iss`, `role`, `iat`, `exp`; no `sub`, no session).
    func apiKey(role: String, now: Date) async throws -> String {
        let claims = APIKeyClaims(
            iss: IssuerClaim(value: issuer), role: role, iat: IssuedAtClaim(value: now),
            exp: ExpirationClaim(value: now.addingTimeInterval(10 * 365 * 86_400)))
        return try await legacy.sign(claims, header: ["typ": "JWT"])
    }
}
