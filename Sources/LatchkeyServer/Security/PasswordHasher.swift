import Foundation
import HummingbirdBcrypt
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Hashes passwords with bcrypt and verifies them, bcrypt or imported (``StoredPasswordHash``),
/// on a dedicated thread pool.
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
        try await check(password, against: hash).matches
    }

    /// Whether `password` matches `hash`, and whether the hash should be replaced by the
    /// server's own: a hash of another algorithm (Firebase scrypt) or a bcrypt of another cost.
    /// With `hash == nil`, or a stored hash the server cannot read, it spends the time of a
    /// bcrypt verification and fails. Every comparison is constant-time.
    func check(_ password: String, against hash: String?) async throws -> PasswordCheck {
        let stored = hash.flatMap { try? StoredPasswordHash(parsing: $0) }
        let (cost, dummyHash) = (Int(self.cost), self.dummyHash)
        return try await pool.runIfActive {
            Self.lowerThreadPriority()
            switch stored {
            case .bcrypt(_, let hashCost):
                let matches = Bcrypt.verify(password, hash: stored?.bcryptForVerification ?? dummyHash)
                return PasswordCheck(matches: matches, needsRehash: matches && hashCost != cost)
            case .firebaseScrypt(let firebase):
                let matches = (try? firebase.matches(password)) ?? false
                return PasswordCheck(matches: matches, needsRehash: matches)
            case .argon2(let argon2):
                let matches = (try? argon2.matches(password)) ?? false
                return PasswordCheck(matches: matches, needsRehash: matches)
            case nil:
                _ = Bcrypt.verify(password, hash: dummyHash)
                return PasswordCheck(matches: false, needsRehash: false)
            }
        }
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

/// The outcome of checking a password against a stored hash.
struct PasswordCheck: Sendable, Equatable {
    var matches: Bool
    /// The password matched a hash the server would not make today: store a new one.
    var needsRehash: Bool
}
