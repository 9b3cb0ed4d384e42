import NIOConcurrencyHelpers

/// Remembers access tokens whose signature has already been checked, so that a client sending
/// the same token many times pays for HMAC and JSON decoding once.
///
/// Keyed by the exact token text: only the same, already verified bytes hit the cache. Expiry
/// and the session's existence are still checked on every request by the caller. Bounded: when
/// full, the oldest half of the entries is dropped.
final class VerifiedTokenCache: Sendable {
    private struct State {
        var entries: [String: (claims: VerifiedClaims, order: UInt64)] = [:]
        var counter: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())
    let capacity: Int

    init(capacity: Int = 16_384) {
        self.capacity = max(2, capacity)
    }

    func claims(for token: String) -> VerifiedClaims? {
        state.withLockedValue { $0.entries[token]?.claims }
    }

    func insert(_ claims: VerifiedClaims, for token: String) {
        state.withLockedValue { state in
            if state.entries.count >= capacity {
                let cutoff = state.counter - UInt64(capacity / 2)
                state.entries = state.entries.filter { $0.value.order > cutoff }
            }
            state.counter += 1
            state.entries[token] = (claims, state.counter)
        }
    }
}
