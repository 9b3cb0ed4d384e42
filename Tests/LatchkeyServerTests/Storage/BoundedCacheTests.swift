import Foundation
import JWTKit
import Testing

@testable import LatchkeyServer

/// The bounded cache behind the verified-token cache and the SQLite read cache, and the
/// verified-token cache's use of it.
@Suite("Bounded cache")
struct BoundedCacheTests {
    func claims(_ sub: String) -> VerifiedClaims {
        VerifiedClaims(sub: sub, exp: Date().addingTimeInterval(60), role: "authenticated", sessionID: nil)
    }

    @Test("only the exact key hits, and the cache stays bounded, keeping the newer half when full")
    func boundedExact() {
        let cache = BoundedCache<String, VerifiedClaims>(capacity: 10)
        cache.insert(claims("a"), for: "token-a")
        #expect(cache.value(for: "token-a")?.sub == "a")
        #expect(cache.value(for: "token-a ") == nil)
        #expect(cache.value(for: "token-b") == nil)
        for index in 0..<100 {
            cache.insert(claims("\(index)"), for: "t\(index)")
            #expect(cache.value(for: "t\(index)") != nil, "what was just stored is there")
        }
        #expect(cache.value(for: "t99") != nil && cache.value(for: "t95") != nil, "recent entries stay")
        #expect(cache.value(for: "t0") == nil && cache.value(for: "token-a") == nil, "old entries go")
        let kept = (0..<100).filter { cache.value(for: "t\($0)") != nil }.count
        #expect(kept <= 10 && kept >= 5, "never more than the capacity, and at least the newer half")
        cache.insert(claims("again"), for: "t99")
        #expect(cache.value(for: "t99")?.sub == "again", "an insert replaces")
        cache.removeAll()
        #expect(cache.value(for: "t99") == nil)
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
