import Foundation
import HummingbirdBcrypt
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Hashes and verifies passwords with bcrypt on a dedicated thread pool.
///
/// bcrypt is deliberately slow (tens of milliseconds), so it never runs on the event loop.
/// Its threads run at a lower scheduling priority, so that a flood of sign-ins uses the CPU
/// that is left over and token-only requests such as `GET /user` keep answering quickly.
final class PasswordHasher: Sendable {
    private let pool: NIOThreadPool
    private let cost: UInt8
    /// Verified against when the account does not exist, so that an unknown email costs as much
    /// time as a wrong password and response times do not reveal which accounts exist.
    private let dummyHash: String

    init(cost: Int, threads: Int) {
        self.cost = UInt8(clamping: cost)
        self.pool = NIOThreadPool(numberOfThreads: max(1, threads))
        self.pool.start()
        self.dummyHash = Bcrypt.hash("latchkey-dummy-password-\(UUID().uuidString)", cost: UInt8(clamping: cost))
    }

    /// The bcrypt hash of `password`.
    func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await pool.runIfActive {
            Self.lowerThreadPriority()
            return Bcrypt.hash(password, cost: cost)
        }
    }

    /// Whether `password` matches `hash`; with `hash == nil` it spends the same time and fails.
    func verify(_ password: String, against hash: String?) async throws -> Bool {
        let target = hash ?? dummyHash
        let matches = try await pool.runIfActive {
            Self.lowerThreadPriority()
            return Bcrypt.verify(password, hash: target)
        }
        return hash != nil && matches
    }

    func shutdown() async throws {
        try await pool.shutdownGracefully()
    }

    private static func lowerThreadPriority() {
        #if os(Linux)
        // On Linux, `setpriority(PRIO_PROCESS, 0, …)` changes only the calling thread (a
        // documented divergence from POSIX), so only the hashing threads are lowered.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        #endif
    }
}
