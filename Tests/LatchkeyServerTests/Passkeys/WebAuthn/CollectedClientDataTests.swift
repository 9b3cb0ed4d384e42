import Foundation
import LatchkeyWire
import Testing

@testable import LatchkeyServer

/// clientDataJSON checks (§5.8.1; §7.1 steps 5-10): type, challenge, origin, cross-origin.
@Suite("WebAuthn client data")
struct CollectedClientDataTests: RegistrationVerifying {
    static let relyingParty = RegistrationTests.relyingParty
    static let challenge = RegistrationTests.challenge

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

    @Test("members beyond the checked ones are ignored; the checked ones must have their JSON types")
    func parsing() throws {
        let encoded = Base64URL.encode(Self.challenge)
        let parsed = try CollectedClientData(
            json: Array(
                #"{"type":"webauthn.get","challenge":"\#(encoded)","origin":"https://example.com","tokenBinding":{"status":"present"},"other_keys_can_be_added_here":"x"}"#
                    .utf8))
        #expect(parsed.type == "webauthn.get" && parsed.challenge == Self.challenge && parsed.origin == "https://example.com")
        #expect(!parsed.crossOrigin && parsed.topOrigin == nil)
        for bad in [
            #"{"type":"webauthn.get","challenge":"\#(encoded)","origin":"https://example.com","crossOrigin":"yes"}"#,
            #"{"type":"webauthn.get","challenge":"\#(encoded)","origin":7}"#,
            #"{"type":"webauthn.get","origin":"https://example.com"}"#,
        ] {
            #expect(throws: WebAuthnError.malformedClientData) { try CollectedClientData(json: Array(bad.utf8)) }
        }
        #expect(throws: WebAuthnError.malformedClientData) {
            try CollectedClientData(json: [UInt8](repeating: 0x20, count: CollectedClientData.maximumLength + 1))
        }
        // Not strict base64url: kept as no challenge, so it never matches.
        #expect(try CollectedClientData(json: Array(#"{"type":"t","challenge":"a+b/","origin":"o"}"#.utf8)).challenge == nil)
    }
}
