import Foundation
import JWTKit
import Testing

@testable import LatchkeyServer

@Suite("Verified-token cache")
struct VerifiedTokenCacheTests {
    func claims(_ sub: String) -> VerifiedClaims {
        VerifiedClaims(sub: sub, exp: Date().addingTimeInterval(60), role: "authenticated", sessionID: nil)
    }

    @Test("only the exact token text hits, and the cache stays bounded")
    func boundedExact() {
        let cache = VerifiedTokenCache(capacity: 10)
        cache.insert(claims("a"), for: "token-a")
        #expect(cache.claims(for: "token-a")?.sub == "a")
        #expect(cache.claims(for: "token-a ") == nil)
        #expect(cache.claims(for: "token-b") == nil)
        for index in 0..<100 { cache.insert(claims("\(index)"), for: "t\(index)") }
        #expect(cache.claims(for: "t99") != nil, "recent entries stay")
        #expect(cache.claims(for: "t0") == nil, "old entries go")
    }

    @Test("a cached token still expires on the server's clock")
    func expiryStillChecked() async throws {
        let signer = await TokenSigner(secret: String(repeating: "c", count: 40), origin: ServerOrigin("test"))
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let token = try await signer.sign(
            AccessTokenClaims(
                iss: .init(value: "test"), sub: .init(value: "u"), aud: .init(value: "authenticated"),
                exp: .init(value: now.addingTimeInterval(60)), iat: .init(value: now), email: nil, phone: "", role: "authenticated",
                aal: nil, amr: nil, sessionID: "s", isAnonymous: false, appMetadata: nil, userMetadata: nil))
        #expect(try await signer.verify(token, now: now).sessionID == "s")
        #expect(try await signer.verify(token, now: now).sessionID == "s", "second check from the cache")
        await #expect(throws: AuthError.invalidJWT("token has invalid claims: token is expired by 1s")) {
            try await signer.verify(token, now: now.addingTimeInterval(61))
        }
        await #expect(throws: AuthError.invalidJWT("token signature is invalid: signature is invalid")) {
            try await signer.verify(token + "x", now: now)
        }
    }
}
