import Foundation
import GRDB
import LatchkeyWire

/// Multi-factor authentication on SQLite: factors, challenges, and sessions' assurance levels.
extension SQLiteAuthStore {
    func factors(userID: UUID) async throws -> [FactorRecord] {
        try await read(through: factorLists, key: userID) { db in try SQLiteRows.factors(userID: userID, db) } ?? []
    }

    func changeFactors<Result: Sendable>(
        of userID: UUID, challengeID: UUID?, sessionID: UUID?, plan: @escaping @Sendable (FactorState) -> FactorPlan<Result>
    ) async throws -> Result {
        // SQLite's single writer serialises every factor change: what this reads stays true until commit.
        try await write { db in
            let factors = try SQLiteRows.factors(userID: userID, db)
            let challenge = try challengeID.flatMap {
                try db.fetchRow(sql: "SELECT * FROM mfa_challenges WHERE id = ?", arguments: [$0.lowercasedString]).map(SQLiteRows.challenge)
            }
            let session = try sessionID.flatMap {
                try SQLiteRows.session(id: $0.lowercasedString, db)
            }
            let decided = plan(FactorState(factors: factors, challenge: challenge, session: session))
            for change in decided.changes { try Self.apply(change, db) }
            return decided.result
        }
    }

    /// Writes one row change of a factor operation.
    static func apply(_ change: FactorChange, _ db: Database) throws {
        switch change {
        case .insertFactor(let factor):
            try db.run(
                sql: """
                    INSERT INTO mfa_factors (id, user_id, friendly_name, factor_type, status, secret, created_at, updated_at,
                        last_challenged_at, last_used_step, web_authn_credential, phone) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    factor.id.lowercasedString, factor.userID.lowercasedString, factor.friendlyName, factor.factorType,
                    factor.status.rawValue, factor.sealedSecret, factor.createdAt.timeIntervalSince1970, factor.updatedAt.timeIntervalSince1970,
                    factor.lastChallengedAt?.timeIntervalSince1970, factor.lastUsedStep, factor.webAuthnCredential?.storedText, factor.phone,
                ])
        case .updateFactor(let factor):
            try db.run(
                sql: """
                    UPDATE mfa_factors SET friendly_name = ?, status = ?, updated_at = ?, last_challenged_at = ?, last_used_step = ?,
                        web_authn_credential = ?
                    WHERE id = ?
                    """,
                arguments: [
                    factor.friendlyName, factor.status.rawValue, factor.updatedAt.timeIntervalSince1970,
                    factor.lastChallengedAt?.timeIntervalSince1970, factor.lastUsedStep, factor.webAuthnCredential?.storedText,
                    factor.id.lowercasedString,
                ])
        case .deleteFactor(let id):
            let key = id.lowercasedString
            try db.run(sql: "DELETE FROM mfa_factors WHERE id = ?", arguments: [key])
            try db.run(sql: "UPDATE sessions SET aal = 'aal1', factor_id = NULL, verified_methods = '[]' WHERE factor_id = ?", arguments: [key])
        case .insertChallenge(let challenge):
            try db.run(
                sql: """
                    INSERT INTO mfa_challenges (id, factor_id, created_at, verified_at, ip_address, web_authn_ceremony, web_authn_challenge,
                        code_hash)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    challenge.id.lowercasedString, challenge.factorID.lowercasedString, challenge.createdAt.timeIntervalSince1970,
                    challenge.verifiedAt?.timeIntervalSince1970, challenge.ipAddress, challenge.webAuthn?.ceremony.rawValue,
                    challenge.webAuthn.map { Base64URL.encode($0.challenge) }, challenge.codeHash,
                ])
        case .markChallengeVerified(let id, let at):
            try db.run(sql: "UPDATE mfa_challenges SET verified_at = ? WHERE id = ?", arguments: [at.timeIntervalSince1970, id.lowercasedString])
        case .deleteChallenge(let id):
            try db.run(sql: "DELETE FROM mfa_challenges WHERE id = ?", arguments: [id.lowercasedString])
        case .updateSessionAssurance(let session):
            try db.run(
                sql: "UPDATE sessions SET aal = ?, factor_id = ?, verified_methods = ?, updated_at = ? WHERE id = ?",
                arguments: [
                    session.aal.rawValue, session.factorID?.lowercasedString, session.verifiedMethodsJSON,
                    session.updatedAt.timeIntervalSince1970, session.id.lowercasedString,
                ])
        case .replaceRefreshToken(let token):
            try db.run(
                sql: "UPDATE refresh_tokens SET revoked_at = ? WHERE session_id = ? AND revoked_at IS NULL",
                arguments: [token.createdAt.timeIntervalSince1970, token.sessionID.lowercasedString])
            try SQLiteRows.apply(.insertToken(token), db)
        case .endLowerAssuranceSessions(let userID, let except):
            try db.run(
                sql: "DELETE FROM sessions WHERE user_id = ? AND aal = 'aal1' AND id <> ?",
                arguments: [userID.lowercasedString, except.lowercasedString])
        case .audit(let entry):
            try SQLiteRows.insertAudit(entry, db)
        }
    }
}
