import Crypto
import Foundation
import LatchkeyWire
import Testing

@testable import LatchkeyServer

/// Registration verification (§7.1) with the hand-made authenticator.
@Suite("WebAuthn registration")
struct RegistrationTests {
    static let relyingParty = RelyingParty(id: SoftwareAuthenticator.rpID, origins: [SoftwareAuthenticator.origin])
    static let challenge = Array("registration-challenge-32-bytes!".utf8)

    func verify(
        _ response: RegistrationResponse, relyingParty: RelyingParty = relyingParty, challenge: [UInt8] = challenge, uv: Bool = false
    ) throws(WebAuthnError) -> VerifiedRegistration {
        try relyingParty.verifyRegistration(response, challenge: challenge, requireUserVerification: uv)
    }

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

    @Test("client data: type, challenge, origin and cross-origin checks")
    func clientData() throws {
        let authenticator = SoftwareAuthenticator()
        #expect(throws: WebAuthnError.challengeMismatch) { try verify(authenticator.register(challenge: Array("other".utf8))) }
        #expect(throws: WebAuthnError.originNotAllowed) {
            try verify(authenticator.register(challenge: Self.challenge, origin: "https://evil.example"))
        }
        #expect(throws: WebAuthnError.originNotAllowed) {
            try verify(authenticator.register(challenge: Self.challenge, origin: "http://example.com"))
        }
        #expect(throws: WebAuthnError.rpIDHashMismatch) { try verify(authenticator.register(challenge: Self.challenge, rpID: "evil.example")) }

        var response = authenticator.register(challenge: Self.challenge)
        response.clientDataJSON = SoftwareAuthenticator.clientDataJSON(type: "webauthn.get", challenge: Self.challenge)
        #expect(throws: WebAuthnError.wrongCeremonyType("webauthn.get")) { try verify(response) }
        response.clientDataJSON = SoftwareAuthenticator.clientDataJSON(type: "payment.get", challenge: Self.challenge)
        #expect(throws: WebAuthnError.wrongCeremonyType("other")) { try verify(response) }
        for bad in ["", "[]", "{}", #"{"type":"webauthn.create","challenge":1,"origin":"https://example.com"}"#, "\u{1}"] {
            response.clientDataJSON = Array(bad.utf8)
            #expect(throws: WebAuthnError.malformedClientData) { try verify(response) }
        }
        // Padded or standard base64 is not the challenge's base64url.
        response.clientDataJSON = Array(
            #"{"type":"webauthn.create","challenge":"\#(Data(Self.challenge).base64EncodedString())=","origin":"https://example.com"}"#.utf8)
        #expect(throws: WebAuthnError.challengeMismatch) { try verify(response) }

        // Cross-origin: refused unless the relying party names the top origin.
        let encoded = Base64URL.encode(Self.challenge)
        response.clientDataJSON = Array(
            #"{"type":"webauthn.create","challenge":"\#(encoded)","origin":"https://example.com","crossOrigin":true,"topOrigin":"https://shop.example"}"#
                .utf8)
        #expect(throws: WebAuthnError.topOriginNotAllowed) { try verify(response) }
        var allowing = Self.relyingParty
        allowing.topOrigins = ["https://shop.example"]
        #expect(throws: Never.self) { try verify(response, relyingParty: allowing) }
        response.clientDataJSON = Array(
            #"{"type":"webauthn.create","challenge":"\#(encoded)","origin":"https://example.com","crossOrigin":true}"#.utf8)
        #expect(throws: WebAuthnError.crossOriginNotAllowed) { try verify(response) }
    }

    @Test("algorithms outside the relying party's list are refused")
    func algorithms() {
        var onlyES256 = Self.relyingParty
        onlyES256.algorithms = [.es256]
        #expect(throws: WebAuthnError.algorithmNotAllowed(-8)) {
            try verify(SoftwareAuthenticator(.edDSA).register(challenge: Self.challenge), relyingParty: onlyES256)
        }
    }

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
