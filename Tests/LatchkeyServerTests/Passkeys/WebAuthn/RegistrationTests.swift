import Foundation
import Testing

@testable import LatchkeyServer

/// Registration verification (§7.1) with the hand-made authenticator.
@Suite("WebAuthn registration")
struct RegistrationTests: RegistrationVerifying {
    static let relyingParty = RelyingParty(id: SoftwareAuthenticator.rpID, origins: [SoftwareAuthenticator.origin])
    static let challenge = Array("registration-challenge-32-bytes!".utf8)

    @Test("none and packed self attestation with each algorithm give what is stored", arguments: COSEAlgorithm.allCases)
    func accepted(algorithm: COSEAlgorithm) throws {
        let authenticator = SoftwareAuthenticator(algorithm)
        for (attestation, type) in [(SoftwareAuthenticator.Attestation.none, AttestationType.none), (.packedSelf, .selfAttestation)] {
            let result = try verify(
                authenticator.register(challenge: Self.challenge, attestation: attestation, transports: ["internal", "hybrid", "internal"]))
            #expect(result.credentialID == authenticator.credentialID)
            #expect(result.publicKey == authenticator.coseKeyBytes)
            #expect(result.algorithm == algorithm)
            #expect(result.signCount == 0)
            #expect(!result.backupEligible && !result.backedUp && !result.userVerified)
            #expect(withUnsafeBytes(of: result.aaguid.uuid) { Array($0) } == authenticator.aaguid)
            #expect(result.transports == ["internal", "hybrid"])
            #expect(result.attestationType == type)
            #expect(result.attestationFormat == (type == .none ? "none" : "packed"))
        }
    }

    @Test("BE, BS and UV are reported; BS without BE is refused; UV is enforced when required")
    func flags() throws {
        let authenticator = SoftwareAuthenticator()
        let synced = try verify(authenticator.register(challenge: Self.challenge, flags: 0x5d), uv: true)
        #expect(synced.backupEligible && synced.backedUp && synced.userVerified)
        let eligible = try verify(authenticator.register(challenge: Self.challenge, flags: 0x49))
        #expect(eligible.backupEligible && !eligible.backedUp)
        #expect(throws: WebAuthnError.backupStateWithoutEligibility) { try verify(authenticator.register(challenge: Self.challenge, flags: 0x51)) }
        #expect(throws: WebAuthnError.userNotVerified) { try verify(authenticator.register(challenge: Self.challenge), uv: true) }
        #expect(throws: WebAuthnError.userNotPresent) { try verify(authenticator.register(challenge: Self.challenge, flags: 0x44)) }
        #expect(throws: WebAuthnError.missingAttestedCredentialData) { try verify(authenticator.register(challenge: Self.challenge, flags: 0x01)) }
    }

    @Test("extensions after the credential key are read, and the key still found")
    func extensionsAfterKey() throws {
        let authenticator = SoftwareAuthenticator(.es256)
        let response = authenticator.register(
            challenge: Self.challenge, attestation: .packedSelf,
            extensions: .pairs([(.text("credProtect"), .unsigned(2)), (.text("hmac-secret"), .bool(true))]))
        let result = try verify(response)
        #expect(result.publicKey == authenticator.coseKeyBytes)
    }

    @Test("algorithms outside the relying party's list are refused")
    func algorithms() {
        var onlyES256 = Self.relyingParty
        onlyES256.algorithms = [.es256]
        #expect(throws: WebAuthnError.algorithmNotAllowed(-8)) {
            try verify(SoftwareAuthenticator(.edDSA).register(challenge: Self.challenge), relyingParty: onlyES256)
        }
    }

}

/// Suites that verify registrations against ``RegistrationTests``' relying party and challenge
/// unless a test gives its own.
protocol RegistrationVerifying {}

extension RegistrationVerifying {
    func verify(
        _ response: RegistrationResponse, relyingParty: RelyingParty = RegistrationTests.relyingParty,
        challenge: [UInt8] = RegistrationTests.challenge, uv: Bool = false
    ) throws(WebAuthnError) -> VerifiedRegistration {
        try relyingParty.verifyRegistration(response, challenge: challenge, requireUserVerification: uv)
    }
}
