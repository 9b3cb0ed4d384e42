import Foundation
import HummingbirdBcrypt
import NIOConcurrencyHelpers
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Hashes passwords with bcrypt and verifies them, bcrypt or imported (``StoredPasswordHash``),
/// on dedicated thread pools.
///
/// bcrypt is deliberately slow (tens of milliseconds), so it never runs on the event loop.
/// Its threads run at a lower scheduling priority, so that a flood of sign-ins uses the CPU
/// that is left over and token-only requests such as `GET /user` keep answering quickly.
///
/// A hash the server would not make itself (Firebase scrypt, a bcrypt of another cost) is
/// checked on a pool of its own with a bounded queue: however costly such hashes are, and
/// however many wrong passwords are tried against them, they never hold the threads that check
/// the server's own hashes. Beyond the queue, a check of a foreign hash is refused with a 429 at
/// once; a bcrypt above ``StoredPasswordHash/maximumImportedBcryptCost`` (or the server's own
/// cost, if higher) is not computed at all and never matches. Shutting down does not wait for
/// a hash in progress.
final class PasswordHasher: Sendable {
    private let pool: NIOThreadPool
    private let foreignPool: NIOThreadPool
    private let foreignAdmission: ForeignAdmission
    private let cost: UInt8
    /// Verified against when the account does not exist, so that an unknown email costs as much
    /// time as a wrong password and response times do not reveal which accounts exist.
    private let dummyHash: String
    /// Checks a foreign hash (replaced in tests to hold the foreign pool's threads).
    private let foreignCheck: @Sendable (StoredPasswordHash, String) -> Bool

    /// - Parameters:
    ///   - foreignThreads: the threads checking foreign hashes.
    ///   - foreignQueue: how many foreign checks may wait for those threads.
    init(
        cost: Int, threads: Int, foreignThreads: Int = 1, foreignQueue: Int = 4,
        foreignCheck: @escaping @Sendable (StoredPasswordHash, String) -> Bool = PasswordHasher.matches
    ) {
        self.cost = UInt8(clamping: cost)
        self.pool = NIOThreadPool(numberOfThreads: max(1, threads))
        self.pool.start()
        self.foreignPool = NIOThreadPool(numberOfThreads: max(1, foreignThreads))
        self.foreignPool.start()
        self.foreignAdmission = ForeignAdmission(limit: max(1, foreignThreads) + max(0, foreignQueue))
        self.foreignCheck = foreignCheck
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
    /// With `hash == nil`, or a stored hash the server cannot read or afford, it spends the time
    /// of a bcrypt verification and fails. Every comparison is constant-time.
    func check(_ password: String, against hash: String?) async throws -> PasswordCheck {
        let (cost, dummyHash) = (Int(self.cost), self.dummyHash)
        let stored = hash.flatMap { text -> StoredPasswordHash? in
            let parsed = try? StoredPasswordHash(parsing: text)
            if case .bcrypt(_, let hashCost) = parsed, !StoredPasswordHash.isAffordable(bcryptCost: hashCost, nativeCost: cost) { return nil }
            return parsed
        }
        switch stored {
        case .bcrypt(_, cost)?, nil:
            return try await pool.runIfActive {
                Self.lowerThreadPriority()
                let matches = Bcrypt.verify(password, hash: stored?.bcryptForVerification ?? dummyHash)
                return PasswordCheck(matches: stored != nil && matches, needsRehash: false)
            }
        case let foreign?:
            guard foreignAdmission.enter() else { throw AuthError.rateLimited(retryAfter: 1) }
            defer { foreignAdmission.leave() }
            let check = foreignCheck
            let matches = try await foreignPool.runIfActive {
                Self.lowerThreadPriority()
                return check(foreign, password)
            }
            return PasswordCheck(matches: matches, needsRehash: matches)
        }
    }

    /// How many checks of foreign hashes are running or waiting.
    var foreignChecks: Int { foreignAdmission.current }

    /// Whether `password` matches `stored` (bcrypt of any cost, Firebase scrypt or Argon2).
    static func matches(_ stored: StoredPasswordHash, _ password: String) -> Bool {
        switch stored {
        case .bcrypt: Bcrypt.verify(password, hash: stored.bcryptForVerification ?? "")
        case .firebaseScrypt(let firebase): (try? firebase.matches(password)) ?? false
        case .argon2(let argon2): (try? argon2.matches(password)) ?? false
        }
    }

    /// Stops both pools without waiting for a hash in progress: each thread ends once its
    /// current hash is done, and nothing waits for it.
    func shutdown() async throws {
        pool.shutdownGracefully { _ in }
        foreignPool.shutdownGracefully { _ in }
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

/// How many checks of foreign hashes are running or waiting, and the most allowed.
private final class ForeignAdmission: Sendable {
    private let count: NIOLockedValueBox<Int>
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
        self.count = NIOLockedValueBox(0)
    }

    /// Takes a place, or returns `false` when every place is taken.
    func enter() -> Bool {
        count.withLockedValue { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    func leave() { count.withLockedValue { $0 -= 1 } }

    var current: Int { count.withLockedValue { $0 } }
}
