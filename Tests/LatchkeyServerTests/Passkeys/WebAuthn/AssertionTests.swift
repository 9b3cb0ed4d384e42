import Testing

@testable import LatchkeyServer

/// Assertion verification (§7.2) with the hand-made authenticator.
@Suite("WebAuthn assertion")
struct AssertionTests {
    static let relyingParty = RelyingParty(id: SoftwareAuthenticator.rpID, origins: [SoftwareAuthenticator.origin])
    static let challenge = Array("assertion-challenge-32-bytes-ok!".utf8)

    func verify(
        _ response: AssertionResponse, credential: StoredCredential, relyingParty: RelyingParty = relyingParty,
        challenge: [UInt8] = challenge, uv: Bool = false
    ) throws(WebAuthnError) -> AssertionOutcome {
        try relyingParty.verifyAssertion(response, challenge: challenge, credential: credential, requireUserVerification: uv)
    }

    @Test("each algorithm's assertion verifies, with its counter, flags and user handle", arguments: COSEAlgorithm.allCases)
    func accepted(algorithm: COSEAlgorithm) throws {
        var authenticator = SoftwareAuthenticator(algorithm)
        let outcome = try verify(authenticator.assert(challenge: Self.challenge, flags: 0x05), credential: authenticator.stored(), uv: true)
        #expect(outcome == .verified(VerifiedAssertion(signCount: 1, backedUp: false, userVerified: true, userHandle: authenticator.userHandle)))
    }

    @Test("a counter that does not advance is its own outcome; two zeros mean no counter")
    func signCount() throws {
        var authenticator = SoftwareAuthenticator()
        let regressed = try verify(authenticator.assert(challenge: Self.challenge, signCount: 5), credential: authenticator.stored(signCount: 5))
        guard case .signCountRegressed(let result, let stored) = regressed else {
            Issue.record("expected a regression, got \(regressed)")
            return
        }
        #expect(result.signCount == 5 && stored == 5)
        let lower = try verify(authenticator.assert(challenge: Self.challenge, signCount: 2), credential: authenticator.stored(signCount: 9))
        #expect(
            lower
                == .signCountRegressed(
                    VerifiedAssertion(signCount: 2, backedUp: false, userVerified: false, userHandle: authenticator.userHandle), stored: 9))
        let none = try verify(authenticator.assert(challenge: Self.challenge, signCount: 0), credential: authenticator.stored(signCount: 0))
        #expect(none == .verified(VerifiedAssertion(signCount: 0, backedUp: false, userVerified: false, userHandle: authenticator.userHandle)))
        // A counter that drops to 0 after counting is a regression too.
        let dropped = try verify(authenticator.assert(challenge: Self.challenge, signCount: 0), credential: authenticator.stored(signCount: 4))
        #expect(
            dropped
                == .signCountRegressed(
                    VerifiedAssertion(signCount: 0, backedUp: false, userVerified: false, userHandle: authenticator.userHandle), stored: 4))
    }

    @Test("BS may change between assertions, BE may not, BS never without BE")
    func backupFlags() throws {
        var authenticator = SoftwareAuthenticator()
        let synced = try verify(authenticator.assert(challenge: Self.challenge, flags: 0x19), credential: authenticator.stored(backupEligible: true))
        #expect(synced == .verified(VerifiedAssertion(signCount: 1, backedUp: true, userVerified: false, userHandle: authenticator.userHandle)))
        #expect(throws: WebAuthnError.backupEligibilityChanged) {
            try verify(authenticator.assert(challenge: Self.challenge, flags: 0x01), credential: authenticator.stored(backupEligible: true))
        }
        #expect(throws: WebAuthnError.backupEligibilityChanged) {
            try verify(authenticator.assert(challenge: Self.challenge, flags: 0x09), credential: authenticator.stored(backupEligible: false))
        }
        #expect(throws: WebAuthnError.backupStateWithoutEligibility) {
            try verify(authenticator.assert(challenge: Self.challenge, flags: 0x11), credential: authenticator.stored())
        }
    }

    @Test("every tampered assertion is refused with its own reason")
    func refused() {
        var authenticator = SoftwareAuthenticator()
        let stored = authenticator.stored()
        #expect(throws: WebAuthnError.challengeMismatch) { try verify(authenticator.assert(challenge: [1, 2, 3]), credential: stored) }
        #expect(throws: WebAuthnError.originNotAllowed) {
            try verify(authenticator.assert(challenge: Self.challenge, origin: "https://example.com.evil"), credential: stored)
        }
        #expect(throws: WebAuthnError.rpIDHashMismatch) {
            try verify(authenticator.assert(challenge: Self.challenge, rpID: "evil.com"), credential: stored)
        }
        #expect(throws: WebAuthnError.wrongCeremonyType("webauthn.create")) {
            try verify(authenticator.assert(challenge: Self.challenge, type: "webauthn.create"), credential: stored)
        }
        #expect(throws: WebAuthnError.userNotPresent) { try verify(authenticator.assert(challenge: Self.challenge, flags: 0x04), credential: stored) }
        #expect(throws: WebAuthnError.userNotVerified) { try verify(authenticator.assert(challenge: Self.challenge), credential: stored, uv: true) }

        var flipped = authenticator.assert(challenge: Self.challenge)
        flipped.signature[flipped.signature.count - 1] ^= 0x01
        #expect(throws: WebAuthnError.invalidSignature) { try verify(flipped, credential: stored) }
        var otherData = authenticator.assert(challenge: Self.challenge)
        otherData.authenticatorData[36] ^= 0x01  // the counter, which is signed
        #expect(throws: WebAuthnError.invalidSignature) { try verify(otherData, credential: stored) }
        var otherID = authenticator.assert(challenge: Self.challenge)
        otherID.credentialID[0] ^= 0x01
        #expect(throws: WebAuthnError.credentialIDMismatch) { try verify(otherID, credential: stored) }
        let someoneElse = SoftwareAuthenticator()
        var signedByOther = authenticator.assert(challenge: Self.challenge)
        signedByOther.signature = someoneElse.sign(signedByOther.authenticatorData + [0])
        #expect(throws: WebAuthnError.invalidSignature) { try verify(signedByOther, credential: stored) }

        var onlyEdDSA = Self.relyingParty
        onlyEdDSA.algorithms = [.edDSA]
        #expect(throws: WebAuthnError.algorithmNotAllowed(-7)) {
            try verify(authenticator.assert(challenge: Self.challenge), credential: stored, relyingParty: onlyEdDSA)
        }
        var corrupt = stored
        corrupt.publicKey = [0xa0]
        #expect(throws: WebAuthnError.self) { try verify(authenticator.assert(challenge: Self.challenge), credential: corrupt) }
    }
}
