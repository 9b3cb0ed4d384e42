import Foundation
import JWTKit

/// Signs and verifies HS256 access tokens with the server secret.
///
/// Verification accepts HS256 only: `alg: none`, other algorithms and tokens signed with
/// another key are refused.
struct TokenSigner: Sendable {
    private let keys: JWTKeyCollection
    let issuer: String

    init(secret: String, issuer: String) async {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        self.keys = keys
        self.issuer = issuer
    }

    func sign(_ claims: AccessTokenClaims) async throws -> String {
        try await keys.sign(claims, header: ["typ": "JWT"])
    }

    /// The claims of a valid token, or ``AuthError/badJWT`` / ``AuthError/expiredJWT``.
    func verify(_ token: String, now: Date) async throws(AuthError) -> AccessTokenClaims {
        let claims: AccessTokenClaims
        do {
            claims = try await keys.verify(token, as: AccessTokenClaims.self)
        } catch {
            throw .badJWT
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
