/// Rows read from a SQLite store, kept with the database version (``SQLiteCommitProbe``) they
/// were read at, and given back only while the database is still at that version.
///
/// A value is stored under the version seen *before* its read began, so a commit that lands
/// between that look and the read makes the entry stale at once rather than hiding the commit.
/// Any commit to the file, by this process or another, changes the version, so a cached value
/// is always exactly what a read would return now: a session signed out, a user banned or
/// deleted, a factor added is never served from here. What depends on the clock (expiry, a ban's
/// end) is checked by the caller on every request, as for a value just read.
struct SQLiteReadCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let entries: BoundedCache<Key, (version: Int64, value: Value)>

    init(capacity: Int = 4_096) {
        entries = BoundedCache(capacity: capacity)
    }

    /// The value stored for `key` if it was read at `version`.
    func value(for key: Key, at version: Int64) -> Value? {
        guard let entry = entries.value(for: key), entry.version == version else { return nil }
        return entry.value
    }

    /// Keeps `value`, read after the database was seen at `version`.
    func insert(_ value: Value, for key: Key, at version: Int64) {
        entries.insert((version, value), for: key)
    }

    /// Forgets every value.
    func removeAll() {
        entries.removeAll()
    }
}
