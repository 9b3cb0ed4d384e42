import Crypto
import Foundation
import Testing

@testable import LatchkeyServer

/// Authenticator data (§6.1): fields, flags, attested credential data and extensions.
@Suite("Authenticator data")
struct AuthenticatorDataTests {
    @Test("fields and flags read as laid out, attested credential data and extensions included")
    func fields() throws {
        let authenticator = SoftwareAuthenticator(.edDSA)
        let extensions = CBORValue.pairs([(.text("credProtect"), .unsigned(2))])
        let bytes = authenticator.authenticatorData(flags: 0x5d, signCount: 0x0102_0304, extensions: extensions)
        let data = try AuthenticatorData(bytes)
        #expect(data.rpIDHash == Array(SHA256.hash(data: Array("example.com".utf8))))
        #expect(data.flags == [.userPresent, .userVerified, .backupEligible, .backedUp, .attestedCredentialData, .extensionData])
        #expect(data.signCount == 0x0102_0304)
        #expect(data.extensions == extensions)
        let credential = try #require(data.attestedCredential)
        #expect(credential.credentialID == authenticator.credentialID)
        #expect(credential.publicKeyBytes == authenticator.coseKeyBytes)
        #expect(credential.publicKey.algorithm == .edDSA)
        #expect(withUnsafeBytes(of: credential.aaguid.uuid) { Array($0) } == authenticator.aaguid)
    }

    @Test("an assertion's authenticator data is 37 bytes: nothing more unless ED says so")
    func assertionShape() throws {
        let authenticator = SoftwareAuthenticator()
        let plain = authenticator.authenticatorData(flags: 0x01, signCount: 3)
        #expect(plain.count == 37)
        #expect(try AuthenticatorData(plain).attestedCredential == nil)
        #expect(throws: WebAuthnError.malformedAuthenticatorData) { try AuthenticatorData(plain + [0xa0]) }
        #expect(throws: WebAuthnError.malformedAuthenticatorData) { try AuthenticatorData(Array(plain.dropLast())) }
        #expect(try AuthenticatorData(authenticator.authenticatorData(flags: 0x01, signCount: 3, extensions: .map([]))).extensions == .map([]))
    }

    @Test("malformed attested credential data and extensions are refused")
    func malformed() {
        let authenticator = SoftwareAuthenticator()
        let registration = authenticator.authenticatorData(flags: 0x41, signCount: 0)
        // Cut inside the AAGUID, the id length, the id and the key.
        for cut in [40, 53, 54, 60, registration.count - 1] {
            #expect(throws: WebAuthnError.self) { try AuthenticatorData(Array(registration[..<cut])) }
        }
        // Trailing bytes after the key without ED, and extensions that are not a map or not whole.
        #expect(throws: WebAuthnError.malformedAuthenticatorData) { try AuthenticatorData(registration + [0x00]) }
        var withExtensions = registration
        withExtensions[32] |= 0x80
        #expect(throws: WebAuthnError.malformedAuthenticatorData) { try AuthenticatorData(withExtensions) }
        #expect(throws: WebAuthnError.malformedAuthenticatorData) { try AuthenticatorData(withExtensions + [0x01]) }
        #expect(throws: WebAuthnError.malformedAuthenticatorData) { try AuthenticatorData(withExtensions + [0xa1, 0x01]) }
        #expect(throws: WebAuthnError.malformedAuthenticatorData) { try AuthenticatorData(withExtensions + [0xa0, 0xa0]) }
    }

    @Test("credential ids longer than 1023 bytes are refused, 1023 is accepted")
    func credentialIDLength() throws {
        let authenticator = SoftwareAuthenticator()
        func data(idLength: Int) -> [UInt8] {
            Array(SHA256.hash(data: Array("example.com".utf8))) + [0x41, 0, 0, 0, 0] + authenticator.aaguid
                + [UInt8(idLength >> 8), UInt8(idLength & 0xff)] + [UInt8](repeating: 9, count: idLength) + authenticator.coseKeyBytes
        }
        #expect(try AuthenticatorData(data(idLength: 1023)).attestedCredential?.credentialID.count == 1023)
        #expect(throws: WebAuthnError.credentialIDTooLong) { try AuthenticatorData(data(idLength: 1024)) }
        #expect(throws: WebAuthnError.credentialIDTooLong) { try AuthenticatorData(Array(data(idLength: 0)[..<53]) + [0xff, 0xff]) }
    }
}
