import Foundation
import Testing

@testable import LatchkeyServer

/// TOTP (RFC 6238) against the RFC's published test vectors, base32, and sealed secrets.
@Suite("TOTP")
struct TOTPTests {
    /// RFC 6238 appendix B: the SHA-1 seed is the ASCII string "12345678901234567890".
    static let rfcSecret = Array("12345678901234567890".utf8)

    @Test(
        "RFC 6238's SHA-1 test vectors (8 digits)",
        arguments: [
            (59, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"), (1_234_567_890, "89005924"),
            (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
        ] as [(Int, String)])
    func rfcVectors(time: Int, expected: String) {
        let step = TOTP.step(at: Date(timeIntervalSince1970: TimeInterval(time)))
        #expect(TOTP.code(secret: Self.rfcSecret, step: step, digits: 8) == expected)
    }

    @Test("six-digit codes are the RFC's codes' last six digits, leading zeros kept")
    func sixDigits() {
        let step = TOTP.step(at: Date(timeIntervalSince1970: 1_111_111_109))
        #expect(TOTP.code(secret: Self.rfcSecret, step: step) == "081804")
    }

    @Test("a code matches its step and one on either side, nothing further, and only digits")
    func drift() {
        let now = Date(timeIntervalSince1970: 1_234_567_890)
        let step = TOTP.step(at: now)
        for offset in [-1, 0, 1] as [Int64] {
            #expect(TOTP.matchingStep(of: TOTP.code(secret: Self.rfcSecret, step: step + offset), secret: Self.rfcSecret, at: now) == step + offset)
        }
        for offset in [-3, -2, 2, 3] as [Int64] {
            #expect(TOTP.matchingStep(of: TOTP.code(secret: Self.rfcSecret, step: step + offset), secret: Self.rfcSecret, at: now) == nil)
        }
        let code = TOTP.code(secret: Self.rfcSecret, step: step)
        for bad in ["", "12345", "1234567", " " + code.dropFirst(), code + " ", "abcdef"] {
            #expect(TOTP.matchingStep(of: bad, secret: Self.rfcSecret, at: now) == nil, "\(bad)")
        }
    }

    @Test("base32 round-trips and matches RFC 4648's vectors")
    func base32() {
        let vectors = ["": "", "f": "MY", "fo": "MZXQ", "foo": "MZXW6", "foob": "MZXW6YQ", "fooba": "MZXW6YTB", "foobar": "MZXW6YTBOI"]
        for (plain, encoded) in vectors {
            #expect(Base32.encode(Array(plain.utf8)) == encoded)
            #expect(Base32.decode(encoded) == Array(plain.utf8))
        }
        let secret = TOTP.randomSecret()
        #expect(secret.count == 20)
        #expect(Base32.encode(secret).count == 32)
        #expect(Base32.decode(Base32.encode(secret).lowercased()) == secret)
        #expect(Base32.decode("MZ1W") == nil)
    }

    @Test("the otpauth URI has GoTrue's shape")
    func uri() {
        let uri = TOTP.uri(secret: "JBSWY3DPEHPK3PXP", issuer: "example.com:3000", account: "ada+mfa@example.com")
        #expect(
            uri
                == "otpauth://totp/example.com:3000:ada+mfa@example.com?algorithm=SHA1&digits=6&issuer=example.com%3A3000&period=30&secret=JBSWY3DPEHPK3PXP"
        )
        #expect(TOTP.uri(secret: "A", issuer: "My App", account: "a@b.c").hasPrefix("otpauth://totp/My%20App:a@b.c?"))
    }

    @Test("sealed secrets open only for their factor and under the same server secret")
    func sealing() throws {
        let box = FactorSecretBox(jwtSecret: String(repeating: "s", count: 40))
        let secret = TOTP.randomSecret()
        let factor = UUID()
        let sealed = try box.seal(secret, factorID: factor)
        #expect(sealed.hasPrefix("v1:"))
        #expect(!sealed.contains(Base32.encode(secret)))
        #expect(box.open(sealed, factorID: factor) == secret)
        #expect(box.open(sealed, factorID: UUID()) == nil, "another factor's row")
        #expect(FactorSecretBox(jwtSecret: String(repeating: "t", count: 40)).open(sealed, factorID: factor) == nil, "another server secret")
        #expect(box.open(Base32.encode(secret), factorID: factor) == nil, "plain text is never taken for a sealed secret")
        #expect(try box.seal(secret, factorID: factor) != sealed, "a fresh nonce each time")
    }
}
