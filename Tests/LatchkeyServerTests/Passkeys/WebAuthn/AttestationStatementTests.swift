import Crypto
import Testing

@testable import LatchkeyServer

/// Attestation objects and statements (§6.5, §8.2 packed, §8.7 none).
@Suite("WebAuthn attestation statements")
struct AttestationStatementTests: RegistrationVerifying {
    static let relyingParty = RegistrationTests.relyingParty
    static let challenge = RegistrationTests.challenge

    @Test("attestation objects and statements that do not fit their format are refused")
    func attestationShape() throws {
        let authenticator = SoftwareAuthenticator()
        let good = authenticator.register(challenge: Self.challenge, attestation: .packedSelf)
        let object = try CBORDecoder.decode(good.attestationObject)
        let authData = try #require(object["authData"])
        func with(_ pairs: [(CBORValue, CBORValue)]) -> RegistrationResponse {
            var response = good
            response.attestationObject = CBOREncoder.encode(.pairs(pairs))
            return response
        }
        let statement = try #require(object["attStmt"])
        #expect(throws: WebAuthnError.malformedAttestationObject(.trailingBytes)) {
            var response = good
            response.attestationObject += [0]
            return try verify(response)
        }
        #expect(throws: WebAuthnError.malformedAttestationObject(nil)) {
            try verify(with([(.text("fmt"), .text("none")), (.text("authData"), authData)]))
        }
        #expect(throws: WebAuthnError.unsupportedAttestationFormat("tpm")) {
            try verify(with([(.text("fmt"), .text("tpm")), (.text("attStmt"), statement), (.text("authData"), authData)]))
        }
        #expect(throws: WebAuthnError.malformedAttestationStatement) {
            try verify(with([(.text("fmt"), .text("none")), (.text("attStmt"), statement), (.text("authData"), authData)]))
        }
        #expect(throws: WebAuthnError.malformedAttestationStatement) {
            try verify(with([(.text("fmt"), .text("packed")), (.text("attStmt"), .map([])), (.text("authData"), authData)]))
        }
        let wrongAlg = CBORValue.pairs([(.text("alg"), .int(-8)), (.text("sig"), statement["sig"]!)])
        #expect(throws: WebAuthnError.attestationAlgorithmMismatch) {
            try verify(with([(.text("fmt"), .text("packed")), (.text("attStmt"), wrongAlg), (.text("authData"), authData)]))
        }
        var signature = try #require(statement["sig"]?.bytes)
        signature[signature.count - 1] ^= 1
        let badSignature = CBORValue.pairs([(.text("alg"), .int(-7)), (.text("sig"), .bytes(signature))])
        #expect(throws: WebAuthnError.invalidAttestationSignature) {
            try verify(with([(.text("fmt"), .text("packed")), (.text("attStmt"), badSignature), (.text("authData"), authData)]))
        }
        // The packed signature covers the client data: another challenge's client data breaks it
        // even when the challenge matches what the relying party expects.
        var swapped = good
        swapped.clientDataJSON = SoftwareAuthenticator.clientDataJSON(type: "webauthn.create", challenge: Self.challenge, extra: #","x":1"#)
        #expect(throws: WebAuthnError.invalidAttestationSignature) { try verify(swapped) }
    }

    @Test("packed x5c: a certificate meeting §8.2.1 verifies; a wrong key, OU, CA flag or AAGUID is refused")
    func packedX5C() throws {
        let authenticator = SoftwareAuthenticator()
        let attestationKey = P256.Signing.PrivateKey()
        let certificate = try SoftwareAuthenticator.attestationCertificate(key: attestationKey, aaguid: authenticator.aaguid)
        let result = try verify(
            authenticator.register(challenge: Self.challenge, attestation: .packedX5C(certificate: certificate, key: attestationKey)))
        #expect(result.attestationType == .basic)
        let noAAGUID = try SoftwareAuthenticator.attestationCertificate(key: attestationKey, aaguid: nil)
        #expect(throws: Never.self) {
            try verify(authenticator.register(challenge: Self.challenge, attestation: .packedX5C(certificate: noAAGUID, key: attestationKey)))
        }

        #expect(throws: WebAuthnError.invalidAttestationSignature) {
            try verify(
                authenticator.register(challenge: Self.challenge, attestation: .packedX5C(certificate: certificate, key: P256.Signing.PrivateKey())))
        }
        let wrongOU = try SoftwareAuthenticator.attestationCertificate(key: attestationKey, organizationalUnit: "Sales", aaguid: nil)
        #expect(throws: WebAuthnError.invalidAttestationCertificate("subject OU is not Authenticator Attestation")) {
            try verify(authenticator.register(challenge: Self.challenge, attestation: .packedX5C(certificate: wrongOU, key: attestationKey)))
        }
        let authority = try SoftwareAuthenticator.attestationCertificate(key: attestationKey, isCA: true, aaguid: nil)
        #expect(throws: WebAuthnError.invalidAttestationCertificate("is a CA")) {
            try verify(authenticator.register(challenge: Self.challenge, attestation: .packedX5C(certificate: authority, key: attestationKey)))
        }
        let otherModel = try SoftwareAuthenticator.attestationCertificate(key: attestationKey, aaguid: [UInt8](repeating: 0xee, count: 16))
        #expect(throws: WebAuthnError.invalidAttestationCertificate("AAGUID differs")) {
            try verify(authenticator.register(challenge: Self.challenge, attestation: .packedX5C(certificate: otherModel, key: attestationKey)))
        }
        #expect(throws: WebAuthnError.invalidAttestationCertificate("not an X.509 certificate")) {
            try verify(authenticator.register(challenge: Self.challenge, attestation: .packedX5C(certificate: [0x30, 0x00], key: attestationKey)))
        }
    }
}
