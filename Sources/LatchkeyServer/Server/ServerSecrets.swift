import Foundation

/// Prepares the data directory and the JWT secret.
enum ServerSecrets {
    /// Creates `directory` (mode 0700) if needed and tightens it if it exists.
    static func prepareDataDirectory(_ directory: URL) throws {
        let manager = FileManager.default
        try manager.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
    }

    /// The configured secret, or the one kept in `<dataDirectory>/jwt-secret`, generated
    /// (384 random bits, file mode 0600) on first start so tokens survive restarts.
    static func jwtSecret(configured: String?, dataDirectory: URL) throws -> String {
        if let configured { return configured }
        let file = dataDirectory.appendingPathComponent("jwt-secret")
        if let data = FileManager.default.contents(atPath: file.path) {
            let secret = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard secret.utf8.count >= 32 else {
                throw ConfigurationError("\(file.path) holds a secret shorter than 32 bytes; remove it to generate a new one")
            }
            return secret
        }
        let secret = OpaqueTokens.random(byteCount: 48)
        guard FileManager.default.createFile(atPath: file.path, contents: Data(secret.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw ConfigurationError("cannot write \(file.path)")
        }
        return secret
    }

    /// Sets mode 0600 on `path` and SQLite's companion files if they exist.
    static func restrictDatabaseFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path + suffix)
        }
    }
}
