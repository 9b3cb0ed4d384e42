import Foundation
import Latchkey

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
            try AtomicFile.write(try encoder.encode(self), to: url)
        } catch {
            throw ClientFailure(.other, "Cannot write \(url.path).", hint: "Check the permissions of \(directory.path).")
        }
    }

    /// Removes the settings in `directory` (absent is fine).
    static func remove(from directory: URL) {
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(fileName))
    }
}
