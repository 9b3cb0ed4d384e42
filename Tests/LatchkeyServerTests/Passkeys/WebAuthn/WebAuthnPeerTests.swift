import Foundation
import LatchkeyTestSupport
import LatchkeyWire
import Testing

@testable import LatchkeyServer

/// The core against implementations nobody here wrote: PyPI soft-webauthn's credentials and
/// assertions must verify, and on genuine and tampered responses (ours and soft-webauthn's)
/// the core and Duo's py_webauthn must reach the same verdict on the same bytes.
@Suite(
    "WebAuthn peers (soft-webauthn, py_webauthn)",
    .enabled(if: WebAuthnPeer.isAvailable, Comment(rawValue: WebAuthnPeer.skipReason)))
struct WebAuthnPeerTests {
    static let rpID = "login.example.com"
    static let origin = "https://login.example.com"
    static let relyingParty = RelyingParty(id: rpID, origins: [origin])

    static func randomChallenge() -> [UInt8] { (0..<32).map { _ in UInt8.random(in: 0...255) } }

    static func bytes(_ text: String) throws -> [UInt8] {
        try #require(Base64URL.decode(text).map { Array($0) })
    }

    @Test("soft-webauthn's credential registers and its assertions verify, counter advancing")
    func softWebAuthnAccepted() async throws {
        let challenge = Self.randomChallenge()
        let assertionChallenges = (0..<3).map { _ in Self.randomChallenge() }
        let userHandle = Array("6b1f0e2a-user".utf8)
        let made = try await WebAuthnPeer.ceremonies(
            rpID: Self.rpID, origin: Self.origin, userHandle: Base64URL.encode(userHandle), challenge: Base64URL.encode(challenge),
            assertionChallenges: assertionChallenges.map { Base64URL.encode($0) })
        print("WebAuthn peers: \(made.versions.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")

        let registration = try Self.relyingParty.verifyRegistration(
            RegistrationResponse(
                clientDataJSON: try Self.bytes(made.registration.clientDataJSON),
                attestationObject: try Self.bytes(made.registration.attestationObject)),
            challenge: challenge, requireUserVerification: false)
        #expect(registration.credentialID == (try Self.bytes(made.registration.id)))
        #expect(registration.algorithm == .es256)
        #expect(registration.attestationType == .none)
        var stored = StoredCredential(
            credentialID: registration.credentialID, publicKey: registration.publicKey, signCount: registration.signCount,
            backupEligible: registration.backupEligible)
        for (index, assertion) in made.assertions.enumerated() {
            let outcome = try Self.relyingParty.verifyAssertion(
                try Self.assertionResponse(assertion, credentialID: registration.credentialID), challenge: assertionChallenges[index],
                credential: stored, requireUserVerification: false)
            guard case .verified(let result) = outcome else {
                Issue.record("assertion \(index): \(outcome)")
                return
            }
            #expect(result.signCount == UInt32(index + 1))
            #expect(result.userHandle == userHandle)
            stored.signCount = result.signCount
        }
    }

    static func assertionResponse(_ assertion: WebAuthnPeer.Assertion, credentialID: [UInt8]) throws -> AssertionResponse {
        AssertionResponse(
            credentialID: credentialID, clientDataJSON: try bytes(assertion.clientDataJSON),
            authenticatorData: try bytes(assertion.authenticatorData), signature: try bytes(assertion.signature),
            userHandle: try assertion.userHandle.map { try bytes($0) })
    }

    /// One response, what both verifiers are told to expect, and what they should conclude.
    struct Case {
        var name: String
        var accepted: Bool
        var check: WebAuthnPeer.Check
        var verdict: @Sendable () -> Bool
    }

    static func registrationCase(
        _ name: String, accepted: Bool, _ response: RegistrationResponse, credentialID: [UInt8], challenge: [UInt8],
        rpID: String = rpID, origin: String = origin, uv: Bool = false
    ) -> Case {
        let check = WebAuthnPeer.Check(
            kind: "registration", credentialID: Base64URL.encode(credentialID), clientDataJSON: Base64URL.encode(response.clientDataJSON),
            attestationObject: Base64URL.encode(response.attestationObject), challenge: Base64URL.encode(challenge), rpID: rpID,
            origin: origin, requireUserVerification: uv)
        return Case(name: name, accepted: accepted, check: check) {
            (try? RelyingParty(id: rpID, origins: [origin]).verifyRegistration(response, challenge: challenge, requireUserVerification: uv)) != nil
        }
    }

    static func assertionCase(
        _ name: String, accepted: Bool, _ response: AssertionResponse, publicKey: [UInt8], signCount: UInt32 = 0,
        challenge: [UInt8], rpID: String = rpID, origin: String = origin, uv: Bool = false
    ) -> Case {
        let check = WebAuthnPeer.Check(
            kind: "assertion", credentialID: Base64URL.encode(response.credentialID),
            clientDataJSON: Base64URL.encode(response.clientDataJSON), authenticatorData: Base64URL.encode(response.authenticatorData),
            signature: Base64URL.encode(response.signature), userHandle: response.userHandle.map { Base64URL.encode($0) },
            challenge: Base64URL.encode(challenge), rpID: rpID, origin: origin, publicKey: Base64URL.encode(publicKey),
            signCount: Int(signCount), requireUserVerification: uv)
        let credential = StoredCredential(credentialID: response.credentialID, publicKey: publicKey, signCount: signCount, backupEligible: false)
        return Case(name: name, accepted: accepted, check: check) {
            guard
                let outcome = try? RelyingParty(id: rpID, origins: [origin]).verifyAssertion(
                    response, challenge: challenge, credential: credential, requireUserVerification: uv)
            else { return false }
            if case .verified = outcome { return true }
            return false  // a regressed counter: py_webauthn refuses it outright
        }
    }

    /// `response` with its authenticator data's flags byte replaced (none attestation: unsigned).
    static func withFlags(_ response: RegistrationResponse, _ flags: UInt8) throws -> RegistrationResponse {
        let object = try CBORDecoder.decode(response.attestationObject)
        var authData = try #require(object["authData"]?.bytes)
        authData[32] = flags
        var changed = response
        changed.attestationObject = CBOREncoder.encode(
            .map(object.map!.map { $0.key == .text("authData") ? CBORMapEntry(key: $0.key, value: .bytes(authData)) : $0 }))
        return changed
    }

    static func replacing(_ bytes: [UInt8], _ old: String, _ new: String) -> [UInt8] {
        Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: old, with: new).utf8)
    }

    @Test("py_webauthn and the core agree on genuine and tampered responses")
    func verdictsAgree() async throws {
        var cases: [Case] = []

        // soft-webauthn's bytes.
        let challenge = Self.randomChallenge()
        let assertionChallenges = [Self.randomChallenge(), Self.randomChallenge()]
        let made = try await WebAuthnPeer.ceremonies(
            rpID: Self.rpID, origin: Self.origin, userHandle: Base64URL.encode(Array("user".utf8)), challenge: Base64URL.encode(challenge),
            assertionChallenges: assertionChallenges.map { Base64URL.encode($0) })
        let credentialID = try Self.bytes(made.registration.id)
        let registration = RegistrationResponse(
            clientDataJSON: try Self.bytes(made.registration.clientDataJSON), attestationObject: try Self.bytes(made.registration.attestationObject))
        let publicKey = try Self.relyingParty.verifyRegistration(registration, challenge: challenge, requireUserVerification: false).publicKey
        let assertion = try Self.assertionResponse(made.assertions[0], credentialID: credentialID)

        cases.append(Self.registrationCase("soft: registration", accepted: true, registration, credentialID: credentialID, challenge: challenge))
        cases.append(
            Self.registrationCase(
                "soft: registration, other origin expected", accepted: false, registration, credentialID: credentialID, challenge: challenge,
                origin: "https://evil.example"))
        cases.append(
            Self.registrationCase(
                "soft: registration, other RP ID", accepted: false, registration, credentialID: credentialID, challenge: challenge,
                rpID: "example.org", origin: Self.origin))
        cases.append(
            Self.registrationCase(
                "soft: registration, other challenge", accepted: false, registration, credentialID: credentialID, challenge: Self.randomChallenge()))
        cases.append(
            Self.registrationCase(
                "soft: registration, UP cleared", accepted: false, try Self.withFlags(registration, 0x40), credentialID: credentialID,
                challenge: challenge))
        cases.append(
            Self.registrationCase(
                "soft: registration, UV required", accepted: false, registration, credentialID: credentialID, challenge: challenge, uv: true))
        var wrongType = registration
        wrongType.clientDataJSON = Self.replacing(registration.clientDataJSON, "webauthn.create", "webauthn.get")
        cases.append(
            Self.registrationCase(
                "soft: registration, type webauthn.get", accepted: false, wrongType, credentialID: credentialID, challenge: challenge))

        cases.append(Self.assertionCase("soft: assertion", accepted: true, assertion, publicKey: publicKey, challenge: assertionChallenges[0]))
        cases.append(
            Self.assertionCase(
                "soft: assertion replayed for another challenge", accepted: false, assertion, publicKey: publicKey, challenge: assertionChallenges[1])
        )
        cases.append(
            Self.assertionCase(
                "soft: assertion, other origin expected", accepted: false, assertion, publicKey: publicKey, challenge: assertionChallenges[0],
                origin: "https://login.example.org"))
        cases.append(
            Self.assertionCase(
                "soft: assertion, other RP ID", accepted: false, assertion, publicKey: publicKey, challenge: assertionChallenges[0],
                rpID: "example.com"))
        cases.append(
            Self.assertionCase(
                "soft: assertion, counter regressed", accepted: false, assertion, publicKey: publicKey, signCount: 5,
                challenge: assertionChallenges[0]))
        cases.append(
            Self.assertionCase(
                "soft: assertion, UV required", accepted: false, assertion, publicKey: publicKey, challenge: assertionChallenges[0], uv: true))
        var flipped = assertion
        flipped.signature[flipped.signature.count - 1] ^= 0x01
        cases.append(
            Self.assertionCase(
                "soft: assertion, signature byte flipped", accepted: false, flipped, publicKey: publicKey, challenge: assertionChallenges[0]))
        var upCleared = assertion
        upCleared.authenticatorData[32] &= ~0x01
        cases.append(
            Self.assertionCase("soft: assertion, UP cleared", accepted: false, upCleared, publicKey: publicKey, challenge: assertionChallenges[0]))
        var getAsCreate = assertion
        getAsCreate.clientDataJSON = Self.replacing(assertion.clientDataJSON, "webauthn.get", "webauthn.create")
        cases.append(
            Self.assertionCase(
                "soft: assertion, type webauthn.create", accepted: false, getAsCreate, publicKey: publicKey, challenge: assertionChallenges[0]))

        // The hand-made authenticator's bytes, for algorithms, attestation and flags soft-webauthn lacks.
        for algorithm in COSEAlgorithm.allCases {
            var authenticator = SoftwareAuthenticator(algorithm)
            let name = "swift \(algorithm)"
            let made = authenticator.register(
                challenge: challenge, flags: 0x45, attestation: .packedSelf, extensions: .pairs([(.text("credProtect"), .unsigned(2))]),
                origin: Self.origin, rpID: Self.rpID)
            cases.append(
                Self.registrationCase(
                    "\(name): packed self, UV, extensions", accepted: true, made, credentialID: authenticator.credentialID, challenge: challenge,
                    uv: true))
            let unverified = authenticator.register(challenge: challenge, attestation: .packedSelf, origin: Self.origin, rpID: Self.rpID)
            cases.append(
                Self.registrationCase(
                    "\(name): packed self, UV required", accepted: false, unverified, credentialID: authenticator.credentialID, challenge: challenge,
                    uv: true))
            let key = authenticator.coseKeyBytes
            let good = authenticator.assert(challenge: challenge, origin: Self.origin, rpID: Self.rpID)
            cases.append(Self.assertionCase("\(name): assertion", accepted: true, good, publicKey: key, challenge: challenge))
            let absent = authenticator.assert(challenge: challenge, flags: 0x00, origin: Self.origin, rpID: Self.rpID)
            cases.append(Self.assertionCase("\(name): assertion signed without UP", accepted: false, absent, publicKey: key, challenge: challenge))
            let otherRP = authenticator.assert(challenge: challenge, origin: Self.origin, rpID: "example.net")
            cases.append(
                Self.assertionCase("\(name): assertion signed for another RP ID", accepted: false, otherRP, publicKey: key, challenge: challenge))
            var flippedSignature = authenticator.assert(challenge: challenge, origin: Self.origin, rpID: Self.rpID)
            flippedSignature.signature[flippedSignature.signature.count / 2] ^= 0x80
            cases.append(
                Self.assertionCase(
                    "\(name): assertion, signature byte flipped", accepted: false, flippedSignature, publicKey: key, challenge: challenge))
            let stale = authenticator.assert(challenge: challenge, signCount: 3, origin: Self.origin, rpID: Self.rpID)
            cases.append(
                Self.assertionCase(
                    "\(name): assertion, counter regressed", accepted: false, stale, publicKey: key, signCount: 3, challenge: challenge))
        }

        let verdicts = try await WebAuthnPeer.verify(cases.map(\.check))
        for (item, verdict) in zip(cases, verdicts) {
            let ours = item.verdict()
            #expect(ours == item.accepted, "\(item.name): the core \(ours ? "accepted" : "refused")")
            #expect(verdict.ok == item.accepted, "\(item.name): py_webauthn \(verdict.ok ? "accepted" : "refused: \(verdict.error ?? "")")")
        }
    }
}
