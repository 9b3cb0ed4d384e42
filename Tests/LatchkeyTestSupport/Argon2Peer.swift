import Foundation

/// PyPI's `argon2-cffi` (pinned in .ci/run): Argon2 hashes in the PHC string form, made by an
/// implementation nobody here wrote, run through `python3`, for the hashes the server must accept.
package enum Argon2Peer {
    /// Whether `python3` can import `argon2` (argon2-cffi; checked once, when the tests are planned).
    package static let isAvailable = PythonPeer.canImport("argon2")

    package static let skipReason = "python3 cannot import argon2: pip install argon2-cffi==25.1.0"

    /// Reads a JSON list of {password, type ("i" or "id"), m, t, p} from its argument and prints
    /// argon2-cffi's hash of each.
    static let script = """
        import json, sys
        from argon2 import PasswordHasher, Type
        hashes = []
        for job in json.loads(sys.argv[1]):
            hasher = PasswordHasher(time_cost=job["t"], memory_cost=job["m"], parallelism=job["p"], hash_len=32, salt_len=16,
                type=Type.ID if job["type"] == "id" else Type.I)
            hashes.append(hasher.hash(job["password"]))
        print(json.dumps(hashes))
        """

    /// One hash to make: the password, `i` or `id`, memory in KiB, passes, lanes.
    package struct Job: Sendable {
        package var password: String
        package var type: String
        package var memoryKiB: Int
        package var iterations: Int
        package var parallelism: Int

        package init(password: String, type: String, memoryKiB: Int, iterations: Int, parallelism: Int) {
            self.password = password
            self.type = type
            self.memoryKiB = memoryKiB
            self.iterations = iterations
            self.parallelism = parallelism
        }
    }

    /// argon2-cffi's PHC string of each job.
    package static func hashes(_ jobs: [Job]) async throws -> [String] {
        let list = jobs.map {
            ["password": $0.password, "type": $0.type, "m": $0.memoryKiB, "t": $0.iterations, "p": $0.parallelism] as [String: Any]
        }
        let argument = String(decoding: try JSONSerialization.data(withJSONObject: list), as: UTF8.self)
        let hashes = try await PythonPeer.run(script, argument: argument, as: [String].self)
        guard hashes.count == jobs.count else { throw PythonPeer.PeerFailure(description: "argon2-cffi gave \(hashes.count) hashes") }
        return hashes
    }
}
