import Foundation
internal import LatchkeyWire

/// What ``SessionManager`` keeps in the credential store: the session and the two dates its
/// policies need across launches.
struct StoredSession: Codable, Sendable, Equatable {
    /// Format version, for future migrations.
    var version: Int = 1
    var session: Session
    /// When the user signed in with credentials (for the maximum session age).
    var signedInAt: Date
    /// The last time the server accepted this session (for the offline grace period).
    var lastServerContact: Date

    init(session: Session, signedInAt: Date, lastServerContact: Date) {
        self.session = session
        self.signedInAt = signedInAt
        self.lastServerContact = lastServerContact
    }

    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        do {
            return try encoder.encode(self)
        } catch {
            throw StorageError.corrupted(reason: "cannot encode session")
        }
    }

    /// Reads what ``encoded()`` wrote, by ``StoredFormDecoder`` rather than `JSONDecoder`: a
    /// launch waits for this, and it reads the record several times faster.
    static func decode(_ data: Data) throws -> StoredSession {
        do {
            guard let text = String(data: data, encoding: .utf8) else { throw StorageError.corrupted(reason: "not UTF-8") }
            return try StoredSession(from: StoredFormDecoder(try JSONValue(parsing: text)))
        } catch {
            throw StorageError.corrupted(reason: "stored session is not readable")
        }
    }
}
