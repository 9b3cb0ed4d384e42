import Foundation
import GRDB
import LatchkeyWire

/// Passkeys and WebAuthn challenges on SQLite.
extension SQLiteAuthStore {
    static let passkeyColumns = """
        id, user_id, credential_id, public_key, attestation_type, aaguid, sign_count, transports, backup_eligible, backed_up,
        friendly_name, created_at, updated_at, last_used_at
        """

    func passkeys(userID: UUID) async throws -> [PasskeyRecord] {
        try await read { db in try Self.passkeys(userID: userID, db) }
    }

    func passkey(credentialID: [UInt8]) async throws -> PasskeyRecord? {
        try await read { db in
            try db.fetchRow(
                sql: "SELECT \(Self.passkeyColumns) FROM webauthn_credentials WHERE credential_id = ?", arguments: [Base64URL.encode(credentialID)]
            ).map(Self.passkey)
        }
    }

    func changePasskeys<Result: Sendable>(
        of userID: UUID, plan: @escaping @Sendable ([PasskeyRecord]) throws -> PasskeyPlan<Result>
    ) async throws -> Result {
        // SQLite's single writer serialises every change: what this reads stays true until commit.
        try await write { db in
            let decided = try plan(try Self.passkeys(userID: userID, db))
            for change in decided.changes { try Self.apply(change, db) }
            return decided.result
        }
    }

    func saveWebAuthnChallenge(_ challenge: WebAuthnChallengeRecord, deletingExpiredBefore cutoff: Date) async throws {
        try await write { db in
            try db.run(sql: "DELETE FROM webauthn_challenges WHERE expires_at < ?", arguments: [cutoff.timeIntervalSince1970])
            try db.run(
                sql: "INSERT INTO webauthn_challenges (id, kind, user_id, challenge, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    challenge.id.lowercasedString, challenge.kind.rawValue, challenge.userID?.lowercasedString, Base64URL.encode(challenge.challenge),
                    challenge.createdAt.timeIntervalSince1970, challenge.expiresAt.timeIntervalSince1970,
                ])
        }
    }

    func consumeWebAuthnChallenge(id: UUID, kind: WebAuthnChallengeRecord.Kind, userID: UUID?) async throws -> WebAuthnChallengeRecord? {
        try await write { db in
            // `user_id IS ?` matches NULL with NULL, and a user's id with itself.
            guard
                let row = try db.fetchRow(
                    sql: "SELECT challenge, created_at, expires_at FROM webauthn_challenges WHERE id = ? AND kind = ? AND user_id IS ?",
                    arguments: [id.lowercasedString, kind.rawValue, userID?.lowercasedString])
            else { return nil }
            try db.run(sql: "DELETE FROM webauthn_challenges WHERE id = ?", arguments: [id.lowercasedString])
            guard let challenge = Base64URL.decode(row["challenge"] as String) else {
                throw StoreError.unreadableRow("webauthn_challenges.challenge is not base64url")
            }
            return WebAuthnChallengeRecord(
                id: id, kind: kind, userID: userID, challenge: Array(challenge), createdAt: Date(timeIntervalSince1970: row["created_at"]),
                expiresAt: Date(timeIntervalSince1970: row["expires_at"]))
        }
    }

    static func passkeys(userID: UUID, _ db: Database) throws -> [PasskeyRecord] {
        try db.fetchRows(
            sql: "SELECT \(passkeyColumns) FROM webauthn_credentials WHERE user_id = ? ORDER BY created_at, id", arguments: [userID.lowercasedString]
        ).map(passkey)
    }

    /// A passkey from a row of ``passkeyColumns``, read by position.
    static func passkey(_ row: Row) throws -> PasskeyRecord {
        let table = "webauthn_credentials"
        guard let credentialID = Base64URL.decode(row[2] as String), let publicKey = Base64URL.decode(row[3] as String) else {
            throw StoreError.unreadableRow("\(table).credential_id or public_key is not base64url")
        }
        let transports = try JSONDecoder().decode([String].self, from: Data((row[7] as String).utf8))
        let signCount: Int64 = row[6]
        guard let counter = UInt32(exactly: signCount) else { throw StoreError.unreadableRow("\(table).sign_count is out of range") }
        return PasskeyRecord(
            id: try SQLiteRows.uuid(row, at: 0, "id", of: table), userID: try SQLiteRows.uuid(row, at: 1, "user_id", of: table),
            credentialID: Array(credentialID), publicKey: Array(publicKey), attestationType: row[4],
            aaguid: try (row[5] as String?).map { text throws(StoreError) in
                guard let aaguid = UUID(uuidString: text) else { throw .unreadableRow("\(table).aaguid holds no UUID") }
                return aaguid
            }, signCount: counter, transports: transports,
            backupEligible: row[8], backedUp: row[9], friendlyName: row[10], createdAt: Date(timeIntervalSince1970: row[11]),
            updatedAt: Date(timeIntervalSince1970: row[12]), lastUsedAt: (row[13] as Double?).map(Date.init(timeIntervalSince1970:)))
    }

    /// Writes one row change of a passkey operation.
    static func apply(_ change: PasskeyChange, _ db: Database) throws {
        switch change {
        case .insert(let passkey):
            let transports = String(decoding: try JSONEncoder().encode(passkey.transports), as: UTF8.self)
            try db.run(
                sql: "INSERT INTO webauthn_credentials (\(passkeyColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                arguments: [
                    passkey.id.lowercasedString, passkey.userID.lowercasedString, passkey.credentialKey, Base64URL.encode(passkey.publicKey),
                    passkey.attestationType, passkey.aaguid?.lowercasedString, Int64(passkey.signCount), transports, passkey.backupEligible,
                    passkey.backedUp, passkey.friendlyName, passkey.createdAt.timeIntervalSince1970, passkey.updatedAt.timeIntervalSince1970,
                    passkey.lastUsedAt?.timeIntervalSince1970,
                ])
        case .update(let passkey):
            try db.run(
                sql: """
                    UPDATE webauthn_credentials SET friendly_name = ?, sign_count = ?, backed_up = ?, updated_at = ?, last_used_at = ?
                    WHERE id = ?
                    """,
                arguments: [
                    passkey.friendlyName, Int64(passkey.signCount), passkey.backedUp, passkey.updatedAt.timeIntervalSince1970,
                    passkey.lastUsedAt?.timeIntervalSince1970, passkey.id.lowercasedString,
                ])
        case .delete(let id):
            try db.run(sql: "DELETE FROM webauthn_credentials WHERE id = ?", arguments: [id.lowercasedString])
        case .audit(let entry):
            try SQLiteRows.insertAudit(entry, db)
        }
    }
}
