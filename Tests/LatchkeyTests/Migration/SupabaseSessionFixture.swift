import Foundation

@testable import Latchkey

/// The bytes supabase-swift would have stored for a session, in each of its storage shapes,
/// made the way its encoders make them (read in supabase-swift v2.55.1's
/// `Sources/Auth/Internal/SessionStorage.swift`, `Sources/Auth/Types.swift`,
/// `Sources/Auth/Defaults.swift`, `Sources/Helpers/Codable.swift` and
/// `Sources/Helpers/DateFormatter.swift`; the older shapes in the history of
/// `SessionStorage.swift`): a Codable mirror of its `Session` and `User` with the same property
/// names, encoded by
/// - a default `JSONEncoder` (v2.27.0 and later): camel-case keys, dates as seconds since
///   2001-01-01, `nil`s left out;
/// - an encoder converting keys to snake case with ISO 8601 date strings with milliseconds
///   (v2.17.0 to v2.26.x, and inside the wrapper of earlier versions).
/// supabase-swift itself cannot be built here; these are written from its source, not copied.
enum SupabaseSessionFixture {
    /// supabase-swift's `Session`: the properties it declares, in its order.
    struct SessionMirror: Encodable {
        var providerToken: String?
        var providerRefreshToken: String?
        var accessToken: String
        var tokenType: String
        var expiresIn: TimeInterval
        var expiresAt: TimeInterval
        var refreshToken: String
        var user: UserMirror
    }

    /// supabase-swift's `User` (the properties a GoTrue sign-up answers).
    struct UserMirror: Encodable {
        var id: UUID
        var appMetadata: [String: JSONValue]
        var userMetadata: [String: JSONValue]
        var aud: String
        var email: String?
        var phone: String?
        var createdAt: Date
        var confirmedAt: Date?
        var emailConfirmedAt: Date?
        var lastSignInAt: Date?
        var role: String?
        var updatedAt: Date
        var isAnonymous: Bool
    }

    /// The wrapper of supabase-swift before v2.17.0.
    struct StoredSessionMirror: Encodable {
        var session: SessionMirror
        var expirationDate: Date
    }

    static func mirror(of session: Session) -> SessionMirror {
        let user = session.user
        return SessionMirror(
            accessToken: session.accessToken, tokenType: session.tokenType, expiresIn: session.expiresIn,
            expiresAt: session.expiresAt.timeIntervalSince1970, refreshToken: session.refreshToken,
            user: UserMirror(
                id: UUID(uuidString: user.id) ?? UUID(), appMetadata: user.appMetadata, userMetadata: user.userMetadata,
                aud: user.aud ?? "authenticated", email: user.email, phone: user.phone ?? "", createdAt: user.createdAt ?? Date(),
                confirmedAt: user.confirmedAt, emailConfirmedAt: user.emailConfirmedAt, lastSignInAt: user.lastSignInAt,
                role: user.role, updatedAt: user.updatedAt ?? Date(), isAnonymous: user.isAnonymous))
    }

    /// v2.27.0 and later: `JSONEncoder().encode(session)`.
    static func current(_ session: Session) throws -> Data {
        try JSONEncoder().encode(mirror(of: session))
    }

    /// v2.17.0 to v2.26.x: the session through supabase-swift's configured encoder.
    static func snakeCase(_ session: Session) throws -> Data {
        try snakeCaseEncoder().encode(mirror(of: session))
    }

    /// Before v2.17.0: `{"session": …, "expiration_date": …}` through the configured encoder.
    static func wrapped(_ session: Session) throws -> Data {
        try snakeCaseEncoder().encode(StoredSessionMirror(session: mirror(of: session), expirationDate: session.expiresAt))
    }

    /// Snake-case keys, dates as ISO 8601 strings with milliseconds (`2024-04-01T13:25:07.000Z`).
    static func snakeCaseEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .custom { date, encoder in
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            var container = encoder.singleValueContainer()
            try container.encode(formatter.string(from: date))
        }
        return encoder
    }
}

/// A storage supabase-swift was given, in memory: items by key, with reads and removals
/// counted and a removal failure the test can switch on.
actor MemorySupabaseSource: SupabaseSessionSource {
    private(set) var items: [String: Data]
    private(set) var reads = 0
    private(set) var removals = 0
    var readError: (any Error)?
    var removeError: (any Error)?

    init(_ items: [String: Data] = [:]) {
        self.items = items
    }

    func setReadError(_ error: (any Error)?) { readError = error }
    func setRemoveError(_ error: (any Error)?) { removeError = error }

    func read(key: String) async throws -> Data? {
        reads += 1
        if let readError { throw readError }
        return items[key]
    }

    func remove(key: String) async throws {
        removals += 1
        if let removeError { throw removeError }
        items[key] = nil
    }
}
