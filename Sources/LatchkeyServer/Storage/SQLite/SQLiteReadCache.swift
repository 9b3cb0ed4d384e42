import NIOConcurrencyHelpers

/// Rows read from a SQLite store, kept with the database version (``SQLiteCommitProbe``) they
/// were read at, and given back only while the database is still at that version.
///
/// A value is stored under the version seen *before* its read began, so a commit that lands
/// between that look and the read makes the entry stale at once rather than hiding the commit.
/// Any commit to the file, by this process or another, changes the version, so a cached value
/// is always exactly what a read would return now: a session signed out, a user banned or
/// deleted, a factor added is never served from here. What depends on the clock (expiry, a ban's
/// end) is checked by the caller on every request, as for a value just read.
///
/// Guarded by a lock rather than an actor: it is consulted on every bearer request, and a
/// lookup is a dictionary access, cheaper than a hop to another executor. Bounded: when full,
/// it starts again empty.
final class SQLiteReadCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var entries: [Key: (version: Int64, value: Value)] = [:]
    }

    private let state = NIOLockedValueBox(State())
    private let capacity: Int

    init(capacity: Int = 4_096) {
        self.capacity = max(1, capacity)
    }

    /// The value stored for `key` if it was read at `version`.
    func value(for key: Key, at version: Int64) -> Value? {
        state.withLockedValue { state in
            guard let entry = state.entries[key], entry.version == version else { return nil }
            return entry.value
        }
    }

    /// Keeps `value`, read after the database was seen at `version`.
    func insert(_ value: Value, for key: Key, at version: Int64) {
        state.withLockedValue { state in
            if state.entries.count >= capacity, state.entries[key] == nil { state.entries.removeAll(keepingCapacity: true) }
            state.entries[key] = (version, value)
        }
    }

    /// Forgets every value.
    func removeAll() {
        state.withLockedValue { $0.entries.removeAll() }
    }
}
