import Foundation
import LatchkeyTestSupport
import LatchkeyWire
import Testing

@testable import Latchkey

@Suite("Session and User decoding")
struct SessionDecodingTests {
    static let goTrueSession = #"""
        {
          "access_token": "eyJhbGciOiJIUzI1NiJ9.secret-access.sig",
          "token_type": "bearer",
          "expires_in": 3600,
          "expires_at": 1750003600,
          "refresh_token": "r3fr3sh-s3cr3t",
          "weak_password": null,
          "provider_token": null,
          "user": {
            "id": "6f1c0a62-5b0b-4f4e-9a3e-0d9d2b8f1e11",
            "aud": "authenticated",
            "role": "authenticated",
            "email": "ada@example.com",
            "phone": "",
            "email_confirmed_at": "2025-06-15T15:06:40.123456Z",
            "confirmed_at": "2025-06-15T15:06:40Z",
            "last_sign_in_at": "2025-06-15T15:06:40.5+02:00",
            "created_at": "2025-06-15 15:06:40.123456+00",
            "updated_at": "not a date",
            "app_metadata": {"provider": "email", "providers": ["email"]},
            "user_metadata": {"display_name": "Ada", "age": 36, "beta": true, "nested": {"a": null}},
            "identities": [{"id": "x", "provider": "email"}],
            "factors": null,
            "is_anonymous": false,
            "some_future_field": {"anything": [1, 2, 3]}
          }
        }
        """#

    @Test("GoTrue session JSON decodes, tolerating unknown fields and odd timestamps")
    func decodesGoTrueSession() throws {
        let session = try GoTrueBackend.decoder.decode(Session.self, from: Data(Self.goTrueSession.utf8))
        #expect(session.accessToken == "eyJhbGciOiJIUzI1NiJ9.secret-access.sig")
        #expect(session.refreshToken == "r3fr3sh-s3cr3t")
        #expect(session.expiresIn == 3600)
        #expect(session.expiresAt == Date(timeIntervalSince1970: 1_750_003_600))
        let user = session.user
        #expect(user.id == "6f1c0a62-5b0b-4f4e-9a3e-0d9d2b8f1e11")
        #expect(user.email == "ada@example.com")
        #expect(user.phone == nil, "an empty phone is no phone")
        #expect(user.isEmailConfirmed)
        let confirmed = try #require(user.emailConfirmedAt)
        #expect(abs(confirmed.timeIntervalSince1970 - 1_750_000_000.123456) < 0.000_01)
        #expect(user.confirmedAt == Date(timeIntervalSince1970: 1_750_000_000))
        #expect(user.lastSignInAt == Date(timeIntervalSince1970: 1_750_000_000 - 7200 + 0.5))
        #expect(user.createdAt != nil, "space separator and +00 offset accepted")
        #expect(user.updatedAt == nil, "a malformed date is absent, not a failure")
        #expect(user.userMetadata["display_name"] == .string("Ada"))
        #expect(user.userMetadata["age"] == .number(36))
        #expect(user.appMetadata["providers"] == .array([.string("email")]))
    }

    @Test("A session without expires_at gets one from expires_in")
    func missingExpiresAt() throws {
        let json = #"{"access_token":"a","refresh_token":"r","expires_in":60,"user":{"id":"u"}}"#
        let before = Date()
        let session = try GoTrueBackend.decoder.decode(Session.self, from: Data(json.utf8))
        #expect(session.expiresAt >= before.addingTimeInterval(59))
        #expect(session.tokenType == "bearer")
    }

    @Test("Anchoring uses the local receive time, not the server's clock")
    func anchoring() {
        let serverSkewed = sampleSession(issuedAt: Date(timeIntervalSince1970: 0), expiresIn: 3600)
        let received = Date(timeIntervalSince1970: 1_000_000)
        let anchored = serverSkewed.anchored(receivedAt: received)
        #expect(anchored.expiresAt == received.addingTimeInterval(3600))
        #expect(anchored.remainingLifetime(at: received.addingTimeInterval(600)) == 3000)
        #expect(!anchored.isExpired(at: received.addingTimeInterval(3599)))
        #expect(anchored.isExpired(at: received.addingTimeInterval(3600)))
    }

    @Test("description, debugDescription, dump and interpolation never show the tokens")
    func redaction() throws {
        let session = try GoTrueBackend.decoder.decode(Session.self, from: Data(Self.goTrueSession.utf8))
        var dumped = ""
        dump(session, to: &dumped)
        let renderings = [
            session.description, session.debugDescription, "\(session)", String(reflecting: session), dumped,
            "\(AuthState.signedIn(session))", "\(SessionEvent.tokenRefreshed(session))",
        ]
        for text in renderings {
            #expect(!text.contains("secret-access"), "leaked access token: \(text)")
            #expect(!text.contains("r3fr3sh"), "leaked refresh token: \(text)")
        }
        #expect(session.description.contains("<redacted>"))
        #expect(dumped.contains("<redacted>"))
    }

    @Test("The stored record round-trips exactly")
    func storedRoundTrip() throws {
        let session = try GoTrueBackend.decoder.decode(Session.self, from: Data(Self.goTrueSession.utf8))
        let record = StoredSession(
            session: session, signedInAt: Date(timeIntervalSince1970: 1_700_000_000.25),
            lastServerContact: Date(timeIntervalSince1970: 1_750_000_000.5))
        let decoded = try StoredSession.decode(try record.encoded())
        #expect(decoded.session.accessToken == record.session.accessToken)
        #expect(decoded.session.refreshToken == record.session.refreshToken)
        #expect(decoded.session.expiresAt == record.session.expiresAt)
        #expect(decoded.session.user.id == record.session.user.id)
        #expect(decoded.session.user.userMetadata == record.session.user.userMetadata)
        #expect(decoded.signedInAt == record.signedInAt)
        #expect(decoded.lastServerContact == record.lastServerContact)
    }

    @Test("A stored record with every JSON shape in its metadata reads back exactly, as Foundation's decoder reads it")
    func storedMetadata() throws {
        let metadata: [String: JSONValue] = [
            "name": .string("Ada \"Countess\" Lovelace ✓ 𝄞\n"), "one": .number(1), "yes": .bool(true), "no": .bool(false),
            "ratio": .number(-0.125), "big": .number(9_007_199_254_740_992), "nothing": .null,
            "list": .array([.number(1), .string("two"), .bool(true), .null, .array([]), .object([:])]),
            "nested": .object(["a": .object(["b": .array([.object(["c": .string("")])])])]),
        ]
        let user = User(
            id: "6f1c0a62-5b0b-4f4e-9a3e-0d9d2b8f1e11", email: "ada@example.com", createdAt: Date(timeIntervalSince1970: 1_700_000_000.5),
            appMetadata: ["provider": .string("email"), "providers": .array([.string("email"), .string("google")])], userMetadata: metadata,
            factors: [
                Factor(
                    id: "f1", friendlyName: "phone", factorType: "phone", status: .verified, phone: "+15555550100",
                    createdAt: Date(timeIntervalSince1970: 3))
            ],
            identities: [
                Identity(
                    identityID: "i1", providerUserID: "sub-1", provider: "google", identityData: metadata, createdAt: Date(timeIntervalSince1970: 4))
            ])
        let session = Session(
            accessToken: "a.b.c", refreshToken: "r", expiresIn: 3600, expiresAt: Date(timeIntervalSince1970: 1_750_000_000.25), user: user)
        let record = StoredSession(session: session, signedInAt: Date(timeIntervalSince1970: 1.5), lastServerContact: Date(timeIntervalSince1970: 2))
        let bytes = try record.encoded()
        let decoded = try StoredSession.decode(bytes)
        #expect(decoded == record)
        #expect(decoded.session.user.identities.first?.identityData == metadata)
        // Foundation's decoder, as records were read before, reads the same.
        let foundation = JSONDecoder()
        foundation.dateDecodingStrategy = .secondsSince1970
        foundation.userInfo[.latchkeyStoredForm] = true
        #expect(try foundation.decode(StoredSession.self, from: bytes) == decoded)
        // A record of the wrong shape is refused, never half read.
        var broken = try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
        broken["signedInAt"] = "yesterday"
        #expect(throws: StorageError.self) { try StoredSession.decode(try JSONSerialization.data(withJSONObject: broken)) }
    }

    @Test("The stored-form decoder reads every standard number type, in arrays and alone, and refuses a wrong one")
    func storedFormNumbers() throws {
        struct Numbers: Decodable, Equatable {
            var small: [Int8]
            var unsigned: [UInt16]
            var floats: [Float]
            var nested: [[Int32]]
            var one: UInt64
        }
        let tree = try JSONValue(parsing: #"{"small":[-3,7],"unsigned":[65535],"floats":[0.5,-2],"nested":[[1],[2,3]],"one":42}"#)
        let numbers = try Numbers(from: StoredFormDecoder(tree))
        #expect(numbers == Numbers(small: [-3, 7], unsigned: [65535], floats: [0.5, -2], nested: [[1], [2, 3]], one: 42))
        let tooBig = try JSONValue(parsing: #"{"small":[300],"unsigned":[],"floats":[],"nested":[],"one":1}"#)
        #expect(throws: DecodingError.self) { try Numbers(from: StoredFormDecoder(tooBig)) }
        let fraction = try JSONValue(parsing: #"{"small":[],"unsigned":[],"floats":[],"nested":[],"one":1.5}"#)
        #expect(throws: DecodingError.self) { try Numbers(from: StoredFormDecoder(fraction)) }
    }

    @Test("Garbage in the store is a corrupted error, not a crash")
    func corruptedRecord() {
        #expect(throws: StorageError.self) { try StoredSession.decode(Data("{\"version\":1}".utf8)) }
        #expect(throws: StorageError.self) { try StoredSession.decode(Data([0xff, 0x00, 0x13])) }
    }
}
