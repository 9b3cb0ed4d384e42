import Foundation

/// PyPI's `firebase-scrypt` (pinned in .ci/run): an implementation of Firebase's modified
/// scrypt that nobody here wrote, run through `python3`, to make hashes the server must accept.
package enum FirebaseScryptPeer {
    /// Whether `python3` can import `firebase_scrypt` (checked once, when the tests are planned).
    package static let isAvailable = PythonPeer.canImport("firebase_scrypt")

    package static let skipReason = "python3 cannot import firebase_scrypt: pip install firebase-scrypt==0.1.0"

    /// Reads a JSON object {signer_key, salt_separator, rounds, mem_cost, accounts: [{password,
    /// salt}]} (base64 keys and salts) from its argument and prints the base64 hash of each account.
    static let script = """
        import base64, json, sys
        from firebase_scrypt import generate_derived_key, encrypt
        job = json.loads(sys.argv[1])
        signer_key = base64.b64decode(job["signer_key"])
        hashes = []
        for account in job["accounts"]:
            key = generate_derived_key(account["password"], account["salt"], job["salt_separator"], job["rounds"], job["mem_cost"])
            hashes.append(base64.b64encode(encrypt(signer_key, key)).decode())
        print(json.dumps(hashes))
        """

    /// Firebase's base64 hash of each (password, base64 salt) with the project parameters given.
    package static func hashes(
        _ accounts: [(password: String, salt: String)], signerKey: String, saltSeparator: String, rounds: Int, memoryCost: Int
    ) async throws -> [String] {
        let job: [String: Any] = [
            "signer_key": signerKey, "salt_separator": saltSeparator, "rounds": rounds, "mem_cost": memoryCost,
            "accounts": accounts.map { ["password": $0.password, "salt": $0.salt] },
        ]
        let argument = String(decoding: try JSONSerialization.data(withJSONObject: job), as: UTF8.self)
        let (status, output) = try await ChildProcess.run(
            executable: "/usr/bin/env", arguments: ["python3", "-c", script, argument], environment: ProcessInfo.processInfo.environment)
        guard status == 0, let hashes = try JSONSerialization.jsonObject(with: output) as? [String], hashes.count == accounts.count else {
            throw PeerFailure(description: "firebase_scrypt exited with \(status)")
        }
        return hashes
    }

    package struct PeerFailure: Error, CustomStringConvertible {
        package var description: String
    }

    /// Random bytes in base64, for salts and keys.
    package static func randomBase64(count: Int) -> String {
        Data((0..<count).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }
}
