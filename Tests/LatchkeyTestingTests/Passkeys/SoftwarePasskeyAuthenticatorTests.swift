import Foundation
import Latchkey
import LatchkeyServer
import LatchkeyTesting
import Testing

/// The software authenticator's bytes, checked by the server's own WebAuthn verifier
/// (`RelyingParty`), and its switches and counters.
@Suite("SoftwarePasskeyAuthenticator")
struct SoftwarePasskeyAuthenticatorTests {
    static let relyingParty = RelyingParty(id: "example.com", origins: ["https://example.com"])

    static func creationOptions(user: String = "user-1", excluded: [Data] = []) -> PasskeyCreationOptions {
        PasskeyCreationOptions(
            relyingParty: .init(id: "example.com", name: "Example"),
            user: .init(id: Data(user.utf8), name: "ada@example.com", displayName: "Ada"), challenge: Data((0..<32).map { UInt8($0) }),
            algorithms: [-7, -8, -257], excludedCredentialIDs: excluded)
    }

    static func requestOptions(challenge: Data = Data(repeating: 9, count: 32)) -> PasskeyRequestOptions {
        PasskeyRequestOptions(relyingPartyID: "example.com", challenge: challenge)
    }

    /// Registers with `authenticator` and verifies the answer as the server does.
    static func register(
        _ authenticator: SoftwarePasskeyAuthenticator, user: String = "user-1"
    ) async throws -> (
        PasskeyRegistration, VerifiedRegistration
    ) {
        let options = creationOptions(user: user)
        let registration = try await authenticator.createPasskey(options)
        let verified = try relyingParty.verifyRegistration(
            RegistrationResponse(clientDataJSON: Array(registration.clientDataJSON), attestationObject: Array(registration.attestationObject)),
            challenge: Array(options.challenge), requireUserVerification: true)
        return (registration, verified)
    }

    @Test("A registration passes the server's verification: none attestation, ES256, UV, the credential id it reports")
    func registrationVerifies() async throws {
        let authenticator = SoftwarePasskeyAuthenticator()
        let (registration, verified) = try await Self.register(authenticator)
        #expect(verified.attestationFormat == "none")
        #expect(verified.algorithm == .es256)
        #expect(verified.userVerified)
        #expect(!verified.backupEligible)
        #expect(verified.signCount == 0)
        #expect(Data(verified.credentialID) == registration.credentialID)
        #expect(registration.attachment == "platform")
        let held = await authenticator.credentials(for: "example.com")
        #expect(held.map(\.id) == [registration.credentialID])
        #expect(held.first?.userHandle == Data("user-1".utf8))
        #expect(await authenticator.registrations == 1)
    }

    @Test("An assertion passes the server's verification; each one advances the counter, or none does for a synced passkey")
    func assertionVerifies() async throws {
        for counts in [true, false] {
            let authenticator = SoftwarePasskeyAuthenticator(backedUp: !counts, countsSignatures: counts)
            let (_, verified) = try await Self.register(authenticator)
            var stored = StoredCredential(
                credentialID: verified.credentialID, publicKey: verified.publicKey, signCount: 0, backupEligible: verified.backupEligible)
            for round in 1...2 {
                let challenge = Data(repeating: UInt8(round), count: 32)
                let assertion = try await authenticator.assertPasskey(Self.requestOptions(challenge: challenge))
                #expect(assertion.userHandle == Data("user-1".utf8))
                let outcome = try Self.relyingParty.verifyAssertion(
                    AssertionResponse(
                        credentialID: Array(assertion.credentialID), clientDataJSON: Array(assertion.clientDataJSON),
                        authenticatorData: Array(assertion.authenticatorData), signature: Array(assertion.signature),
                        userHandle: assertion.userHandle.map(Array.init)),
                    challenge: Array(challenge), credential: stored, requireUserVerification: true)
                guard case .verified(let result) = outcome else {
                    Issue.record("the counter regressed: \(outcome)")
                    return
                }
                #expect(result.signCount == (counts ? UInt32(round) : 0))
                #expect(result.backedUp == !counts)
                stored.signCount = result.signCount
            }
            #expect(await authenticator.assertions == 2)
        }
    }

    @Test("Another relying party's challenge is signed for that party only; an empty authenticator has no credentials")
    func noCredentials() async throws {
        let authenticator = SoftwarePasskeyAuthenticator()
        _ = try await Self.register(authenticator)
        await #expect(throws: PasskeyAuthenticatorError.noCredentials) {
            try await authenticator.assertPasskey(PasskeyRequestOptions(relyingPartyID: "other.example", challenge: Data(count: 32)))
        }
        await #expect(throws: PasskeyAuthenticatorError.noCredentials) {
            try await SoftwarePasskeyAuthenticator().assertPasskey(Self.requestOptions())
        }
        await #expect(throws: PasskeyAuthenticatorError.noCredentials) {
            try await authenticator.assertPasskey(
                PasskeyRequestOptions(relyingPartyID: "example.com", challenge: Data(count: 32), allowedCredentialIDs: [Data([1, 2, 3])]))
        }
    }

    @Test("Cancel and refuse: nothing is created or signed, and each is counted")
    func cancelAndRefuse() async throws {
        let authenticator = SoftwarePasskeyAuthenticator(response: .cancel)
        await #expect(throws: PasskeyAuthenticatorError.cancelled) { try await authenticator.createPasskey(Self.creationOptions()) }
        await authenticator.setResponse(.refuse)
        await #expect(throws: PasskeyAuthenticatorError.failed(reason: "the software authenticator was told to refuse")) {
            try await authenticator.createPasskey(Self.creationOptions())
        }
        #expect(await authenticator.credentials(for: "example.com").isEmpty)
        await authenticator.setResponse(.approve)
        _ = try await Self.register(authenticator)
        await authenticator.setResponse(.cancel)
        await #expect(throws: PasskeyAuthenticatorError.cancelled) { try await authenticator.assertPasskey(Self.requestOptions()) }
        #expect(await authenticator.declined == 3)
        #expect(await authenticator.assertions == 0)
    }

    @Test("An excluded credential refuses a second passkey; the same account's passkey is replaced, another account's kept")
    func excludedAndResident() async throws {
        let authenticator = SoftwarePasskeyAuthenticator()
        let (first, _) = try await Self.register(authenticator)
        await #expect(throws: PasskeyAuthenticatorError.credentialExcluded) {
            try await authenticator.createPasskey(Self.creationOptions(excluded: [first.credentialID]))
        }
        let (second, _) = try await Self.register(authenticator)
        let (other, _) = try await Self.register(authenticator, user: "user-2")
        #expect(await authenticator.credentials(for: "example.com").map(\.id) == [second.credentialID, other.credentialID])
    }

    @Test("Without user verification a request that requires it is refused, and the UV flag is clear otherwise")
    func userVerification() async throws {
        let authenticator = SoftwarePasskeyAuthenticator()
        await authenticator.setVerifiesUser(false)
        var options = Self.creationOptions()
        options.userVerification = .required
        await #expect(throws: PasskeyAuthenticatorError.self) { try await authenticator.createPasskey(options) }
        let registration = try await authenticator.createPasskey(Self.creationOptions())
        #expect(throws: WebAuthnError.self) {
            try Self.relyingParty.verifyRegistration(
                RegistrationResponse(clientDataJSON: Array(registration.clientDataJSON), attestationObject: Array(registration.attestationObject)),
                challenge: Array(Self.creationOptions().challenge), requireUserVerification: true)
        }
    }

    @Test("The client data names https:// and the relying party id, or the origin given")
    func origin() async throws {
        let registration = try await SoftwarePasskeyAuthenticator().createPasskey(Self.creationOptions())
        let json = try #require(try JSONSerialization.jsonObject(with: registration.clientDataJSON) as? [String: Any])
        #expect(json["origin"] as? String == "https://example.com")
        #expect(json["type"] as? String == "webauthn.create")
        let custom = try await SoftwarePasskeyAuthenticator(origin: "http://localhost:5173").createPasskey(Self.creationOptions())
        let customJSON = try #require(try JSONSerialization.jsonObject(with: custom.clientDataJSON) as? [String: Any])
        #expect(customJSON["origin"] as? String == "http://localhost:5173")
    }
}
