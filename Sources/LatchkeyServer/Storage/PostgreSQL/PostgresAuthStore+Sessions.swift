import Foundation
import PostgresNIO

/// Sessions and refresh-token rotation on PostgreSQL.
///
/// Lock order, the same in every transaction that changes a session's tokens: the session row
/// first, then its token rows. Rotation therefore serialises on the session, whichever instance
/// runs it: of any number of concurrent refreshes of one token, the first rotates it, and every
/// later one reads it spent once the lock is free, so the plan hands it the successor (or
/// revokes the session when the token is an old one).
extension PostgresAuthStore {
    func createSession(_ session: SessionRecord, refreshTokenHash: String, updatingUser: UserRecord?, audit: AuditEntry?) async throws {
        try await transaction { connection in
            try await self.insertSession(session, refreshTokenHash: refreshTokenHash, connection)
            if let updatingUser { try await connection.query(PostgresRows.updateUser(updatingUser), logger: self.logger) }
            if let audit { try await connection.query(PostgresRows.insertAudit(audit).query, logger: self.logger) }
        }
    }

    func insertSession(_ session: SessionRecord, refreshTokenHash: String, _ connection: PostgresConnection) async throws {
        try await connection.query(PostgresRows.insertSession(session), logger: self.logger)
        try await connection.query(
            PostgresRows.insertRefreshToken(RefreshTokenRecord(hash: refreshTokenHash, of: session, parentHash: nil, createdAt: session.createdAt))
                .query,
            logger: self.logger)
    }

    func sessionWithUser(id: UUID) async throws -> (session: SessionRecord, user: UserRecord)? {
        // One round trip: this runs on every request with a bearer token.
        let found = try await autocommit { connection in
            try await connection.query(
                """
                SELECT \(unescaped: PostgresRows.sessionColumnsOfS), \(unescaped: PostgresRows.userColumnsOfU)
                FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id = \(id)
                """, logger: self.logger
            ).firstRow {
                SessionAndUser(session: try PostgresRows.session($0), user: try PostgresRows.user($0, offset: PostgresRows.sessionColumnCount))
            }
        }
        return found.map { ($0.session, $0.user) }
    }

    func endSessions(userID: UUID, except: UUID?, only: UUID?, audit: AuditEntry?) async throws -> Int {
        try await transaction { connection in
            let ended = try await connection.query(PostgresRows.endSessions(userID: userID, except: except, only: only), logger: self.logger)
                .rowCount()
            if let audit { try await connection.query(PostgresRows.insertAudit(audit).query, logger: self.logger) }
            return ended
        }
    }

    func sessionID(ofRefreshTokenHash hash: String) async throws -> UUID? {
        try await autocommit { connection in
            try await connection.query("SELECT session_id FROM refresh_tokens WHERE token_hash = \(hash)", logger: self.logger)
                .firstRow { try $0.decode(UUID.self) }
        }
    }

    func rotateRefreshToken<Result: Sendable>(
        hash: String, admission: RefreshAdmission?, plan: @escaping @Sendable (RefreshTokenState) -> RefreshTokenPlan<Result>
    ) async throws -> Result {
        try await transaction { connection in
            // 1. Lock the session that owns the presented token (with its user, for the ban check).
            let locked = try await connection.query(
                """
                SELECT \(unescaped: PostgresRows.sessionColumnsOfS), \(unescaped: PostgresRows.userColumnsOfU)
                FROM sessions s JOIN users u ON u.id = s.user_id
                WHERE s.id = (SELECT session_id FROM refresh_tokens WHERE token_hash = \(hash))
                FOR UPDATE OF s
                """, logger: self.logger
            ).firstRow {
                SessionAndUser(session: try PostgresRows.session($0), user: try PostgresRows.user($0, offset: PostgresRows.sessionColumnCount))
            }
            // 2. The token itself, locked while the session is; read as it is now, after any
            //    rotation that held the session lock before us.
            let token = try await connection.query(
                "SELECT \(unescaped: PostgresRows.refreshTokenColumns) FROM refresh_tokens WHERE token_hash = \(hash) FOR UPDATE",
                logger: self.logger
            ).firstRow(PostgresRows.refreshToken)
            // The refresh counts against its session here, in this transaction: it commits or
            // rolls back with the rotation, and a refused one leaves nothing written.
            if let admission, let token {
                if let counter = admission.counter as? PostgresRateLimitCounter {
                    if let retryAfter = try await counter.consume(
                        RefreshAdmission.key(token.sessionID), limit: admission.limit, minimumInterval: 0, at: admission.date, on: connection)
                    {
                        throw AuthError.rateLimited(retryAfter: retryAfter)
                    }
                } else {
                    try await admission.admit(token.sessionID)
                }
            }
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
            let decided = plan(RefreshTokenState(token: token, session: locked?.session, user: locked?.user, activeToken: active))
            // 4. Every change in one statement: one round trip while the session is locked.
            if let statement = PostgresRows.apply(decided.changes) {
                try await connection.query(statement, logger: self.logger)
            }
            return decided.result
        }
    }
}

// MARK: Cleanup

extension PostgresAuthStore {
    func deleteStaleRows(_ cutoffs: StaleRowCutoffs, limit: Int) async throws -> StaleRowCounts {
        // Each kind is one statement (one short transaction) that locks only the rows it deletes,
        // skipping rows another transaction holds (a rotation's locked session and tokens, or
        // another instance's cleanup of the same rows): instances running this at once never
        // wait for each other or for requests, and each row is deleted once.
        let limit = Int64(max(limit, 1))
        var counts = StaleRowCounts()
        counts.sessions = try await deleteBatch(
            """
            DELETE FROM sessions WHERE id IN (SELECT id FROM sessions
                WHERE not_after < \(cutoffs.sessionsEndedBefore)
                    OR (\(cutoffs.sessionsRefreshedBefore)::timestamptz IS NOT NULL AND refreshed_at < \(cutoffs.sessionsRefreshedBefore))
                LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING 1
            """)
        // A token becomes the parent of an active token only while a rotation holds it locked,
        // and it is then spent just now: the NOT EXISTS below cannot miss a child being born.
        counts.refreshTokens = try await deleteBatch(
            """
            DELETE FROM refresh_tokens WHERE id IN (SELECT r.id FROM refresh_tokens r
                WHERE r.revoked_at < \(cutoffs.refreshTokensSpentBefore)
                AND NOT EXISTS (SELECT 1 FROM refresh_tokens c WHERE c.parent_hash = r.token_hash AND c.revoked_at IS NULL)
                LIMIT \(limit) FOR UPDATE OF r SKIP LOCKED)
            RETURNING 1
            """)
        counts.refreshTokens += try await deleteBatch(
            """
            DELETE FROM refresh_tokens WHERE id IN (SELECT r.id FROM refresh_tokens r
                WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = r.session_id)
                LIMIT \(limit) FOR UPDATE OF r SKIP LOCKED)
            RETURNING 1
            """)
        counts.oneTimeTokens = try await deleteBatch(
            """
            DELETE FROM one_time_tokens WHERE (user_id, kind) IN (SELECT user_id, kind FROM one_time_tokens
                WHERE created_at < \(cutoffs.oneTimeTokensCreatedBefore) LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING 1
            """)
        counts.flowStates = try await deleteBatch(
            """
            DELETE FROM flow_states WHERE id IN (SELECT id FROM flow_states
                WHERE created_at < \(cutoffs.flowStatesCreatedBefore)
                    AND (auth_code_issued_at IS NULL OR auth_code_issued_at < \(cutoffs.flowStatesCreatedBefore))
                LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING 1
            """)
        counts.oauthAuthorizations = try await deleteBatch(
            """
            DELETE FROM oauth_authorizations WHERE id IN (SELECT id FROM oauth_authorizations
                WHERE expires_at < \(cutoffs.oauthAuthorizationsExpiredBefore) LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING 1
            """)
        counts.auditEntries = try await deleteBatch(
            """
            DELETE FROM audit_log WHERE seq IN (SELECT seq FROM audit_log
                WHERE created_at < \(cutoffs.auditEntriesCreatedBefore) ORDER BY seq LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING 1
            """)
        counts.challenges = try await deleteBatch(
            """
            DELETE FROM mfa_challenges WHERE id IN (SELECT id FROM mfa_challenges
                WHERE created_at < \(cutoffs.challengesCreatedBefore) LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING 1
            """)
        // Unverified factors never raised a session, so deleting one needs no session change.
        counts.factors = try await deleteBatch(
            """
            DELETE FROM mfa_factors WHERE id IN (SELECT id FROM mfa_factors
                WHERE status = 'unverified' AND created_at < \(cutoffs.unverifiedFactorsCreatedBefore)
                    AND (last_challenged_at IS NULL OR last_challenged_at < \(cutoffs.factorsChallengedBefore))
                LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING 1
            """)
        // A counter whose newest event has left its window counts nothing any more.
        counts.rateLimitCounters = try await deleteBatch(
            """
            DELETE FROM rate_limit_counters WHERE key IN (SELECT key FROM rate_limit_counters
                WHERE expires_at < \(cutoffs.rateLimitWindowsEndedBefore) LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING 1
            """)
        return counts
    }

    /// Runs one `DELETE … RETURNING 1` on its own; returns how many rows it deleted.
    private func deleteBatch(_ query: PostgresQuery) async throws -> Int {
        try await autocommit { connection in try await connection.query(query, logger: self.logger).rowCount() }
    }
}

/// A session with its user, as one `Sendable` value leaving a query.
struct SessionAndUser: Sendable {
    var session: SessionRecord
    var user: UserRecord
}
