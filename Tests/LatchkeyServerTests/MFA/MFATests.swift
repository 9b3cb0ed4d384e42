import Foundation
import LatchkeyQRCode
import NIOHTTP1
import Testing

@testable import LatchkeyServer

/// Multi-factor sign-in with TOTP factors, end to end against the real server: enrolment,
/// challenges, verification to `aal2`, the rules that demand `aal2`, and the admin routes.
@Suite("MFA (TOTP)")
struct MFATests {
    /// Generous MFA request limits, so a test's many challenges are not what it measures.
    static func roomy(_ configuration: inout ServerConfiguration) {
        configuration.rateLimits.mfaRequestsPerIP.count = 1000
    }

    // MARK: Helpers

    struct Enrolled {
        let id: String
        let secret: String
        let response: TestResponse
    }

    static func enroll(_ server: TestServer, _ bearer: String, name: String = "phone") async throws -> Enrolled {
        let response = try await server.request(.POST, "/factors", json: ["factor_type": "totp", "friendly_name": name], bearer: bearer)
        let totp = response["totp"] as? [String: Any]
        guard response.status == 200, let id = response["id"] as? String, let secret = totp?["secret"] as? String else {
            throw TestFailure("enroll failed: \(response.status) \(response.text)")
        }
        return Enrolled(id: id, secret: secret, response: response)
    }

    /// The factor's code at the server's current time, `steps` time steps away.
    static func code(_ secret: String, _ server: TestServer, steps: Int64 = 0) -> String {
        TOTP.code(secret: Base32.decode(secret) ?? [], step: TOTP.step(at: server.clock.now()) + steps)
    }

    static func challenge(_ server: TestServer, _ bearer: String, _ factorID: String, headers: [(String, String)] = []) async throws -> String {
        let response = try await server.request(.POST, "/factors/\(factorID)/challenge", json: [:], bearer: bearer, headers: headers)
        guard response.status == 200, let id = response["id"] as? String else {
            throw TestFailure("challenge failed: \(response.status) \(response.text)")
        }
        return id
    }

    static func verify(
        _ server: TestServer, _ bearer: String, _ factorID: String, challenge: String, code: String, headers: [(String, String)] = []
    ) async throws -> TestResponse {
        try await server.request(
            .POST, "/factors/\(factorID)/verify", json: ["challenge_id": challenge, "code": code], bearer: bearer, headers: headers)
    }

    /// Enrolls and verifies a factor in `session`: returns the factor and the raised session.
    static func enrollAndVerify(_ server: TestServer, _ session: TestSession, name: String = "phone") async throws -> (Enrolled, TestSession) {
        let factor = try await enroll(server, session.accessToken, name: name)
        let challengeID = try await challenge(server, session.accessToken, factor.id)
        let verified = try await verify(server, session.accessToken, factor.id, challenge: challengeID, code: code(factor.secret, server))
        guard verified.status == 200, let raised = TestSession(verified) else {
            throw TestFailure("verify failed: \(verified.status) \(verified.text)")
        }
        return (factor, raised)
    }

    static func claims(_ accessToken: String) throws -> [String: Any] {
        let part = String(accessToken.split(separator: ".")[1])
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let data = try #require(Data(base64Encoded: base64))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func methods(_ accessToken: String) throws -> [String] {
        (try claims(accessToken)["amr"] as? [[String: Any]] ?? []).compactMap { $0["method"] as? String }
    }

    static func factors(_ server: TestServer, _ bearer: String) async throws -> [[String: Any]] {
        let user = try await server.request(.GET, "/user", bearer: bearer)
        return user["factors"] as? [[String: Any]] ?? []
    }

    // MARK: Tests

    @Test("enroll, challenge and verify: the session becomes aal2 with totp in amr; the factor is verified")
    func enrollChallengeVerify() async throws {
        try await TestServer.with(configure: Self.roomy) { server in
            let session = try await server.signUp("mfa@example.com")
            #expect(try Self.claims(session.accessToken)["aal"] as? String == "aal1")
            #expect(try await Self.factors(server, session.accessToken).isEmpty)
            let user = try await server.request(.GET, "/user", bearer: session.accessToken)
            #expect(user["factors"] == nil, "no factors: the field is left out, as GoTrue")

            let factor = try await Self.enroll(server, session.accessToken, name: "My phone")
            #expect(factor.response["type"] as? String == "totp")
            #expect(factor.response["friendly_name"] as? String == "My phone")
            let totp = try #require(factor.response["totp"] as? [String: Any])
            #expect(factor.secret.count == 32 && Base32.decode(factor.secret)?.count == 20)
            let uri = try #require(totp["uri"] as? String)
            #expect(uri.hasPrefix("otpauth://totp/") && uri.contains("secret=\(factor.secret)") && uri.contains(":mfa@example.com?"))
            // The raw SVG document, as GoTrue sends it: the QR code of the otpauth URI at the
            // highest correction level (LatchkeyQRCodeTests decode such codes with zxing-cpp).
            let qrCode = try #require(totp["qr_code"] as? String)
            #expect(qrCode.hasPrefix("<svg") && qrCode.contains("<path") && !qrCode.hasPrefix("data:"))
            #expect(qrCode == (try QRCode(uri, correction: .high).svg(moduleSize: 3)))
            let listed = try await Self.factors(server, session.accessToken)
            #expect(listed.count == 1)
            #expect(listed.first?["status"] as? String == "unverified")
            #expect(listed.first?["factor_type"] as? String == "totp")
            #expect(listed.first?["id"] as? String == factor.id)
            #expect(listed.first?["secret"] == nil)

            let challengeResponse = try await server.request(.POST, "/factors/\(factor.id)/challenge", bearer: session.accessToken)
            #expect(challengeResponse.status == 200)
            #expect(challengeResponse["type"] as? String == "totp")
            let expiresAt = try #require(challengeResponse["expires_at"] as? Int)
            #expect(expiresAt == Int(server.clock.now().timeIntervalSince1970) + 300)
            let challengeID = try #require(challengeResponse["id"] as? String)

            let verified = try await Self.verify(
                server, session.accessToken, factor.id, challenge: challengeID, code: Self.code(factor.secret, server))
            #expect(verified.status == 200, "\(verified.text)")
            let raised = try #require(TestSession(verified))
            let claims = try Self.claims(raised.accessToken)
            #expect(claims["aal"] as? String == "aal2")
            #expect(try Self.methods(raised.accessToken).first == "totp")
            #expect(Set(try Self.methods(raised.accessToken)) == ["totp", "password"])
            #expect(claims["session_id"] as? String == (try Self.claims(session.accessToken)["session_id"] as? String), "the same session, raised")
            let user2 = try #require(verified["user"] as? [String: Any])
            #expect((user2["factors"] as? [[String: Any]])?.first?["status"] as? String == "verified")
            #expect(raised.refreshToken != session.refreshToken)
            // A refresh lists the factors too (SQLite reads them in the rotation's transaction).
            let refreshed = try await server.refresh(raised.refreshToken)
            let refreshedUser = try #require(refreshed["user"] as? [String: Any])
            #expect((refreshedUser["factors"] as? [[String: Any]])?.map { $0["id"] as? String } == [factor.id])

            let actions = try await server.auditActions()
            for action in ["factor_in_progress", "challenge_created", "verification_attempted"] { #expect(actions.contains(action), "\(action)") }
        }
    }

    @Test("a wrong code is refused; a code works once (replay refused); the next time step's code works")
    func wrongAndReplayedCodes() async throws {
        try await TestServer.with(configure: Self.roomy) { server in
            let session = try await server.signUp("replay@example.com")
            let factor = try await Self.enroll(server, session.accessToken)
            let first = try await Self.challenge(server, session.accessToken, factor.id)
            let right = Self.code(factor.secret, server)
            let wrong = right == "000000" ? "000001" : "000000"
            let refused = try await Self.verify(server, session.accessToken, factor.id, challenge: first, code: wrong)
            #expect(refused.status == 422)
            #expect(refused.errorCode == "mfa_verification_failed")
            let empty = try await Self.verify(server, session.accessToken, factor.id, challenge: first, code: "")
            #expect(empty.status == 400 && empty.errorCode == "validation_failed")

            let accepted = try await Self.verify(server, session.accessToken, factor.id, challenge: first, code: right)
            #expect(accepted.status == 200)
            let raised = try #require(TestSession(accepted))
            // The same challenge again: GoTrue answers a verified challenge as an address mismatch.
            let again = try await Self.verify(server, raised.accessToken, factor.id, challenge: first, code: right)
            #expect(again.status == 422 && again.errorCode == "mfa_ip_address_mismatch")
            // The same code on a new challenge: its time step was used.
            let second = try await Self.challenge(server, raised.accessToken, factor.id)
            let replayed = try await Self.verify(server, raised.accessToken, factor.id, challenge: second, code: right)
            #expect(replayed.status == 422 && replayed.errorCode == "mfa_verification_failed")
            // The previous step's code (within the drift) is older than the used one: refused too.
            let older = try await Self.verify(
                server, raised.accessToken, factor.id, challenge: second, code: Self.code(factor.secret, server, steps: -1))
            #expect(older.status == 422)
            server.clock.advance(by: 30)
            let next = try await Self.verify(server, raised.accessToken, factor.id, challenge: second, code: Self.code(factor.secret, server))
            #expect(next.status == 200, "\(next.text)")
        }
    }

    @Test("expired, unknown, foreign and other-address challenges and factors are refused with GoTrue's codes")
    func challengeRules() async throws {
        try await TestServer.with(configure: {
            Self.roomy(&$0)
            $0.trustedProxies = ["127.0.0.1/32", "::1/128"]
        }) { server in
            let session = try await server.signUp("rules@example.com")
            let factor = try await Self.enroll(server, session.accessToken)
            let challengeID = try await Self.challenge(server, session.accessToken, factor.id)
            server.clock.advance(by: 301)
            let expired = try await Self.verify(
                server, session.accessToken, factor.id, challenge: challengeID, code: Self.code(factor.secret, server))
            #expect(expired.status == 422 && expired.errorCode == "mfa_challenge_expired")
            let deleted = try await Self.verify(
                server, session.accessToken, factor.id, challenge: challengeID, code: Self.code(factor.secret, server))
            #expect(deleted.status == 422 && deleted.errorCode == "mfa_factor_not_found", "an expired challenge is deleted")

            let unknownChallenge = try await Self.verify(server, session.accessToken, factor.id, challenge: UUID().uuidString, code: "123456")
            #expect(unknownChallenge.status == 422 && unknownChallenge.errorCode == "mfa_factor_not_found")
            let unknownFactor = try await server.request(.POST, "/factors/\(UUID().uuidString)/challenge", bearer: session.accessToken)
            #expect(unknownFactor.status == 404 && unknownFactor.errorCode == "mfa_factor_not_found")
            let notUUID = try await server.request(.POST, "/factors/not-a-uuid/challenge", bearer: session.accessToken)
            #expect(notUUID.status == 404 && notUUID.errorCode == "validation_failed")
            let noToken = try await server.request(.POST, "/factors", json: ["factor_type": "totp"])
            #expect(noToken.status == 401)

            // Another user can neither challenge nor verify nor delete this user's factor.
            let mallory = try await server.signUp("mallory@example.com")
            let foreign = try await server.request(.POST, "/factors/\(factor.id)/challenge", bearer: mallory.accessToken)
            #expect(foreign.status == 404 && foreign.errorCode == "mfa_factor_not_found")
            let foreignDelete = try await server.request(.DELETE, "/factors/\(factor.id)", bearer: mallory.accessToken)
            #expect(foreignDelete.status == 404)
            let ownChallenge = try await Self.challenge(server, session.accessToken, factor.id)
            let foreignVerify = try await Self.verify(
                server, mallory.accessToken, factor.id, challenge: ownChallenge, code: Self.code(factor.secret, server))
            #expect(foreignVerify.status == 404)
            // A challenge of another factor does not verify this one.
            let malloryFactor = try await Self.enroll(server, mallory.accessToken)
            let crossed = try await Self.verify(
                server, mallory.accessToken, malloryFactor.id, challenge: ownChallenge, code: Self.code(malloryFactor.secret, server))
            #expect(crossed.status == 422 && crossed.errorCode == "mfa_factor_not_found")

            // The code must come from the address that asked for the challenge.
            let elsewhere = try await Self.verify(
                server, session.accessToken, factor.id, challenge: ownChallenge, code: Self.code(factor.secret, server),
                headers: [("X-Forwarded-For", "203.0.113.9")])
            #expect(elsewhere.status == 422 && elsewhere.errorCode == "mfa_ip_address_mismatch")
            let here = try await Self.verify(server, session.accessToken, factor.id, challenge: ownChallenge, code: Self.code(factor.secret, server))
            #expect(here.status == 200, "\(here.text)")
        }
    }

    @Test("with a verified factor a password sign-in is aal1 until the code; refresh keeps aal2; aal2 is demanded where GoTrue demands it")
    func assuranceLevels() async throws {
        try await TestServer.with(configure: Self.roomy) { server in
            let first = try await server.signUp("levels@example.com")
            let (factor, _) = try await Self.enrollAndVerify(server, first)

            let signIn = try await server.signIn("levels@example.com")
            let low = try #require(TestSession(signIn))
            #expect(try Self.claims(low.accessToken)["aal"] as? String == "aal1")
            #expect(try Self.methods(low.accessToken) == ["password"])
            let signInUser = try #require(signIn["user"] as? [String: Any])
            #expect((signInUser["factors"] as? [[String: Any]])?.first?["status"] as? String == "verified", "clients see aal2 is possible")

            // aal1 with a verified factor: no new password or email, no new factor, no unenrolling.
            let password = try await server.request(.PUT, "/user", json: ["password": "another horse battery"], bearer: low.accessToken)
            #expect(password.status == 401 && password.errorCode == "insufficient_aal")
            let email = try await server.request(.PUT, "/user", json: ["email": "elsewhere@example.com"], bearer: low.accessToken)
            #expect(email.status == 401 && email.errorCode == "insufficient_aal")
            let metadata = try await server.request(.PUT, "/user", json: ["data": ["theme": "dark"]], bearer: low.accessToken)
            #expect(metadata.status == 200, "metadata needs no aal2")
            let second = try await server.request(
                .POST, "/factors", json: ["factor_type": "totp", "friendly_name": "second"], bearer: low.accessToken)
            #expect(second.status == 403 && second.errorCode == "insufficient_aal")
            let unenroll = try await server.request(.DELETE, "/factors/\(factor.id)", bearer: low.accessToken)
            #expect(unenroll.status == 422 && unenroll.errorCode == "insufficient_aal")

            server.clock.advance(by: 30)
            let challengeID = try await Self.challenge(server, low.accessToken, factor.id)
            let verified = try await Self.verify(server, low.accessToken, factor.id, challenge: challengeID, code: Self.code(factor.secret, server))
            let high = try #require(TestSession(verified))
            #expect(try Self.claims(high.accessToken)["aal"] as? String == "aal2")

            // The new refresh token keeps aal2.
            let refreshed = try await server.refresh(high.refreshToken)
            #expect(refreshed.status == 200, "\(refreshed.text)")
            let renewed = try #require(TestSession(refreshed))
            #expect(try Self.claims(renewed.accessToken)["aal"] as? String == "aal2")
            #expect(try Self.methods(renewed.accessToken).contains("totp"))
            // The aal1 refresh token cannot renew the raised session: presenting it is a reuse,
            // which ends the session (as GoTrue, whose verification moves the token counter on by 2).
            server.clock.advance(by: 11)
            let oldToken = try await server.refresh(low.refreshToken)
            #expect(oldToken.status == 400 && oldToken.errorCode == "refresh_token_already_used")
            #expect(try await server.request(.GET, "/user", bearer: renewed.accessToken).status == 403)
        }
    }

    @Test("verifying ends the user's other aal1 sessions; aal2 allows a password change and unenrolling, which lowers the session")
    func aal2Privileges() async throws {
        try await TestServer.with(configure: Self.roomy) { server in
            let first = try await server.signUp("steps@example.com")
            let other = try #require(TestSession(try await server.signIn("steps@example.com")))
            let (factor, high) = try await Self.enrollAndVerify(server, first)
            let ended = try await server.request(.GET, "/user", bearer: other.accessToken)
            #expect(ended.status == 403 && ended.errorCode == "session_not_found", "GoTrue ends lower sessions after a verification")

            let password = try await server.request(.PUT, "/user", json: ["password": "another horse battery"], bearer: high.accessToken)
            #expect(password.status == 200, "\(password.text)")
            let unenrolled = try await server.request(.DELETE, "/factors/\(factor.id)", bearer: high.accessToken)
            #expect(unenrolled.status == 200)
            #expect(unenrolled["id"] as? String == factor.id)
            #expect(try await Self.factors(server, high.accessToken).isEmpty)
            let refreshed = try #require(TestSession(try await server.refresh(high.refreshToken)))
            #expect(try Self.claims(refreshed.accessToken)["aal"] as? String == "aal1", "the session the factor raised is aal1 again")
            #expect(!(try Self.methods(refreshed.accessToken).contains("totp")))
            #expect(try await server.auditActions().contains("factor_unenrolled"))
        }
    }

    @Test("an unverified factor can be unenrolled at aal1")
    func unenrollUnverified() async throws {
        try await TestServer.with(configure: Self.roomy) { server in
            let session = try await server.signUp("unverified@example.com")
            let factor = try await Self.enroll(server, session.accessToken)
            let response = try await server.request(.DELETE, "/factors/\(factor.id)", bearer: session.accessToken)
            #expect(response.status == 200)
            #expect(try await Self.factors(server, session.accessToken).isEmpty)
        }
    }

    @Test("limits: enrolled factors, unique friendly names, expiry of unverified factors, factor types, anonymous users")
    func limits() async throws {
        try await TestServer.with(configure: {
            Self.roomy(&$0)
            $0.mfa.maxEnrolledFactors = 2
            $0.enableAnonymousUsers = true
        }) { server in
            let session = try await server.signUp("limits@example.com")
            _ = try await Self.enroll(server, session.accessToken, name: "one")
            let conflict = try await server.request(
                .POST, "/factors", json: ["factor_type": "totp", "friendly_name": "one"], bearer: session.accessToken)
            #expect(conflict.status == 422 && conflict.errorCode == "mfa_factor_name_conflict")
            _ = try await Self.enroll(server, session.accessToken, name: "two")
            let third = try await server.request(
                .POST, "/factors", json: ["factor_type": "totp", "friendly_name": "three"], bearer: session.accessToken)
            #expect(third.status == 422 && third.errorCode == "too_many_enrolled_mfa_factors")

            // Unverified factors expire (GoTrue's 300 s): enrolling then removes them.
            server.clock.advance(by: 301)
            _ = try await Self.enroll(server, session.accessToken, name: "one")
            #expect(try await Self.factors(server, session.accessToken).map { $0["friendly_name"] as? String } == ["one"])

            let phone = try await server.request(
                .POST, "/factors", json: ["factor_type": "phone", "phone": "+15555550100"], bearer: session.accessToken)
            #expect(phone.status == 422 && phone.errorCode == "mfa_phone_enroll_not_enabled")
            let bogus = try await server.request(.POST, "/factors", json: ["factor_type": "sms"], bearer: session.accessToken)
            #expect(bogus.status == 400 && bogus.errorCode == "validation_failed")

            let anonymous = try #require(TestSession(try await server.request(.POST, "/signup", json: [:])))
            let refused = try await server.request(.POST, "/factors", json: ["factor_type": "totp"], bearer: anonymous.accessToken)
            #expect(refused.status == 403 && refused.errorCode == "no_authorization")
            // Every /factors route refuses the anonymous account before it reads the body or the
            // factor id (GoTrue's requireNotAnonymous on the route group).
            for (method, path) in [(HTTPMethod.POST, "/factors/not-a-uuid/challenge"), (.POST, "/factors/\(UUID())/verify"), (.DELETE, "/factors/x")]
            {
                let response = try await server.request(method, path, rawBody: "{not json", bearer: anonymous.accessToken)
                #expect(response.status == 403 && response.errorCode == "no_authorization", "\(method) \(path): \(response.text)")
            }
        }
    }

    @Test("challenge and verify count against the MFA request limit before their body is read; enrolment does not")
    func requestLimitOnTheRoute() async throws {
        try await TestServer.with(configure: { $0.rateLimits.mfaRequestsPerIP = .init(count: 2, per: 3600) }) { server in
            let session = try await server.signUp("mfa-limit@example.com")
            let factorID = UUID()
            // A malformed body still counts: the limit is the route's, ahead of the handler.
            for _ in 0..<2 {
                #expect(
                    try await server.request(.POST, "/factors/\(factorID)/challenge", json: ["channel": 5], bearer: session.accessToken).status != 429
                )
            }
            try await server.request(.POST, "/factors/\(factorID)/verify", json: ["code": "123456"], bearer: session.accessToken)
                .expectError(429, "over_request_rate_limit")
            try await server.request(.POST, "/factors/\(factorID)/challenge", json: [:], bearer: session.accessToken)
                .expectError(429, "over_request_rate_limit")
            #expect(try await server.request(.POST, "/factors", json: ["factor_type": "totp"], bearer: session.accessToken).status == 200)
        }
    }

    @Test("verified factors are limited too")
    func verifiedLimit() async throws {
        try await TestServer.with(configure: {
            Self.roomy(&$0)
            $0.mfa.maxVerifiedFactors = 1
        }) { server in
            let session = try await server.signUp("verified-limit@example.com")
            let (_, high) = try await Self.enrollAndVerify(server, session)
            let second = try await server.request(.POST, "/factors", json: ["factor_type": "totp", "friendly_name": "b"], bearer: high.accessToken)
            #expect(second.status == 422 && second.errorCode == "too_many_enrolled_mfa_factors")
        }
    }

    @Test("the TOTP secret is stored sealed, never in plain text")
    func secretAtRest() async throws {
        try await TestServer.with(configure: Self.roomy) { server in
            let session = try await server.signUp("sealed@example.com")
            let factor = try await Self.enroll(server, session.accessToken)
            let raw = try #require(Base32.decode(factor.secret))
            let path = server.directory.appendingPathComponent("latchkey.sqlite").path
            let reader = try SQLiteAuthStore(path: path)
            let userID = try #require(UUID(uuidString: session.userID))
            let stored = try #require(try await reader.factors(userID: userID).first)
            try await reader.close()
            #expect(stored.sealedSecret.hasPrefix("v1:"))
            #expect(!stored.sealedSecret.contains(factor.secret))
            var bytes = Data()
            for suffix in ["", "-wal"] { bytes += FileManager.default.contents(atPath: path + suffix) ?? Data() }
            #expect(bytes.range(of: Data(factor.secret.utf8)) == nil, "no base32 secret in the database files")
            #expect(bytes.range(of: Data(raw)) == nil, "no raw secret in the database files")
            #expect(bytes.range(of: Data(stored.sealedSecret.utf8)) != nil, "the sealed form is what is there")
        }
    }

    @Test("wrong codes are rate limited per factor and audited")
    func wrongCodeLimit() async throws {
        try await TestServer.with(configure: Self.roomy) { server in
            let session = try await server.signUp("guess@example.com")
            let factor = try await Self.enroll(server, session.accessToken)
            let challengeID = try await Self.challenge(server, session.accessToken, factor.id)
            let right = Self.code(factor.secret, server)
            let wrong = right == "000000" ? "000001" : "000000"
            for _ in 0..<5 {
                let response = try await Self.verify(server, session.accessToken, factor.id, challenge: challengeID, code: wrong)
                #expect(response.status == 422)
            }
            let locked = try await Self.verify(server, session.accessToken, factor.id, challenge: challengeID, code: right)
            #expect(locked.status == 429 && locked.errorCode == "over_request_rate_limit", "even the right code, until the window passes")
            #expect(locked.headers.first(name: "Retry-After") != nil)
            let entries = try await server.request(.GET, "/admin/audit", bearer: server.server.serviceRoleKey).jsonArray ?? []
            let failures = entries.filter {
                (($0["payload"] as? [String: Any])?["traits"] as? [String: Any])?["error_code"] as? String == "mfa_verification_failed"
            }
            #expect(failures.count == 5)
            #expect(!String(decoding: try JSONSerialization.data(withJSONObject: entries), as: UTF8.self).contains(wrong), "codes are not audited")
            server.clock.advance(by: 301)
            let challenge2 = try await Self.challenge(server, session.accessToken, factor.id)
            let after = try await Self.verify(server, session.accessToken, factor.id, challenge: challenge2, code: Self.code(factor.secret, server))
            #expect(after.status == 200, "\(after.text)")
        }
    }

    @Test("admin: list, rename and delete a user's factors; deleting lowers the sessions it raised; a user's token is refused")
    func adminFactors() async throws {
        try await TestServer.with(configure: Self.roomy) { server in
            let session = try await server.signUp("managed@example.com")
            let (factor, high) = try await Self.enrollAndVerify(server, session, name: "work")
            let other = try await Self.enroll(server, high.accessToken, name: "home")
            let admin = server.server.serviceRoleKey
            let base = "/admin/users/\(session.userID)/factors"

            let listed = try await server.request(.GET, base, bearer: admin)
            #expect(listed.status == 200)
            #expect(Set((listed.jsonArray ?? []).compactMap { $0["id"] as? String }) == [factor.id, other.id])
            let empty = try await server.request(
                .GET, "/admin/users/\(try await server.signUp("nofactors@example.com").userID)/factors", bearer: admin)
            #expect(empty.status == 200 && empty.text.hasPrefix("["), "an empty list, not null")

            for bearer in [high.accessToken, server.server.anonKey] {
                #expect(try await server.request(.GET, base, bearer: bearer).status == 403)
                #expect(try await server.request(.DELETE, "\(base)/\(factor.id)", bearer: bearer).status == 403)
                #expect(try await server.request(.PUT, "\(base)/\(factor.id)", json: ["friendly_name": "x"], bearer: bearer).status == 403)
            }

            let renamed = try await server.request(.PUT, "\(base)/\(factor.id)", json: ["friendly_name": "office"], bearer: admin)
            #expect(renamed.status == 200 && renamed["friendly_name"] as? String == "office")
            let clash = try await server.request(.PUT, "\(base)/\(factor.id)", json: ["friendly_name": "home"], bearer: admin)
            #expect(clash.status == 422 && clash.errorCode == "mfa_factor_name_conflict")

            let unknownUser = try await server.request(.GET, "/admin/users/\(UUID().uuidString)/factors", bearer: admin)
            #expect(unknownUser.status == 404 && unknownUser.errorCode == "user_not_found")
            let unknownFactor = try await server.request(.DELETE, "\(base)/\(UUID().uuidString)", bearer: admin)
            #expect(unknownFactor.status == 404 && unknownFactor.errorCode == "mfa_factor_not_found")

            let deleted = try await server.request(.DELETE, "\(base)/\(factor.id)", bearer: admin)
            #expect(deleted.status == 200 && deleted["id"] as? String == factor.id)
            let refreshed = try #require(TestSession(try await server.refresh(high.refreshToken)))
            #expect(try Self.claims(refreshed.accessToken)["aal"] as? String == "aal1")
            let actions = try await server.auditActions()
            #expect(actions.contains("factor_deleted") && actions.contains("factor_updated"))
        }
    }
}
