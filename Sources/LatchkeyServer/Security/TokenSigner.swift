import Foundation
import JWTKit
import NIOConcurrencyHelpers

/// Signs and verifies HS256 access tokens with the server secret.
///
/// Verification (``JWTVerifier``) accepts the configured keys' algorithms only (HS256):
/// `alg: none`, other algorithms and tokens signed with another key are refused.
///
/// JWTKit's key collection is an actor, so every signature it makes or checks runs on that one
/// actor. The signer keeps a few identical collections and spreads requests over them, so that
/// token checks use every core instead of queueing behind each other.
final class TokenSigner: Sendable {
    private let collections: [JWTKeyCollection]
    private let next = NIOLockedValueBox(0)
    private let verified = VerifiedTokenCache()
    private let verifier: JWTVerifier
    private let origin: ServerOrigin

    /// The `iss` of the tokens it signs: the server's URL and `/auth/v1`, as Supabase's.
    var issuer: String { origin.url + "/auth/v1" }

    init(secret: String, origin: ServerOrigin, lanes: Int = ProcessInfo.processInfo.activeProcessorCount * 2) async {
        var collections: [JWTKeyCollection] = []
        for _ in 0..<max(1, lanes) {
            let keys = JWTKeyCollection()
            await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
            collections.append(keys)
        }
        self.collections = collections
        self.verifier = JWTVerifier(secret: secret)
        self.origin = origin
    }

    private var keys: JWTKeyCollection {
        let lane = next.withLockedValue { counter in
            counter &+= 1
            return counter
        }
        return collections[lane % collections.count]
    }

    func sign(_ claims: AccessTokenClaims) async throws -> String {
        try await keys.sign(claims, header: ["typ": "JWT"])
    }

    /// The claims of a validly signed token that is neither expired nor not yet valid, or 403
    /// `bad_jwt` (``AuthError/invalidJWT(_:)``) saying why not.
    func verify(_ token: String, now: Date) async throws(AuthError) -> VerifiedClaims {
        let claims: VerifiedClaims
        if let cached = verified.claims(for: token) {
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
        return try await keys.sign(claims, header: ["typ": "JWT"])
    }
}
