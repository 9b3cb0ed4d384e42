import Foundation
import Testing

@testable import Latchkey

/// Reading supabase-swift's stored session bytes, in each of the shapes its source has written,
/// and the storage keys and keychain answers around them.
@Suite("supabase-swift's stored session")
struct SupabaseStoredSessionTests {
    static let accessToken = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJTRUNSRVQifQ.SECRET-ACCESS-signature"
    static let refreshToken = "SECRET-REFRESH-token"

    static func session(expiresAt: Date = Date(timeIntervalSince1970: 1_900_000_000)) throws -> Session {
        let user = try JSONDecoder().decode(
            User.self,
            from: Data(
                #"{"id":"859f402d-b3de-4105-a1b9-932836d9193b","aud":"authenticated","role":"authenticated","email":"ada@example.com","app_metadata":{"provider":"email","providers":["email"]},"user_metadata":{},"created_at":"2024-04-01T13:25:07Z","updated_at":"2024-04-01T13:25:07Z"}"#
                    .utf8))
        return Session(accessToken: accessToken, refreshToken: refreshToken, expiresIn: 3600, expiresAt: expiresAt, user: user)
    }

    static func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("v2.27 and later: camel-case keys, dates as seconds since 2001")
    func currentFormat() throws {
        let data = try SupabaseSessionFixture.current(try Self.session())
        // The fixture is what supabase-swift writes: camel-case keys, reference-date numbers.
        let json = try Self.object(data)
        #expect(json["accessToken"] as? String == Self.accessToken)
        #expect(json["tokenType"] as? String == "bearer")
        let user = try #require(json["user"] as? [String: Any])
        #expect(user["id"] as? String == "859F402D-B3DE-4105-A1B9-932836D9193B")
        #expect((user["createdAt"] as? NSNumber)?.doubleValue == Date(timeIntervalSince1970: 1_711_977_907).timeIntervalSinceReferenceDate)
        #expect(json["providerToken"] == nil, "nil is left out")

        let stored = try SupabaseStoredSession(data: data)
        #expect(stored.format == .current)
        #expect(stored.accessToken == Self.accessToken)
        #expect(stored.refreshToken == Self.refreshToken)
        #expect(stored.expiresAt == Date(timeIntervalSince1970: 1_900_000_000))
    }

    @Test("v2.17 to v2.26: snake-case keys, ISO 8601 dates")
    func snakeCaseFormat() throws {
        let data = try SupabaseSessionFixture.snakeCase(try Self.session())
        let json = try Self.object(data)
        #expect(json["access_token"] as? String == Self.accessToken)
        let user = try #require(json["user"] as? [String: Any])
        #expect(user["created_at"] as? String == "2024-04-01T13:25:07.000Z")

        let stored = try SupabaseStoredSession(data: data)
        #expect(stored.format == .snakeCase)
        #expect(stored.accessToken == Self.accessToken)
        #expect(stored.refreshToken == Self.refreshToken)
        #expect(stored.expiresAt == Date(timeIntervalSince1970: 1_900_000_000))
    }

    @Test("before v2.17: the session wrapped with its expiration date")
    func wrappedFormat() throws {
        let data = try SupabaseSessionFixture.wrapped(try Self.session())
        let json = try Self.object(data)
        #expect(json["expiration_date"] as? String == "2030-03-17T17:46:40.000Z")
        #expect((json["session"] as? [String: Any])?["refresh_token"] as? String == Self.refreshToken)

        let stored = try SupabaseStoredSession(data: data)
        #expect(stored.format == .wrapped)
        #expect(stored.accessToken == Self.accessToken)
        #expect(stored.refreshToken == Self.refreshToken)
        #expect(stored.expiresAt == Date(timeIntervalSince1970: 1_900_000_000))
    }

    @Test("only the tokens are required: a session without expiry or user reads")
    func minimal() throws {
        let stored = try SupabaseStoredSession(data: Data(#"{"accessToken":"a.b.c","refreshToken":"r"}"#.utf8))
        #expect(stored.accessToken == "a.b.c" && stored.refreshToken == "r" && stored.expiresAt == nil)
    }

    @Test(
        "unreadable bytes: a clear reason that never quotes the item",
        arguments: [
            ("", "the item is empty"),
            ("SECRET-REFRESH-token", "the item is not JSON"),
            (#"["SECRET-REFRESH-token"]"#, "the item is not a JSON object"),
            (#"{"token":"SECRET-REFRESH-token"}"#, #"the item has no access token (neither "accessToken" nor "access_token" nor "session")"#),
            (#"{"accessToken":"SECRET-ACCESS"}"#, #"the item has no "refreshToken""#),
            (#"{"access_token":"SECRET-ACCESS","refresh_token":7}"#, #"the item's "refresh_token" is not a string"#),
            (#"{"accessToken":"","refreshToken":"SECRET-REFRESH-token"}"#, #"the item's "accessToken" is empty"#),
            (#"{"session":"SECRET-REFRESH-token","expiration_date":"2024-04-01T13:25:07.000Z"}"#, #"the item's "session" is not a JSON object"#),
            (#"{"session":{"accessToken":"SECRET-ACCESS"}}"#, #"the item has no "access_token""#),
        ])
    func unreadable(bytes: String, reason: String) {
        do {
            _ = try SupabaseStoredSession(data: Data(bytes.utf8))
            Issue.record("\(reason): must not read")
        } catch let error as SupabaseStoredSession.FormatError {
            #expect(error.reason == reason)
            #expect(!"\(error)".contains("SECRET"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("its description, debug description and mirror never show a token")
    func redacted() throws {
        let stored = try SupabaseStoredSession(data: try SupabaseSessionFixture.current(try Self.session()))
        var dumped = ""
        dump(stored, to: &dumped)
        for text in [stored.description, stored.debugDescription, String(reflecting: stored), dumped] {
            #expect(!text.contains("SECRET"), "\(text)")
        }
        #expect(stored.description.contains("format: current"))
    }

    @Test("the default storage key: sb-<first label of the host>-auth-token, as SupabaseClient derives it")
    func defaultStorageKey() throws {
        let cases: [(String, String?)] = [
            ("https://abcdefghijklmnop.supabase.co", "sb-abcdefghijklmnop-auth-token"),
            ("https://abcdefghijklmnop.supabase.co/", "sb-abcdefghijklmnop-auth-token"),
            ("http://localhost:54321", "sb-localhost-auth-token"),
            ("http://127.0.0.1:54321", "sb-127-auth-token"),
            ("https://auth.example.com/base", "sb-auth-auth-token"),
            ("relative/path", nil),
        ]
        for (url, key) in cases {
            #expect(SupabaseStorageKey.default(supabaseURL: try #require(URL(string: url))) == key, "\(url)")
        }
        #expect(SupabaseStorageKey.authClient == "supabase.auth.token")
        #expect(SupabaseStorageKey.legacy == "supabase.session")
    }

    @Test("keychain answers: a missing item reads as nil and removes as done; a locked device is StorageError.locked")
    func keychainAnswers() throws {
        #expect(try SupabaseKeychainQuery.readResult(.data(Data([1]))) == Data([1]))
        let missing = try SupabaseKeychainQuery.readResult(.itemNotFound)
        #expect(missing == nil)
        #expect(throws: StorageError.locked) { try SupabaseKeychainQuery.readResult(.interactionNotAllowed) }
        #expect(throws: StorageError.corrupted(reason: "keychain item cannot be decoded")) { try SupabaseKeychainQuery.readResult(.undecodable) }
        #expect(throws: StorageError.status(-50, operation: "SecItemCopyMatching")) { try SupabaseKeychainQuery.readResult(.failure(status: -50)) }
        try SupabaseKeychainQuery.removeResult(.success)
        try SupabaseKeychainQuery.removeResult(.itemNotFound)
        #expect(throws: StorageError.locked) { try SupabaseKeychainQuery.removeResult(.interactionNotAllowed) }
        #expect(throws: StorageError.status(-25244, operation: "SecItemDelete")) { try SupabaseKeychainQuery.removeResult(.failure(status: -25244)) }
    }
}
