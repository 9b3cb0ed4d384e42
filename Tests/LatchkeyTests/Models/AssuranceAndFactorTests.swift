import Foundation
import LatchkeyTestSupport
import LatchkeyWire
import Testing

@testable import Latchkey

@Suite("Assurance level and factors")
struct AssuranceAndFactorTests {
    /// A GoTrue session whose user has a verified and an unverified factor.
    static let sessionWithFactors = #"""
        {
          "access_token": "ACCESS",
          "token_type": "bearer",
          "expires_in": 3600,
          "refresh_token": "r",
          "user": {
            "id": "u-1",
            "email": "ada@example.com",
            "factors": [
              {"id": "f-1", "friendly_name": "Phone", "factor_type": "totp", "status": "verified",
               "created_at": "2025-06-15T15:06:40.123456Z", "updated_at": "2025-06-15T15:07:40Z"},
              {"id": "f-2", "friendly_name": "", "factor_type": "totp", "status": "unverified",
               "created_at": "2025-06-16T15:06:40Z", "updated_at": "2025-06-16T15:06:40Z"},
              {"id": "f-3", "factor_type": "totp", "status": "someday", "created_at": "2025-06-16T15:06:40Z"}
            ]
          }
        }
        """#

    func session(accessToken: String) throws -> Session {
        let json = Self.sessionWithFactors.replacingOccurrences(of: "ACCESS", with: accessToken)
        return Session(wire: try GoTrueBackend.decoder.decode(SessionResponse.self, from: Data(json.utf8)))
    }

    @Test("aal and amr are read from the access token; newest method first as listed")
    func decodesClaims() throws {
        let aal2 = TestBackend.unsignedJWT(counter: 1, aal: "aal2")
        let assurance = try session(accessToken: aal2).assurance
        #expect(assurance.level == .aal2)
        #expect(assurance.methodNames == ["totp", "password"])
        #expect(assurance.methods.first?.timestamp == Date(timeIntervalSince1970: 1_700_000_100))
        #expect(try session(accessToken: TestBackend.unsignedJWT(counter: 1, aal: "aal1")).assurance.level == .aal1)
    }

    @Test("A token without aal, an unknown level, or not a JWT reads as aal1 (as GoTrue reads it)")
    func defaultsToAAL1() throws {
        #expect(try session(accessToken: "opaque").assurance == SessionAssurance(level: .aal1))
        #expect(try session(accessToken: "a.%%%.c").assurance.level == .aal1)
        let unknown = TestBackend.unsignedJWT(counter: 1, aal: "aal9")
        #expect(try session(accessToken: unknown).assurance.level == .aal1)
        #expect(AssuranceLevel.aal1 < .aal2 && AssuranceLevel.aal2 < .aal3)
    }

    @Test("Factors are read from the user object; an empty name is none, an unknown status is unverified")
    func decodesFactors() throws {
        let user = try session(accessToken: "x").user
        #expect(user.factors.map(\.id) == ["f-1", "f-2", "f-3"])
        #expect(
            user.factors[0]
                == Factor(
                    id: "f-1", friendlyName: "Phone", status: .verified,
                    createdAt: WireDate.parse("2025-06-15T15:06:40.123456Z"), updatedAt: WireDate.parse("2025-06-15T15:07:40Z")))
        #expect(user.factors[1].friendlyName == nil)
        #expect(user.factors[2].status == .unverified)
        #expect(user.hasVerifiedFactor)
        #expect(user.factors[0].isVerifiedTOTP)
    }

    @Test("A second factor is required at aal1 with a verified factor; not at aal2, nor without one")
    func requiresSecondFactor() throws {
        #expect(try session(accessToken: TestBackend.unsignedJWT(counter: 1, aal: "aal1")).requiresSecondFactor)
        #expect(try !session(accessToken: TestBackend.unsignedJWT(counter: 1, aal: "aal2")).requiresSecondFactor)
        var plain = try session(accessToken: TestBackend.unsignedJWT(counter: 1, aal: "aal1"))
        plain = plain.replacingUser(User(id: "u-1", factors: [Factor(id: "f-2", status: .unverified)]))
        #expect(!plain.requiresSecondFactor, "an unverified factor does not protect the account yet")
    }

    @Test("Factors survive the credential store exactly")
    func storedRoundTrip() throws {
        let original = try session(accessToken: TestBackend.unsignedJWT(counter: 1, aal: "aal2"))
        let record = StoredSession(
            session: original, signedInAt: Date(timeIntervalSince1970: 1000), lastServerContact: Date(timeIntervalSince1970: 2000))
        let restored = try StoredSession.decode(try record.encoded())
        #expect(restored.session.user.factors == original.user.factors)
        #expect(restored.session.assurance == original.assurance)
        // A session stored before factors existed reads as having none.
        let legacy = StoredSession(session: sampleSession(issuedAt: Date()), signedInAt: Date(), lastServerContact: Date())
        #expect(try StoredSession.decode(try legacy.encoded()).session.user.factors.isEmpty)
    }

    @Test("Enrollments, wire responses and verify bodies never print the secret or the code")
    func redaction() {
        let enrollment = TOTPEnrollment(
            factorID: "f-1", friendlyName: "Phone", secret: "JBSWY3DPEHPK3PXP",
            uri: "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP", qrCodeSVG: "<svg>JBSWY3DPEHPK3PXP</svg>")
        let wire = EnrollFactorResponse(
            id: "f-1", type: "totp", friendly_name: "Phone",
            totp: .init(qr_code: "<svg/>", secret: "JBSWY3DPEHPK3PXP", uri: "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP"))
        // (VerifyFactorBody, LatchkeyWire's, redacts its description; dump is not redacted there.)
        let body = VerifyFactorBody(challenge_id: "c-1", code: "492039")
        var dumped = ""
        dump(enrollment, to: &dumped)
        dump(wire, to: &dumped)
        for text in ["\(enrollment)", String(reflecting: enrollment), "\(wire)", "\(body)", dumped] {
            #expect(!text.contains("JBSWY3DPEHPK3PXP"), "\(text)")
            #expect(!text.contains("492039"), "\(text)")
        }
        #expect("\(body)".contains("c-1"))
    }
}
