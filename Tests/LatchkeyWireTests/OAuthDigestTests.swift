import Foundation
import LatchkeyWire
import Testing

@Suite("OAuth and OpenID Connect digests, against the specifications' own examples")
struct OAuthDigestTests {
    @Test("PKCE S256: RFC 7636 appendix B")
    func pkce() {
        #expect(OAuthDigest.pkceChallenge(for: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test("at_hash: OpenID Connect Core appendix A.3's access token")
    func accessTokenHash() {
        #expect(OAuthDigest.accessTokenHash("jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y") == "77QmUPtjPfzWtF2AnpK9RQ")
    }

    @Test("a hashed nonce is SHA-256 in lowercase hex (FIPS 180-2's \"abc\"), 64 characters for any input")
    func nonce() {
        #expect(OAuthDigest.hashedNonce("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(OAuthDigest.hashedNonce("").count == 64)
        #expect(OAuthDigest.hashedNonce("é") != OAuthDigest.hashedNonce("e\u{301}"))
    }
}
