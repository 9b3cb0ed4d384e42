import Foundation

/// What a profile remembers in plain text (`profile.json`, mode 0600): where the server is and
/// which credential store holds the session. Nothing secret: the tokens are in the store.
struct ProfileSettings: Codable, Sendable, Equatable {
    /// The auth server's URL, as given to `--server`.
    var server: String
    /// The server's public anon key (Supabase projects need it), if one was given.
    var apiKey: String?
    /// The credential store the session was saved in.
    var store: CredentialStoreKind
    /// The email last used to sign in (the default for the next `login`).
    var email: String?
    /// When the user last signed in with a password (for the session age `status` shows).
    var signedInAt: Date?

    enum CodingKeys: String, CodingKey {
        case server
        case apiKey = "api_key"
        case store
        case email
        case signedInAt = "signed_in_at"
    }

    static let fileName = "profile.json"

    /// Reads the settings in `directory`, or `nil` when there are none.
    static func load(from directory: URL) throws -> ProfileSettings? {
        let url = directory.appendingPathComponent(fileName)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile || error.code == .fileNoSuchFile {
            return nil
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) { return nil }
            throw ClientFailure(.other, "Cannot read \(url.path).", hint: "Check its permissions.")
        }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(ProfileSettings.self, from: data)
        } catch {
            throw ClientFailure(.other, "\(url.path) is not a valid profile.", hint: "Delete it and sign in again.")
        }
    }

    /// Writes the settings to `directory` atomically, mode 0600.
    func save(to directory: URL) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let url = directory.appendingPathComponent(Self.fileName)
        do {
            try PrivateFile.write(try encoder.encode(self), to: url)
        } catch {
            throw ClientFailure(.other, "Cannot write \(url.path).", hint: "Check the permissions of \(directory.path).")
        }
    }

    /// Removes the settings in `directory` (absent is fine).
    static func remove(from directory: URL) {
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(fileName))
    }
}

/// Owner-only files written atomically: a temporary file created 0600, fsynced, renamed over.
enum PrivateFile {
    static func write(_ data: Data, to url: URL) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission) }
        var ok = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
        ok = ok && fsync(descriptor) == 0
        close(descriptor)
        guard ok, rename(temporary.path, url.path) == 0 else {
            unlink(temporary.path)
            throw CocoaError(.fileWriteUnknown)
        }
    }
}
