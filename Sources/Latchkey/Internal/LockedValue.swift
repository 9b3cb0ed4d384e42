import Foundation

/// A value guarded by a lock, for the few places where state must be shared with
/// synchronous, non-isolated code (event subscribers, the manual clock, libsecret calls).
///
/// `Synchronization.Mutex` would do the same but needs macOS 15 / iOS 18; this package
/// supports macOS 14 / iOS 17.
final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
