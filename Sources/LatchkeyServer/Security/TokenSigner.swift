import Foundation
import JWTKit
import NIOConcurrencyHelpers

/// Signs and verifies HS256 access tokens with the server secret.
///
/// Verification accepts HS256 only: `alg: none`, other algorithms and tokens signed with
/// another key are refused.
///
/// JWTKit's key collection is an actor, so every signature it makes or checks runs on that one
/// actor. The signer keeps a few identical collections and spreads requests over them, so that
/// token checks use every core instead of queueing behind each other.
final class TokenSigner: Sendable {
    private let collections: [JWTKeyCollection]
    private let next = NIOLockedValueBox(0)
    private let verified = VerifiedTokenCache()
    let issuer: String

    init(secret: String, issuer: String, lanes: Int = ProcessInfo.processInfo.activeProcessorCount * 2) async {
        var collections: [JWTKeyCollection] = []
        for _ in 0..<max(1, lanes) {
            let keys = JWTKeyCollection()
            await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
            collections.append(keys)
        }
        self.collections = collections
        self.issuer = issuer
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

    /// The claims of a valid token, or ``AuthError/badJWT`` / ``AuthError/expiredJWT``.
    func verify(_ token: String, now: Date) async throws(AuthError) -> VerifiedClaims {
        let claims: VerifiedClaims
        if let cached = verified.claims(for: token) {
            claims = cached
        } else {
            do {
                claims = try await keys.verify(token, as: VerifiedClaims.self)
            } catch {
                throw .badJWT
            }
            verified.insert(claims, for: token)
        }
        // The JWT library checks expiry against the wall clock; the server's clock decides.
        guard claims.exp.value > now else { throw .expiredJWT }
        return claims
    }

    /// A long-lived key for `role` (`anon` or `service_role`), as Supabase hands out.
    func apiKey(role: String, now: Date) async throws -> String {
        let claims = AccessTokenClaims(
            iss: IssuerClaim(value: issuer), sub: SubjectClaim(value: role), aud: AudienceClaim(value: role),
            exp: ExpirationClaim(value: now.addingTimeInterval(10 * 365 * 86_400)), iat: IssuedAtClaim(value: now),
            email: nil, phone: "", role: role, aal: nil, amr: nil, sessionID: nil, isAnonymous: nil,
            appMetadata: nil, userMetadata: nil)
        return try await sign(claims)
    }
}
