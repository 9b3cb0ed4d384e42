import NIOConcurrencyHelpers

/// A bounded in-memory map shared across requests: the verified-token cache of
/// ``TokenSigner`` and the SQLite store's rows read at a commit version (``SQLiteReadCache``).
///
/// Guarded by a lock rather than an actor: it is consulted on every bearer request, and a
/// lookup is a dictionary access, cheaper than a hop to another executor. When full, the older
/// half of the entries (by insertion) is dropped, so what is in use now stays.
final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var entries: [Key: (value: Value, order: UInt64)] = [:]
        var counter: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(2, capacity)
    }

    /// The value stored for `key`, if any.
    func value(for key: Key) -> Value? {
        state.withLockedValue { $0.entries[key]?.value }
    }

    /// Stores `value` for `key`, replacing what was there.
    func insert(_ value: Value, for key: Key) {
        state.withLockedValue { state in
            if state.entries.count >= capacity, state.entries[key] == nil {
                let cutoff = state.counter - UInt64(capacity / 2)
                state.entries = state.entries.filter { $0.value.order > cutoff }
            }
            state.counter += 1
            state.entries[key] = (value, state.counter)
        }
    }

    /// Forgets every value.
    func removeAll() {
        state.withLockedValue { $0.entries.removeAll() }
    }
}
