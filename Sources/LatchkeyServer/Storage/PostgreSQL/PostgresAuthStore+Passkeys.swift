import Foundation
import LatchkeyWire
import PostgresNIO

/// Passkeys and WebAuthn challenges on PostgreSQL.
///
/// Every passkey change of a user first locks the user's row, so changes of one user's passkeys
/// serialise whichever instance runs them (the per-user limit holds under concurrent
/// registrations, a counter never goes back).
extension PostgresAuthStore {
    static let passkeyColumns = """
        id, user_id, credential_id, public_key, attestation_type, aaguid, sign_count, transports::text, backup_eligible, backed_up,
        friendly_name, created_at, updated_at, last_used_at
        """

    func passkeys(userID: UUID) async throws -> [PasskeyRecord] {
        try await autocommit { connection in try await Self.selectPasskeys(userID: userID, connection, logger: self.logger) }
    }

    func passkey(credentialID: [UInt8]) async throws -> PasskeyRecord? {
        try await autocommit { connection in
            try await connection.query(
                "SELECT \(unescaped: Self.passkeyColumns) FROM webauthn_credentials WHERE credential_id = \(Base64URL.encode(credentialID))",
                logger: self.logger
            ).firstRow(Self.passkey)
        }
    }

    func changePasskeys<Result: Sendable>(
        of userID: UUID, plan: @escaping @Sendable ([PasskeyRecord]) throws -> PasskeyPlan<Result>
    ) async throws -> Result {
        try await transaction { connection in
            try await connection.query("SELECT id FROM users WHERE id = \(userID) FOR UPDATE", logger: self.logger)
            let decided = try plan(try await Self.selectPasskeys(userID: userID, connection, logger: self.logger))
            for change in decided.changes {
                try await connection.query(Self.statement(for: change).query, logger: self.logger)
            }
            return decided.result
        }
    }

    func saveWebAuthnChallenge(_ challenge: WebAuthnChallengeRecord, deletingExpiredBefore cutoff: Date) async throws {
        try await transaction { connection in
            try await connection.query("DELETE FROM webauthn_challenges WHERE expires_at < \(cutoff)", logger: self.logger)
            try await connection.query(
                """
                INSERT INTO webauthn_challenges (id, kind, user_id, challenge, created_at, expires_at)
                VALUES (\(challenge.id), \(challenge.kind.rawValue), \(challenge.userID), \(Base64URL.encode(challenge.challenge)),
                    \(challenge.createdAt), \(challenge.expiresAt))
                """, logger: self.logger)
        }
    }

    func consumeWebAuthnChallenge(id: UUID, kind: WebAuthnChallengeRecord.Kind, userID: UUID?) async throws -> WebAuthnChallengeRecord? {
        try await autocommit { connection in
            let query: PostgresQuery =
                if let userID {
                    """
                    DELETE FROM webauthn_challenges WHERE id = \(id) AND kind = \(kind.rawValue) AND user_id = \(userID)
                    RETURNING challenge, created_at, expires_at
                    """
                } else {
                    """
                    DELETE FROM webauthn_challenges WHERE id = \(id) AND kind = \(kind.rawValue) AND user_id IS NULL
                    RETURNING challenge, created_at, expires_at
                    """
                }
            return try await connection.query(query, logger: self.logger).firstRow { row in
                let (text, createdAt, expiresAt) = try row.decode((String, Date, Date).self)
                guard let challenge = Base64URL.decode(text) else {
                    throw StoreError.unreadableRow("webauthn_challenges.challenge is not base64url")
                }
                return WebAuthnChallengeRecord(
                    id: id, kind: kind, userID: userID, challenge: Array(challenge), createdAt: createdAt, expiresAt: expiresAt)
            }
        }
    }

    static func selectPasskeys(userID: UUID, _ connection: PostgresConnection, logger: Logger) async throws -> [PasskeyRecord] {
        try await connection.query(
            "SELECT \(unescaped: passkeyColumns) FROM webauthn_credentials WHERE user_id = \(userID) ORDER BY created_at, id", logger: logger
        ).allRows(passkey)
    }

    static func passkey(_ row: PostgresRow) throws -> PasskeyRecord {
        let table = "webauthn_credentials"
        let cells = row.makeRandomAccess()
        guard let credentialID = Base64URL.decode(try cells[2].decode(String.self)),
            let publicKey = Base64URL.decode(try cells[3].decode(String.self))
        else { throw StoreError.unreadableRow("\(table).credential_id or public_key is not base64url") }
        guard let signCount = UInt32(exactly: try cells[6].decode(Int64.self)) else {
            throw StoreError.unreadableRow("\(table).sign_count is out of range")
        }
        let transports = try JSONDecoder().decode([String].self, from: Data(try cells[7].decode(String.self).utf8))
        return PasskeyRecord(
            id: try cells[0].decode(UUID.self), userID: try cells[1].decode(UUID.self), credentialID: Array(credentialID),
            publicKey: Array(publicKey), attestationType: try cells[4].decode(String.self), aaguid: try cells[5].decode(UUID?.self),
            signCount: signCount, transports: transports, backupEligible: try cells[8].decode(Bool.self), backedUp: try cells[9].decode(Bool.self),
            friendlyName: try cells[10].decode(String.self), createdAt: try cells[11].decode(Date.self), updatedAt: try cells[12].decode(Date.self),
            lastUsedAt: try cells[13].decode(Date?.self))
    }

    /// The statement of one row change of a passkey operation.
    static func statement(for change: PasskeyChange) throws -> PostgresFragment {
        switch change {
        case .insert(let passkey):
            let transports = String(decoding: try JSONEncoder().encode(passkey.transports), as: UTF8.self)
            return """
                INSERT INTO webauthn_credentials (id, user_id, credential_id, public_key, attestation_type, aaguid, sign_count, transports,
                    backup_eligible, backed_up, friendly_name, created_at, updated_at, last_used_at)
                VALUES (\(passkey.id), \(passkey.userID), \(passkey.credentialKey), \(Base64URL.encode(passkey.publicKey)),
                    \(passkey.attestationType), \(passkey.aaguid), \(Int64(passkey.signCount)), \(transports)::jsonb, \(passkey.backupEligible),
                    \(passkey.backedUp), \(passkey.friendlyName), \(passkey.createdAt), \(passkey.updatedAt), \(passkey.lastUsedAt))
                """
        case .update(let passkey):
            return """
                UPDATE webauthn_credentials SET friendly_name = \(passkey.friendlyName), sign_count = \(Int64(passkey.signCount)),
                    backed_up = \(passkey.backedUp), updated_at = \(passkey.updatedAt), last_used_at = \(passkey.lastUsedAt)
                WHERE id = \(passkey.id)
                """
        case .delete(let id):
            return "DELETE FROM webauthn_credentials WHERE id = \(id)"
        case .audit(let entry):
            return PostgresRows.insertAudit(entry)
        }
    }
}
