import Foundation
import LatchkeyWire
import Testing

@Suite("MFA wire types")
struct MFAWireTests {
    @Test("a factor is written as GoTrue writes it: no empty friendly_name, null phone and last_challenged_at")
    func factorShape() throws {
        let factor = FactorResponse(
            id: "f", factor_type: "totp", status: "unverified", friendly_name: "", created_at: "2024-05-01T12:00:00.000000Z",
            updated_at: "2024-05-01T12:00:00.000000Z", last_challenged_at: nil)
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(factor)) as? [String: Any])
        #expect(object["friendly_name"] == nil)
        #expect(object["phone"] is NSNull && object["last_challenged_at"] is NSNull)
        #expect(try JSONDecoder().decode(FactorResponse.self, from: JSONEncoder().encode(factor)).friendly_name == nil)
    }

    @Test("a user without factors leaves the field out; one with factors reads them back")
    func userFactors() throws {
        var user = UserResponse(id: "u")
        #expect(!String(decoding: try JSONEncoder().encode(user), as: UTF8.self).contains("factors"))
        user.factors = [
            FactorResponse(
                id: "f", factor_type: "totp", status: "verified", friendly_name: "phone", created_at: nil, updated_at: nil, last_challenged_at: nil)
        ]
        #expect(try JSONDecoder().decode(UserResponse.self, from: JSONEncoder().encode(user)).factors?.first?.status == "verified")
        let odd = try JSONDecoder().decode(UserResponse.self, from: Data(#"{"id":"u","factors":"nonsense"}"#.utf8))
        #expect(odd.factors == nil, "a field of an unexpected type reads as absent")
    }

    @Test("the enrolment's secret and the verification code never print")
    func redaction() {
        let enrolled = EnrollFactorResponse(
            id: "f", type: "totp", friendly_name: "",
            totp: .init(qr_code: "", secret: "JBSWY3DPEHPK3PXP", uri: "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP"))
        let body = VerifyFactorBody(challenge_id: "c", code: "123456")
        for text in ["\(enrolled)", String(reflecting: enrolled), "\(body)", String(reflecting: body)] {
            #expect(!text.contains("JBSWY3DPEHPK3PXP") && !text.contains("123456"))
        }
        var dumped = ""
        dump(enrolled, to: &dumped)
        dump(body, to: &dumped)
        #expect(!dumped.contains("JBSWY3DPEHPK3PXP") && !dumped.contains("123456"))
    }
}
