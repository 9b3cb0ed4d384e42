import LatchkeyTestSupport
import Testing

@testable import LatchkeyServer

/// Deterministic fuzzing: seeded random bytes and mutations of valid attestation objects through
/// the CBOR decoder and the whole registration check. Both throw typed errors, so the only
/// outcomes possible are a value or the decoder's (or the verifier's) own error; what this
/// checks is that no input traps, hangs or exhausts memory.
@Suite("CBOR fuzzing")
struct CBORFuzzTests {
    /// Stops a loop early when the machine is slow: the iterations done still count.
    static let timeBudget = Duration.seconds(20)

    @Test("random bytes decode or are refused with a CBORError, never a trap")
    func randomBytes() {
        var generator = SeededGenerator(seed: 0x5EED_CB0F)
        let deadline = ContinuousClock.now + Self.timeBudget
        var decoded = 0
        var iterations = 0
        for iteration in 0..<4000 where ContinuousClock.now < deadline {
            iterations += 1
            let count = Int.random(in: 0...(iteration % 10 == 0 ? 512 : 48), using: &generator)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            do {
                _ = try CBORDecoder.decode(bytes)
                decoded += 1
            } catch {
                // A CBORError: the only kind decode can throw.
                _ = error
            }
            _ = try? CBORDecoder.decodePrefix(bytes)
        }
        #expect(iterations >= 100, "the time budget ran out after \(iterations) inputs")
        #expect(decoded > 0)
    }

    @Test("structured random items: heads with random arguments and nesting, never a trap")
    func randomHeads() {
        var generator = SeededGenerator(seed: 0xC0FF_EE00)
        let deadline = ContinuousClock.now + Self.timeBudget
        for _ in 0..<4000 where ContinuousClock.now < deadline {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 1...24, using: &generator) {
                let major = UInt8.random(in: 0...7, using: &generator)
                let info = UInt8.random(in: 0...31, using: &generator)
                bytes.append(major << 5 | info)
                if (24...27).contains(info) {
                    let extra = 1 << Int(info - 24)
                    for _ in 0..<extra {
                        bytes.append(Bool.random(using: &generator) ? 0xff : UInt8.random(in: 0...3, using: &generator))
                    }
                }
            }
            _ = try? CBORDecoder.decode(bytes)
        }
    }

    @Test("mutated attestation objects are refused with a WebAuthnError or verify, never a trap")
    func mutatedAttestationObjects() {
        var generator = SeededGenerator(seed: 0xA77E_57ED)
        let challenge = Array("fuzz-challenge-0123456789abcdef".utf8)
        let relyingParty = RelyingParty(id: SoftwareAuthenticator.rpID, origins: [SoftwareAuthenticator.origin])
        let seeds: [RegistrationResponse] = [
            SoftwareAuthenticator(.es256).register(challenge: challenge),
            SoftwareAuthenticator(.es256).register(challenge: challenge, flags: 0x5d, attestation: .packedSelf),
            SoftwareAuthenticator(.edDSA).register(
                challenge: challenge, attestation: .packedSelf, extensions: .pairs([(.text("credProtect"), .unsigned(2))])),
            SoftwareAuthenticator(.rs256).register(challenge: challenge, attestation: .packedSelf),
        ]
        for seed in seeds {
            #expect(throws: Never.self) { try relyingParty.verifyRegistration(seed, challenge: challenge, requireUserVerification: false) }
        }
        let deadline = ContinuousClock.now + Self.timeBudget
        var refused = 0
        var iterations = 0
        for iteration in 0..<3000 where ContinuousClock.now < deadline {
            iterations += 1
            var response = seeds[iteration % seeds.count]
            var bytes = response.attestationObject
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0...4, using: &generator) {
                case 0: bytes[index] ^= 1 << UInt8.random(in: 0...7, using: &generator)
                case 1: bytes[index] = UInt8.random(in: 0...255, using: &generator)
                case 2: bytes.removeSubrange(index...)
                case 3: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: index)
                default: bytes[index] = [0x00, 0x18, 0x1b, 0x5b, 0x7b, 0x9b, 0xbb, 0xff, 0xf9, 0xc2][Int.random(in: 0...9, using: &generator)]
                }
                if bytes.isEmpty { bytes = [0] }
            }
            response.attestationObject = bytes
            do {
                _ = try relyingParty.verifyRegistration(response, challenge: challenge, requireUserVerification: false)
            } catch {
                refused += 1
            }
            _ = try? CBORDecoder.decode(bytes)
        }
        #expect(iterations >= 100, "the time budget ran out after \(iterations) inputs")
        #expect(refused > 0)
    }

    @Test("mutated authenticator data is refused with a WebAuthnError, never a trap")
    func mutatedAuthenticatorData() {
        var generator = SeededGenerator(seed: 0xA0DA_7A00)
        let authenticator = SoftwareAuthenticator(.es256)
        let seed = authenticator.authenticatorData(flags: 0x45, signCount: 7, extensions: .pairs([(.text("ext"), .bytes([1, 2]))]))
        let deadline = ContinuousClock.now + Self.timeBudget
        for _ in 0..<3000 where ContinuousClock.now < deadline {
            var bytes = seed
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                if Bool.random(using: &generator) {
                    bytes[index] = UInt8.random(in: 0...255, using: &generator)
                } else {
                    bytes.removeSubrange(index...)
                    if bytes.isEmpty { bytes = [0x45] }
                }
            }
            _ = try? AuthenticatorData(bytes)
        }
    }

    @Test("mutated assertions are refused with a WebAuthnError, never a trap")
    func mutatedAssertions() {
        var generator = SeededGenerator(seed: 0xA55E_0000)
        let challenge = Array("fuzz-assertion-challenge".utf8)
        let relyingParty = RelyingParty(id: SoftwareAuthenticator.rpID, origins: [SoftwareAuthenticator.origin])
        var authenticator = SoftwareAuthenticator(.es256)
        let seed = authenticator.assert(challenge: challenge)
        let credential = authenticator.stored()
        let deadline = ContinuousClock.now + Self.timeBudget
        var accepted = 0
        for _ in 0..<2000 where ContinuousClock.now < deadline {
            var response = seed
            switch Int.random(in: 0...2, using: &generator) {
            case 0: response.authenticatorData = Self.mutate(response.authenticatorData, using: &generator)
            case 1: response.signature = Self.mutate(response.signature, using: &generator)
            default: response.clientDataJSON = Self.mutate(response.clientDataJSON, using: &generator)
            }
            let outcome = try? relyingParty.verifyAssertion(response, challenge: challenge, credential: credential, requireUserVerification: false)
            if outcome != nil { accepted += 1 }
        }
        // Every mutation changes signed bytes or the signature.
        #expect(accepted == 0)
    }

    static func mutate(_ bytes: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        var bytes = bytes
        let index = Int.random(in: 0..<bytes.count, using: &generator)
        switch Int.random(in: 0...2, using: &generator) {
        case 0: bytes[index] ^= 1 << UInt8.random(in: 0...7, using: &generator)
        case 1: bytes.removeSubrange(index...)
        default: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: index)
        }
        return bytes
    }
}
