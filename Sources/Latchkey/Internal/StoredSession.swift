import Foundation

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
        encoder.userInfo[.latchkeyStoredForm] = true
        do {
            return try encoder.encode(self)
        } catch {
            throw StorageError.corrupted(reason: "cannot encode session")
        }
    }

    static func decode(_ data: Data) throws -> StoredSession {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        decoder.userInfo[.latchkeyStoredForm] = true
        do {
            return try decoder.decode(StoredSession.self, from: data)
        } catch {
            throw StorageError.corrupted(reason: "stored session is not readable")
        }
    }
}
