import Foundation
import PostgresNIO

/// Sessions and refresh-token rotation on PostgreSQL.
///
/// Lock order, the same in every transaction that changes a session's tokens: the session row
/// first, then its token rows. Rotation therefore serialises on the session, whichever instance
/// runs it: of any number of concurrent refreshes of one token, the first rotates it and every
/// later one finds it spent and gets the successor back (``RefreshRotation``'s rules), or
/// revokes the session when the token is an old one.
extension PostgresAuthStore {
    public func createSession(_ session: SessionRecord, refreshTokenHash: String, updatingUser: UserRecord?, audit: AuditEntry?) async throws {
        try await transaction { connection in
            try await connection.query(PostgresRows.insertSession(session), logger: self.logger)
            try await connection.query(
                PostgresRows.insertRefreshToken(hash: refreshTokenHash, parentHash: nil, session: session, now: session.createdAt),
                logger: self.logger)
            if let updatingUser { try await connection.query(PostgresRows.updateUser(updatingUser), logger: self.logger) }
            if let audit { try await connection.query(PostgresRows.insertAudit(audit), logger: self.logger) }
        }
    }

    public func sessionWithUser(id: UUID) async throws -> (session: SessionRecord, user: UserRecord)? {
        // One round trip: this runs on every request with a bearer token.
        let found = try await autocommit { connection in
            try await connection.query(
                """
                SELECT \(unescaped: PostgresRows.sessionColumnsOfS), \(unescaped: PostgresRows.userColumnsOfU)
                FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id = \(id)
                """, logger: self.logger
            ).firstRow { SessionAndUser(session: try PostgresRows.session($0), user: try PostgresRows.user($0, offset: 7)) }
        }
        return found.map { ($0.session, $0.user) }
    }

    public func endSessions(userID: UUID, except: UUID?, only: UUID?, audit: AuditEntry?) async throws -> Int {
        try await transaction { connection in
            let ended = try await connection.query(
                """
                DELETE FROM sessions WHERE user_id = \(userID)
                    AND (\(except)::uuid IS NULL OR id <> \(except)) AND (\(only)::uuid IS NULL OR id = \(only))
                RETURNING id
                """, logger: self.logger
            ).rowCount()
            if let audit { try await connection.query(PostgresRows.insertAudit(audit), logger: self.logger) }
            return ended
        }
    }

    public func rotateRefreshToken(_ request: RefreshRotation.Request) async throws -> RefreshRotation.Outcome {
        try await transaction { connection in
            let presentedHash = OpaqueTokens.hash(request.presentedToken)
            // 1. Lock the session that owns the presented token (with its user, for the ban check).
            let locked = try await connection.query(
                """
                SELECT \(unescaped: PostgresRows.sessionColumnsOfS), \(unescaped: PostgresRows.userColumnsOfU)
                FROM sessions s JOIN users u ON u.id = s.user_id
                WHERE s.id = (SELECT session_id FROM refresh_tokens WHERE token_hash = \(presentedHash))
                FOR UPDATE OF s
                """, logger: self.logger
            ).firstRow { SessionAndUser(session: try PostgresRows.session($0), user: try PostgresRows.user($0, offset: 7)) }
            // 2. The token itself, locked while the session is; read as it is now, after any
            //    rotation that held the session lock before us.
            let token = try await connection.query(
                "SELECT \(unescaped: PostgresRows.refreshTokenColumns) FROM refresh_tokens WHERE token_hash = \(presentedHash) FOR UPDATE",
                logger: self.logger
            ).firstRow(PostgresRows.refreshToken)
            // 3. The session's active token, when the presented one is spent.
            var active: RefreshTokenRecord?
            if let token, token.revokedAt != nil, locked != nil {
                active = try await connection.query(
                    """
                    SELECT \(unescaped: PostgresRows.refreshTokenColumns) FROM refresh_tokens
                    WHERE session_id = \(token.sessionID) AND revoked_at IS NULL ORDER BY id DESC LIMIT 1 FOR UPDATE
                    """, logger: self.logger
                ).firstRow(PostgresRows.refreshToken)
            }
            let decision = RefreshRotation.decide(
                presented: request.presentedToken, token: token, session: locked?.session, user: locked?.user,
                activeToken: active, request: request)
            return try await self.apply(decision, token: token, locked: locked, request: request, on: connection)
        }
    }

    /// Writes what `decision` says, inside the rotation's transaction.
    private func apply(
        _ decision: RefreshRotation.Decision, token: RefreshTokenRecord?, locked: SessionAndUser?,
        request: RefreshRotation.Request, on connection: PostgresConnection
    ) async throws -> RefreshRotation.Outcome {
        switch decision {
        case .refuse(let error):
            return .refused(error)
        case .rotate(let successor, let successorHash):
            guard let token, let tokenID = token.id, var session = locked?.session, let user = locked?.user else {
                return .refused(.refreshTokenNotFound)
            }
            let audit = AuditEntry(
                action: .tokenRefreshed, actorID: user.id, actorUsername: user.email, ipAddress: request.ipAddress, createdAt: request.now)
            // Spend the token, add its successor, touch the session and log it: one statement.
            try await connection.query(
                """
                WITH spent AS (UPDATE refresh_tokens SET revoked_at = \(request.now) WHERE id = \(tokenID)),
                    successor AS (
                        INSERT INTO refresh_tokens (token_hash, session_id, user_id, parent_hash, revoked_at, created_at)
                        VALUES (\(successorHash), \(session.id), \(session.userID), \(token.tokenHash), NULL, \(request.now))),
                    touched AS (UPDATE sessions SET refreshed_at = \(request.now), updated_at = \(request.now) WHERE id = \(session.id))
                INSERT INTO audit_log (id, action, actor_id, actor_username, log_type, traits, ip_address, created_at)
                VALUES (\(audit.id), \(audit.action.rawValue), \(audit.actorID), \(audit.actorUsername), \(audit.logType),
                    \(audit.traits.jsonString())::jsonb, \(audit.ipAddress), \(audit.createdAt))
                """, logger: logger)
            session.refreshedAt = request.now
            session.updatedAt = request.now
            return .issued(session: session, user: user, refreshToken: successor)
        case .returnActive(let activeToken):
            guard let session = locked?.session, let user = locked?.user else { return .refused(.sessionNotFound) }
            return .issued(session: session, user: user, refreshToken: activeToken)
        case .revokeSession:
            guard let token, let user = locked?.user else { return .refused(.refreshTokenAlreadyUsed) }
            try await connection.query("DELETE FROM sessions WHERE id = \(token.sessionID)", logger: logger)
            try await connection.query(
                "UPDATE refresh_tokens SET revoked_at = \(request.now) WHERE session_id = \(token.sessionID) AND revoked_at IS NULL",
                logger: logger)
            try await connection.query(
                PostgresRows.insertAudit(
                    AuditEntry(
                        action: .tokenRevoked, actorID: user.id, actorUsername: user.email,
                        traits: ["reason": .string("refresh_token_reuse_detected"), "session_id": .string(token.sessionID.uuidString.lowercased())],
                        ipAddress: request.ipAddress, createdAt: request.now)),
                logger: logger)
            return .refused(.refreshTokenAlreadyUsed)
        }
    }
}

/// A session with its user, as one `Sendable` value leaving a query.
struct SessionAndUser: Sendable {
    var session: SessionRecord
    var user: UserRecord
}
