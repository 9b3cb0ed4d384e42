import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory, cross-process lock on a file (`flock`), so that processes sharing a credential
/// store (an app and its extensions, two runs of a command-line program) refresh one at a time.
///
/// `flock` locks belong to an open file description, so two ``FileLock``s in one process exclude
/// each other too, and the operating system releases the lock if its holder dies. Acquisition
/// polls with `LOCK_NB` rather than blocking a thread of Swift's cooperative pool.
struct FileLock: Sendable {
    /// A held lock; release it exactly once.
    final class Handle: Sendable {
        private let descriptor: Int32

        fileprivate init(descriptor: Int32) {
            self.descriptor = descriptor
        }

        func release() {
            _ = flock(descriptor, LOCK_UN)
            close(descriptor)
        }
    }

    let url: URL

    /// Waits up to `timeout` seconds for the lock, and stops waiting as soon as `giveUp` says so.
    /// - Returns: The held lock, or `nil` on time-out or when told to give up.
    /// - Throws: ``StorageError`` if the lock file cannot be opened; `CancellationError`.
    func acquire(timeout: TimeInterval, giveUp: @Sendable () -> Bool = { false }) async throws -> Handle? {
        try AtomicFile.createDirectory(url.deletingLastPathComponent())
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw AtomicFile.error(errno, "open lock") }
        let deadline = Date().addingTimeInterval(timeout)
        var pause: UInt64 = 1_000_000  // 1 ms, doubling to 20 ms
        while true {
            if giveUp() {
                close(descriptor)
                return nil
            }
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
                return Handle(descriptor: descriptor)
            }
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                close(descriptor)
                throw AtomicFile.error(code, "flock")
            }
            if Date() >= deadline || giveUp() {
                close(descriptor)
                return nil
            }
            do {
                try await Task.sleep(nanoseconds: pause)
            } catch {
                close(descriptor)
                throw error
            }
            pause = min(pause * 2, 20_000_000)
        }
    }
}
