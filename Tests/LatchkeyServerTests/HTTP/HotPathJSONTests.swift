import Foundation
import LatchkeyWire
import Testing

@testable import LatchkeyServer

/// The hand-written JSON of users and sessions is the document `JSONEncoder()` writes for the
/// same value (every field set and unset, metadata of every kind), and its strings and numbers
/// are the encoder's bytes exactly.
@Suite("Hot-path JSON")
struct HotPathJSONTests {
    /// Strings that exercise every escape: quotes, backslashes, slashes, each control
    /// character, non-ASCII text and emoji.
    static let awkwardStrings: [String] = [
        "", "plain", "quote \" and backslash \\", "a/b/c", "tab\tnewline\nreturn\r", "\u{8}\u{C}",
        String((0..<0x20).map { Character(Unicode.Scalar($0)) }), "\u{7F}", "é ü ß 日本 🔐", "</script>",
    ]

    static let awkwardMetadata: [String: JSONValue] = [
        "name": .string("Ada \"Lovelace\""), "age": .number(36), "ratio": .number(0.25), "negative": .number(-3),
        "big": .number(9_007_199_254_740_992), "huge": .number(1e21), "tiny": .number(1e-7), "fraction": .number(123.456),
        "flag": .bool(true), "off": .bool(false), "nothing": .null,
        "list": .array([.string("a/b"), .number(1), .null, .array([]), .object([:])]),
        "nested": .object(["deep": .object(["deeper": .string("\u{1}")])]), "emoji 🔐": .string("🔐"),
    ]

    static func users() -> [UserResponse] {
        var bare = UserResponse(id: "5b9a6d1e-0000-4000-8000-000000000001")
        var full = bare
        full.aud = "authenticated"
        full.role = "authenticated"
        full.email = "ada@example.com"
        full.email_confirmed_at = "2026-11-26T10:00:00.123456Z"
        full.phone = ""
        full.phone_confirmed_at = "2026-11-26T10:00:00Z"
        full.confirmation_sent_at = "2026-11-26T09:59:00Z"
        full.confirmed_at = "2026-11-26T10:00:00Z"
        full.recovery_sent_at = "2026-11-26T10:01:00Z"
        full.new_email = "new/ada@example.com"
        full.email_change_sent_at = "2026-11-26T10:02:00Z"
        full.last_sign_in_at = "2026-11-26T10:03:00Z"
        full.app_metadata = ["provider": .string("email"), "providers": .array([.string("email"), .string("google")])]
        full.user_metadata = awkwardMetadata
        full.identities = [
            .init(
                identity_id: "id-1", id: "sub-1", user_id: bare.id, identity_data: awkwardMetadata, provider: "google",
                last_sign_in_at: "2026-11-26T10:03:00Z", created_at: "2026-11-26T10:00:00Z", updated_at: nil, email: "ada@example.com"),
            .init(
                identity_id: nil, id: "sub-2", user_id: nil, identity_data: nil, provider: nil, last_sign_in_at: nil, created_at: nil,
                updated_at: nil, email: nil),
        ]
        full.banned_until = "2027-01-01T00:00:00Z"
        full.created_at = "2026-11-26T09:58:00Z"
        full.updated_at = "2026-11-26T10:04:00Z"
        full.is_anonymous = false
        full.invited_at = "2026-11-26T09:57:00Z"
        full.factors = [
            FactorResponse(
                id: "f-1", factor_type: "totp", status: "verified", friendly_name: "Phone \"work\"", created_at: "2026-11-26T10:00:00Z",
                updated_at: "2026-11-26T10:00:00Z", last_challenged_at: "2026-11-26T10:05:00Z"),
            FactorResponse(
                id: "f-2", factor_type: "totp", status: "unverified", friendly_name: "", created_at: nil, updated_at: nil,
                last_challenged_at: nil),
        ]
        var empty = full
        empty.identities = []
        empty.factors = []
        empty.app_metadata = [:]
        empty.user_metadata = [:]
        empty.is_anonymous = true
        bare.email = "bare@example.com"
        var users = [bare, full, empty]
        for text in awkwardStrings {
            var user = full
            user.email = text
            user.user_metadata = [text: .string(text)]
            user.identities?[0].identity_data = ["sub": .string(text), text: .array([.string(text)])]
            user.factors?[0].friendly_name = text
            users.append(user)
        }
        return users
    }

    /// Both documents read back as the same JSON value (the encoder orders fields by hash).
    static func expectSameDocument(_ written: [UInt8], _ expected: Data, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let ours = try JSONDecoder().decode(JSONValue.self, from: Data(written))
        let theirs = try JSONDecoder().decode(JSONValue.self, from: expected)
        #expect(
            ours == theirs, "\(String(decoding: written, as: UTF8.self))\n≠ \(String(decoding: expected, as: UTF8.self))",
            sourceLocation: sourceLocation)
    }

    @Test("a string is the encoder's bytes: quotes, backslashes, slashes, every control character, UTF-8")
    func strings() throws {
        for text in Self.awkwardStrings + (0..<0x20).map({ String(Character(Unicode.Scalar($0))) }) {
            var json = HotPathJSON()
            json.string(text)
            #expect(Data(json.bytes) == (try JSONEncoder().encode(text)), "\(text.unicodeScalars.map(\.value))")
        }
    }

    @Test("a number is the encoder's bytes for the JSON value: whole, fractional, tiny, huge, negative")
    func numbers() throws {
        let numbers: [Double] = [0, 1, -1, 36, 0.25, -3.5, 123.456, 1e-7, 1e21, 1e300, 9_007_199_254_740_992, 9_007_199_254_740_994, 0.1 + 0.2]
        for number in numbers {
            var json = HotPathJSON()
            json.value(.number(number))
            #expect(Data(json.bytes) == (try JSONEncoder().encode(JSONValue.number(number))), "\(number)")
        }
    }

    @Test("a user: the encoder's document, every field set, unset and awkward")
    func users() throws {
        for user in Self.users() {
            try Self.expectSameDocument(HotPathJSON.encode(user), try JSONEncoder().encode(user))
        }
    }

    @Test("a session: the encoder's document, with and without its optional fields")
    func sessions() throws {
        for user in Self.users().prefix(3) {
            let session = SessionResponse(
                access_token: "eyJ.a/b.c", expires_in: 3600, expires_at: 1_795_000_000, refresh_token: "r3fr35h", user: user)
            var bare = session
            bare.token_type = nil
            bare.expires_in = nil
            bare.expires_at = -1
            var weak = session
            weak.weak_password = .init(message: "Password should contain \"one\" of each: a, B.", reasons: ["length", "characters"])
            var weakBare = session
            weakBare.weak_password = .init(message: nil, reasons: nil)
            for value in [session, bare, weak, weakBare] {
                try Self.expectSameDocument(HotPathJSON.encode(value), try JSONEncoder().encode(value))
            }
        }
    }

    @Test("a factor alone, and a JSON answer of a user")
    func factorAndResponse() throws {
        let factor = FactorResponse(
            id: "f", factor_type: "totp", status: "verified", friendly_name: nil, created_at: nil, updated_at: nil, last_challenged_at: nil)
        try Self.expectSameDocument(HotPathJSON.encode(factor), try JSONEncoder().encode(factor))
        let user = Self.users()[1]
        let response = try JSONBody.response(user)
        #expect(response.headers[.contentType] == "application/json")
        #expect(try JSONDecoder().decode(UserResponse.self, from: Data(HotPathJSON.encode(user))).id == user.id)
    }
}
