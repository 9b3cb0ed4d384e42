import Foundation

/// PyPI's `bcrypt` (pinned in .ci/run), run through `python3`: the password hashes of the
/// GoTrue-shaped users the Supabase import tests read, made by an implementation nobody here wrote;
/// and RFC 6238 codes from Python's standard library for the TOTP secrets they carry.
package enum BcryptPeer {
    package static let isAvailable = PythonPeer.canImport("bcrypt")

    package static let skipReason = "python3 cannot import bcrypt: pip install bcrypt==5.0.0"

    /// Reads [[password, prefix]] and prints a cost-4 hash of each, with the prefix asked for
    /// (`2a` or `2b` from the library; `2y`, PHP's name for `2b`, by renaming a `2b` hash).
    static let script = """
        import bcrypt, json, sys
        hashes = []
        for password, prefix in json.loads(sys.argv[1]):
            salt = bcrypt.gensalt(rounds=4, prefix=b"2a" if prefix == "2a" else b"2b")
            hashed = bcrypt.hashpw(password.encode(), salt).decode()
            hashes.append("$2y$" + hashed[4:] if prefix == "2y" else hashed)
        print(json.dumps(hashes))
        """

    /// A bcrypt hash of each password with the prefix given (`2a`, `2b` or `2y`).
    package static func hashes(_ passwords: [(password: String, prefix: String)]) async throws -> [String] {
        let argument = String(decoding: try JSONEncoder().encode(passwords.map { [$0.password, $0.prefix] }), as: UTF8.self)
        let hashes = try await PythonPeer.run(script, argument: argument, as: [String].self)
        guard hashes.count == passwords.count else { throw PythonPeer.PeerFailure(description: "bcrypt gave \(hashes.count) hashes") }
        return hashes
    }

    /// The six-digit TOTP code (RFC 6238: SHA-1, 30-second steps) of a base32 `secret` at `date`.
    package static func totpCode(secret: String, at date: Date) async throws -> String {
        let script = """
            import base64, hashlib, hmac, json, struct, sys
            secret, seconds = json.loads(sys.argv[1])
            key = base64.b32decode(secret + "=" * (-len(secret) % 8))
            digest = hmac.new(key, struct.pack(">Q", int(seconds) // 30), hashlib.sha1).digest()
            offset = digest[-1] & 15
            print(json.dumps("%06d" % ((struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1000000)))
            """
        let argument = String(decoding: try JSONSerialization.data(withJSONObject: [secret, Int(date.timeIntervalSince1970)]), as: UTF8.self)
        return try await PythonPeer.run(script, argument: argument, as: String.self)
    }
}
