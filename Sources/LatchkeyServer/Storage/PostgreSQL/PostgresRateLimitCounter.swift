import Crypto
import Foundation
import PostgresNIO

/// Counts rate-limit events in the database, in `rate_limit_counters`: every instance on the
/// database shares one count per key, so N instances give an attacker no more attempts than one.
///
/// A key's row holds the instants of its events still within the window, oldest first, and when
/// the newest leaves it (`expires_at`, after which the cleanup task deletes the row). Counting an event is one statement — an upsert that prunes the row, decides
/// and appends under the row's lock — so concurrent requests on any number of instances are
/// counted one at a time and never both take the last place. The windows are the ones
/// ``InMemoryRateLimitCounter`` keeps (``RateLimitWindow``), to the microsecond.
///
/// Keys are stored as their kind (`signin-ip`, `email`, …) and an HMAC of the whole key under a
/// key derived from the JWT secret, which every instance shares: the table holds no email
/// address, IP address or session id, and a copy of it cannot be matched against a list of
/// addresses without the secret.
struct PostgresRateLimitCounter: RateLimitCounter {
    private let store: PostgresAuthStore
    private let keyMAC: SymmetricKey

    init(store: PostgresAuthStore, jwtSecret: String) {
        self.store = store
        self.keyMAC = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(jwtSecret.utf8)),
            info: Data("latchkey rate-limit keys v1".utf8),
            outputByteCount: 32)
    }

    /// The stored form of `key`: its kind (the text before the first colon) and an HMAC of it.
    func storedKey(_ key: String) -> String {
        let kind = key.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        let mac = HMAC<SHA256>.authenticationCode(for: Data(key.utf8), using: keyMAC)
        return kind + ":" + Array(mac).hexString
    }

    func consume(_ key: String, limit: RateLimitConfiguration.Limit, minimumInterval: TimeInterval, at date: Date) async throws -> Int? {
        try await store.autocommit { connection in
            try await consume(key, limit: limit, minimumInterval: minimumInterval, at: date, on: connection)
        }
    }

    /// ``consume(_:limit:minimumInterval:at:)`` on `connection`, inside whatever transaction it
    /// is in: a refresh rotation counts its refresh this way, so the count commits or rolls back
    /// with the rotation.
    func consume(
        _ key: String, limit: RateLimitConfiguration.Limit, minimumInterval: TimeInterval, at date: Date, on connection: PostgresConnection
    ) async throws -> Int? {
        let stored = storedKey(key)
        let count = limit.count
        let window = limit.window
        // `admitted` records this statement's decision in the row it returns (the row is locked
        // until the statement ends); the instant comes back as the database stored it, so the
        // Retry-After below is computed on the same microseconds as the decision.
        let outcome = try await connection.query(
            """
            WITH p AS (SELECT \(date)::timestamptz AS now, \(date)::timestamptz - \(window) * interval '1 second' AS since,
                \(date)::timestamptz + \(window) * interval '1 second' AS until)
            INSERT INTO rate_limit_counters AS c (key, events, expires_at, admitted)
            SELECT \(stored), ARRAY[p.now], p.until, TRUE FROM p
            ON CONFLICT (key) DO UPDATE SET (events, expires_at, admitted) = (
                SELECT CASE WHEN d.admit THEN k.kept || p.now ELSE k.kept END,
                    CASE WHEN d.admit THEN GREATEST(c.expires_at, p.until) ELSE c.expires_at END,
                    d.admit
                FROM p,
                    LATERAL (SELECT ARRAY(SELECT e FROM unnest(c.events) AS e WHERE e > p.since ORDER BY e) AS kept) AS k,
                    LATERAL (SELECT cardinality(k.kept) < \(count)
                        AND (\(minimumInterval) <= 0 OR cardinality(k.kept) = 0
                            OR k.kept[cardinality(k.kept)] <= p.now - \(minimumInterval) * interval '1 second') AS admit) AS d)
            RETURNING admitted, events, (SELECT now FROM p)
            """, logger: store.logger
        ).firstRow { row in try row.decode((Bool, [Date], Date).self) }
        guard let (admitted, events, now) = outcome else { throw StoreError.unavailable("the rate-limit upsert returned no row") }
        if admitted { return nil }
        return RateLimitWindow.retryAfter(events, now: now, limit: limit, minimumInterval: minimumInterval) ?? 1
    }

    func unrecord(_ key: String, at date: Date) async throws {
        let stored = storedKey(key)
        try await store.autocommit { connection in
            _ = try await connection.query(
                """
                UPDATE rate_limit_counters
                SET events = events[:array_position(events, \(date)::timestamptz) - 1] || events[array_position(events, \(date)::timestamptz) + 1:]
                WHERE key = \(stored) AND array_position(events, \(date)::timestamptz) IS NOT NULL
                """, logger: store.logger)
        }
    }

    func check(_ key: String, limit: RateLimitConfiguration.Limit, at date: Date) async throws -> Int? {
        let stored = storedKey(key)
        let outcome = try await store.autocommit { connection in
            try await connection.query(
                "SELECT \(date)::timestamptz, (SELECT events FROM rate_limit_counters WHERE key = \(stored))", logger: store.logger
            ).firstRow { row in try row.decode((Date, [Date]?).self) }
        }
        guard let (now, events) = outcome, let events else { return nil }
        let recent = RateLimitWindow.recent(events.sorted(), now: now, window: limit.window)
        return RateLimitWindow.retryAfter(recent, now: now, limit: limit)
    }

    func record(_ key: String, limit: RateLimitConfiguration.Limit, at date: Date) async throws {
        let stored = storedKey(key)
        let window = limit.window
        try await store.autocommit { connection in
            _ = try await connection.query(
                """
                WITH p AS (SELECT \(date)::timestamptz AS now, \(date)::timestamptz - \(window) * interval '1 second' AS since,
                    \(date)::timestamptz + \(window) * interval '1 second' AS until)
                INSERT INTO rate_limit_counters AS c (key, events, expires_at, admitted)
                SELECT \(stored), ARRAY[p.now], p.until, TRUE FROM p
                ON CONFLICT (key) DO UPDATE SET (events, expires_at, admitted) = (
                    SELECT ARRAY(SELECT e FROM unnest(array_append(c.events, p.now)) AS e WHERE e > p.since ORDER BY e),
                        GREATEST(c.expires_at, p.until), TRUE
                    FROM p)
                """, logger: store.logger)
        }
    }

    func reset(_ key: String) async throws {
        let stored = storedKey(key)
        try await store.autocommit { connection in
            _ = try await connection.query("DELETE FROM rate_limit_counters WHERE key = \(stored)", logger: store.logger)
        }
    }
}
