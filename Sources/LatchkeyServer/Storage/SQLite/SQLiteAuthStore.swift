import Foundation
import GRDB

/// The embedded default store: one SQLite file in WAL mode, through GRDB.
///
/// Reads run concurrently; writes are serialised by SQLite's single writer, which is what makes
/// refresh-token rotation race-free within one server process. A SQLite file serves one
/// `latchkey serve` process; use PostgreSQL to run several.
final class SQLiteAuthStore: AuthStore {
    private let pool: DatabasePool
    private let usage: DatabasePoolUsage
    /// Sees commits from any connection, so that the caches below serve only current rows
    /// (`nil` when it could not be opened: every read then goes to the database).
    private let probe: SQLiteCommitProbe?
    /// The session and user of a bearer check, by session id.
    let sessionsWithUsers = SQLiteReadCache<UUID, (session: SessionRecord, user: UserRecord)>()
    /// A user's factors, by user id (`GET /user` lists them).
    let factorLists = SQLiteReadCache<UUID, [FactorRecord]>()
    /// A user's identities, by user id (`GET /user` lists them).
    let identityLists = SQLiteReadCache<UUID, [IdentityRecord]>()
    /// The writer and the readers in use.
    var poolUsage: DatabasePoolUsage? { usage }

    /// Default longest wait for the write lock (held by another process on the same file, such
    /// as a backup) before a call fails with ``StoreError/unavailable(_:)``.
    static let defaultBusyTimeout: TimeInterval = 10

    /// Opens (creating if needed) the database at `path` and applies pending migrations.
    ///
    /// - Parameter busyTimeout: the longest a call waits for a lock another connection holds.
    init(path: String, busyTimeout: TimeInterval = SQLiteAuthStore.defaultBusyTimeout) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(busyTimeout)
        configuration.prepareDatabase { db in
            // WAL is set by DatabasePool; NORMAL sync is durable across application crashes
            // and loses at most the last transactions on power loss.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        usage = DatabasePoolUsage(capacity: configuration.maximumReaderCount + 1)
        try SQLiteMigrations.migrator.migrate(pool)
        probe = SQLiteCommitProbe(path: path)
    }

    func close() async throws {
        probe?.close()
        sessionsWithUsers.removeAll()
        factorLists.removeAll()
        identityLists.removeAll()
        try pool.close()
    }

    // MARK: Users

    func insertUser(_ user: UserRecord, audit: AuditEntry?) async throws {
        try await write { db in
            try Self.insert(user, db)
            if let audit { try SQLiteRows.insertAudit(audit, db) }
        }
    }

    func insertUser(_ user: UserRecord, audit: AuditEntry?, start: NewAccountStart) async throws {
        try await write { db in
            try Self.insert(user, db)
            if let audit { try SQLiteRows.insertAudit(audit, db) }
            switch start {
            case .session(let session, let refreshTokenHash, let audit):
                try Self.insertSession(session, refreshTokenHash: refreshTokenHash, db)
                if let audit { try SQLiteRows.insertAudit(audit, db) }
            case .confirmation(let token, let flow, let audit):
                if let flow { try Self.insertFlowState(flow, db) }
                try Self.saveOneTimeToken(token, db)
                if let audit { try SQLiteRows.insertAudit(audit, db) }
            }
        }
    }

    func user(id: UUID) async throws -> UserRecord? {
        try await read { db in
            try SQLiteRows.user(id: id.lowercasedString, db)
        }
    }

    func user(email: String) async throws -> UserRecord? {
        guard !email.isEmpty else { return nil }
        return try await read { db in
            try db.fetchRow(sql: "\(SQLiteRows.selectUser) WHERE email = ?", arguments: [email]).map { try SQLiteRows.user($0) }
        }
    }

    func user(phone: String) async throws -> UserRecord? {
        guard !phone.isEmpty else { return nil }
        return try await read { db in
            try db.fetchRow(sql: "\(SQLiteRows.selectUser) WHERE phone = ?", arguments: [phone]).map { try SQLiteRows.user($0) }
        }
    }

    func updateUser(_ user: UserRecord, audit: AuditEntry?, endingSessions: SessionsToEnd?) async throws {
        try await write { db in
            try Self.update(user, db)
            if let endingSessions { try Self.endSessions(userID: user.id, except: endingSessions.kept, only: nil, db) }
            if let audit { try SQLiteRows.insertAudit(audit, db) }
        }
    }

    func deleteUser(id: UUID, audit: AuditEntry?) async throws -> Bool {
        try await write { db in
            let key = id.lowercasedString
            try db.run(sql: "DELETE FROM sessions WHERE user_id = ?", arguments: [key])
            try db.run(sql: "DELETE FROM users WHERE id = ?", arguments: [key])
            let deleted = db.changesCount > 0
            if deleted, let audit { try SQLiteRows.insertAudit(audit, db) }
            return deleted
        }
    }

    func listUsers(offset: Int, limit: Int, listing: UserListing) async throws -> (users: [UserRecord], total: Int) {
        // SQLite's LIKE ignores the case of ASCII letters.
        let filter =
            listing.likePattern.map { _ in
                #" WHERE (email LIKE ? ESCAPE '\' OR json_extract(user_metadata, '$.full_name') LIKE ? ESCAPE '\')"#
            } ?? ""
        let patterns = listing.likePattern.map { [$0, $0] } ?? []
        let direction = listing.newestFirst ? "DESC" : "ASC"
        return try await read { db in
            let total = try db.fetchInt(sql: "SELECT COUNT(*) FROM users" + filter, arguments: StatementArguments(patterns)) ?? 0
            let users = try db.fetchRows(
                sql: "\(SQLiteRows.selectUser)\(filter) ORDER BY created_at \(direction), id \(direction) LIMIT ? OFFSET ?",
                arguments: StatementArguments(patterns) + [limit, offset]
            ).map { try SQLiteRows.user($0) }
            return (users, total)
        }
    }

    // MARK: Sessions

    func createSession(_ session: SessionRecord, refreshTokenHash: String, updatingUser: UserRecord?, audit: AuditEntry?) async throws {
        try await write { db in
            try Self.insertSession(session, refreshTokenHash: refreshTokenHash, db)
            if let updatingUser { try Self.update(updatingUser, db) }
            if let audit { try SQLiteRows.insertAudit(audit, db) }
        }
    }

    func sessionWithUser(id: UUID) async throws -> (session: SessionRecord, user: UserRecord)? {
        try await read(through: sessionsWithUsers, key: id) { db in
            guard let sessionRow = try db.fetchRow(sql: "\(SQLiteRows.selectSession) WHERE id = ?", arguments: [id.lowercasedString]),
                let userRow = try db.fetchRow(sql: "\(SQLiteRows.selectUser) WHERE id = ?", arguments: [sessionRow[1] as String])
            else { return nil }
            return (try SQLiteRows.session(sessionRow), try SQLiteRows.user(userRow))
        }
    }

    func endSessions(userID: UUID, except: UUID?, only: UUID?, audit: AuditEntry?) async throws -> Int {
        try await write { db in
            let ended = try Self.endSessions(userID: userID, except: except, only: only, db)
            if let audit { try SQLiteRows.insertAudit(audit, db) }
            return ended
        }
    }

    /// Deletes sessions of `userID` (all, all but `except`, or only `only`); returns how many.
    @discardableResult
    private static func endSessions(userID: UUID, except: UUID?, only: UUID?, _ db: Database) throws -> Int {
        var sql = "DELETE FROM sessions WHERE user_id = ?"
        var arguments: StatementArguments = [userID.lowercasedString]
        if let except {
            sql += " AND id <> ?"
            arguments += [except.lowercasedString]
        }
        if let only {
            sql += " AND id = ?"
            arguments += [only.lowercasedString]
        }
        try db.run(sql: sql, arguments: arguments)
        return db.changesCount
    }

    func sessionID(ofRefreshTokenHash hash: String) async throws -> UUID? {
        try await read { db in
            try db.fetchRow(sql: "SELECT session_id FROM refresh_tokens WHERE token_hash = ?", arguments: [hash])
                .map { try SQLiteRows.uuid($0, "session_id", of: "refresh_tokens") }
        }
    }

    func rotateRefreshToken<Result: Sendable>(
        hash: String, admission: RefreshAdmission?, plan: @escaping @Sendable (RefreshTokenState) -> RefreshTokenPlan<Result>
    ) async throws -> Result {
        // SQLite's single writer serialises every rotation: what this reads stays true until commit.
        try await write { db in
            var state = RefreshTokenState(token: nil, session: nil, user: nil, activeToken: nil)
            if let token = try db.fetchRow(sql: "SELECT * FROM refresh_tokens WHERE token_hash = ?", arguments: [hash]).map(SQLiteRows.refreshToken) {
                try admission?.admitImmediately(token.sessionID)
                let sessionKey = token.sessionID.lowercasedString
                state.token = token
                state.session = try SQLiteRows.session(id: sessionKey, db)
                state.user = try SQLiteRows.user(id: token.userID.lowercasedString, db)
                if state.user != nil, state.session != nil { state.factors = try SQLiteRows.factors(userID: token.userID, db) }
                if token.revokedAt != nil {
                    state.activeToken = try db.fetchRow(
                        sql: "SELECT * FROM refresh_tokens WHERE session_id = ? AND revoked_at IS NULL ORDER BY id DESC LIMIT 1",
                        arguments: [sessionKey]
                    ).map(SQLiteRows.refreshToken)
                }
            }
            let decided = plan(state)
            for change in decided.changes { try SQLiteRows.apply(change, db) }
            return decided.result
        }
    }

    // MARK: Email-link tokens

    func saveOneTimeToken(_ token: OneTimeToken, updatingUser: UserRecord?, audit: AuditEntry?) async throws {
        try await write { db in
            try Self.saveOneTimeToken(token, db)
            if let updatingUser { try Self.update(updatingUser, db) }
            if let audit { try SQLiteRows.insertAudit(audit, db) }
        }
    }

    func hasOneTimeToken(userID: UUID, kind: OneTimeToken.Kind) async throws -> Bool {
        try await read { db in
            try db.fetchRows(
                sql: "SELECT 1 FROM one_time_tokens WHERE user_id = ? AND kind = ?", arguments: [userID.lowercasedString, kind.rawValue]
            ).isEmpty == false
        }
    }

    func consumeOneTimeToken(_ hash: OneTimeToken.Hash, kinds: [OneTimeToken.Kind]) async throws -> (token: OneTimeToken, user: UserRecord)? {
        let (column, value) = (hash.column, hash.value)
        return try await write { db -> (token: OneTimeToken, user: UserRecord)? in
            for row in try db.fetchRows(sql: "SELECT * FROM one_time_tokens WHERE \(column) = ?", arguments: [value]) {
                let token = try SQLiteRows.oneTimeToken(row)
                guard kinds.contains(token.kind), let user = try SQLiteRows.user(id: row["user_id"], db) else { continue }
                try db.run(
                    sql: "DELETE FROM one_time_tokens WHERE user_id = ? AND kind = ?", arguments: [row["user_id"] as String, token.kind.rawValue])
                return (token, user)
            }
            return nil
        }
    }

    // MARK: PKCE flows

    func saveFlowState(_ flow: FlowState) async throws {
        try await write { db in try Self.insertFlowState(flow, db) }
    }

    func issueAuthCode(userID: UUID, authenticationMethod: String, authCodeHash: String, issuedAt: Date) async throws -> FlowState? {
        try await write { db in
            guard
                let row = try db.fetchRow(
                    sql: "SELECT * FROM flow_states WHERE user_id = ? AND authentication_method = ? ORDER BY created_at DESC LIMIT 1",
                    arguments: [userID.lowercasedString, authenticationMethod])
            else { return nil }
            var flow = try SQLiteRows.flowState(row)
            flow.authCodeHash = authCodeHash
            flow.authCodeIssuedAt = issuedAt
            try db.run(
                sql: "UPDATE flow_states SET auth_code_hash = ?, auth_code_issued_at = ? WHERE id = ?",
                arguments: [authCodeHash, issuedAt.timeIntervalSince1970, flow.id.lowercasedString])
            return flow
        }
    }

    func consumeFlowState(authCodeHash: String) async throws -> FlowState? {
        try await write { db in
            guard let row = try db.fetchRow(sql: "SELECT * FROM flow_states WHERE auth_code_hash = ?", arguments: [authCodeHash]) else { return nil }
            try db.run(sql: "DELETE FROM flow_states WHERE auth_code_hash = ?", arguments: [authCodeHash])
            return try SQLiteRows.flowState(row)
        }
    }

    // MARK: Audit

    func appendAudit(_ entry: AuditEntry) async throws {
        try await write { db in try SQLiteRows.insertAudit(entry, db) }
    }

    func auditEntries(offset: Int, limit: Int) async throws -> [AuditEntry] {
        try await read { db in
            try db.fetchRows(sql: "SELECT * FROM audit_log ORDER BY seq DESC LIMIT ? OFFSET ?", arguments: [limit, offset])
                .map(SQLiteRows.audit)
        }
    }

    // MARK: Cleanup

    func deleteStaleRows(_ cutoffs: StaleRowCutoffs, limit: Int) async throws -> StaleRowCounts {
        // One write transaction per kind: SQLite's single writer is held for one short batch at
        // a time, and requests' writes interleave between them.
        var counts = StaleRowCounts()
        let ended = cutoffs.sessionsEndedBefore.timeIntervalSince1970
        let inactive = cutoffs.sessionsRefreshedBefore?.timeIntervalSince1970
        counts.sessions = try await deleteBatch(
            """
            DELETE FROM sessions WHERE id IN (SELECT id FROM sessions
                WHERE (not_after IS NOT NULL AND not_after < ?) OR (? IS NOT NULL AND refreshed_at < ?) LIMIT ?)
            """, [ended, inactive, inactive, limit])
        // Spent tokens past retention, but never the parent of an active token (the lost-response
        // rule: it still yields the active token); then every token of an ended session, which
        // answers refresh_token_not_found with or without its row.
        counts.refreshTokens = try await deleteBatch(
            """
            DELETE FROM refresh_tokens WHERE id IN (SELECT r.id FROM refresh_tokens r
                WHERE r.revoked_at IS NOT NULL AND r.revoked_at < ?
                AND NOT EXISTS (SELECT 1 FROM refresh_tokens c WHERE c.parent_hash = r.token_hash AND c.revoked_at IS NULL) LIMIT ?)
            """, [cutoffs.refreshTokensSpentBefore.timeIntervalSince1970, limit])
        counts.refreshTokens += try await deleteBatch(
            """
            DELETE FROM refresh_tokens WHERE id IN (SELECT r.id FROM refresh_tokens r
                WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = r.session_id) LIMIT ?)
            """, [limit])
        counts.oneTimeTokens = try await deleteBatch(
            "DELETE FROM one_time_tokens WHERE rowid IN (SELECT rowid FROM one_time_tokens WHERE created_at < ? LIMIT ?)",
            [cutoffs.oneTimeTokensCreatedBefore.timeIntervalSince1970, limit])
        let flows = cutoffs.flowStatesCreatedBefore.timeIntervalSince1970
        counts.flowStates = try await deleteBatch(
            """
            DELETE FROM flow_states WHERE id IN (SELECT id FROM flow_states
                WHERE created_at < ? AND (auth_code_issued_at IS NULL OR auth_code_issued_at < ?) LIMIT ?)
            """, [flows, flows, limit])
        counts.oauthAuthorizations = try await deleteBatch(
            "DELETE FROM oauth_authorizations WHERE id IN (SELECT id FROM oauth_authorizations WHERE expires_at < ? LIMIT ?)",
            [cutoffs.oauthAuthorizationsExpiredBefore.timeIntervalSince1970, limit])
        counts.auditEntries = try await deleteBatch(
            "DELETE FROM audit_log WHERE seq IN (SELECT seq FROM audit_log WHERE created_at < ? ORDER BY seq LIMIT ?)",
            [cutoffs.auditEntriesCreatedBefore.timeIntervalSince1970, limit])
        counts.challenges = try await deleteBatch(
            "DELETE FROM mfa_challenges WHERE id IN (SELECT id FROM mfa_challenges WHERE created_at < ? LIMIT ?)",
            [cutoffs.challengesCreatedBefore.timeIntervalSince1970, limit])
        counts.factors = try await deleteBatch(
            """
            DELETE FROM mfa_factors WHERE id IN (SELECT id FROM mfa_factors
                WHERE status = 'unverified' AND created_at < ? AND (last_challenged_at IS NULL OR last_challenged_at < ?) LIMIT ?)
            """, [cutoffs.unverifiedFactorsCreatedBefore.timeIntervalSince1970, cutoffs.factorsChallengedBefore.timeIntervalSince1970, limit])
        return counts
    }

    /// Runs one `DELETE` in its own write transaction; returns how many rows it deleted.
    private func deleteBatch(_ sql: String, _ arguments: StatementArguments) async throws -> Int {
        try await write { db in
            try db.run(sql: sql, arguments: arguments)
            return db.changesCount
        }
    }

    // MARK: Helpers

    private static func insertSession(_ session: SessionRecord, refreshTokenHash: String, _ db: Database) throws {
        try db.run(
            sql: """
                INSERT INTO sessions (id, user_id, created_at, updated_at, refreshed_at, not_after, auth_method, aal, factor_id,
                    verified_methods, oauth_client_id, scopes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                session.id.lowercasedString, session.userID.lowercasedString,
                session.createdAt.timeIntervalSince1970, session.updatedAt.timeIntervalSince1970,
                session.refreshedAt.timeIntervalSince1970, session.notAfter?.timeIntervalSince1970, session.authMethod,
                session.aal.rawValue, session.factorID?.lowercasedString, session.verifiedMethodsJSON,
                session.oauthClientID?.lowercasedString, session.scopes,
            ])
        try SQLiteRows.apply(.insertToken(RefreshTokenRecord(hash: refreshTokenHash, of: session, parentHash: nil, createdAt: session.createdAt)), db)
    }

    private static func saveOneTimeToken(_ token: OneTimeToken, _ db: Database) throws {
        try db.run(
            sql: "INSERT OR REPLACE INTO one_time_tokens (user_id, kind, token_hash, code_hash, relates_to, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [
                token.userID.lowercasedString, token.kind.rawValue, token.tokenHash, token.codeHash, token.relatesTo,
                token.createdAt.timeIntervalSince1970,
            ])
    }

    private static func insertFlowState(_ flow: FlowState, _ db: Database) throws {
        try db.run(
            sql: """
                INSERT INTO flow_states (id, user_id, authentication_method, code_challenge, code_challenge_method, auth_code_hash,
                    auth_code_issued_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                flow.id.lowercasedString, flow.userID.lowercasedString, flow.authenticationMethod, flow.codeChallenge,
                flow.codeChallengeMethod.rawValue, flow.authCodeHash, flow.authCodeIssuedAt?.timeIntervalSince1970,
                flow.createdAt.timeIntervalSince1970,
            ])
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await translatingErrors { pool, usage in try await pool.write { db in try usage.holdingSynchronously { try body(db) } } }
    }

    /// Reads in a read-only transaction on one of the pool's readers, on GRDB's reader queue.
    ///
    /// Reading on the calling thread instead saves two thread switches per read, but it blocks a
    /// thread of Swift's cooperative pool (as many threads as cores) for as long as the read
    /// waits: behind a backup or a checkpoint holding the file, that is up to the busy timeout,
    /// and every other request of the process stalls with it. So reads stay asynchronous.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await translatingErrors { pool, usage in try await pool.read { db in try usage.holdingSynchronously { try body(db) } } }
    }

    /// The database's data version now (see ``SQLiteCommitProbe``), `nil` when unknown.
    var committedVersion: Int64? { probe?.version() }

    /// Reads what `cache` holds for `key` when nothing was committed since it was read, and
    /// otherwise reads the database and keeps what it found (nothing is kept for `nil`).
    ///
    /// A hit costs no thread switch: the probe runs on the calling thread, and never waits.
    func read<Key, Value>(
        through cache: SQLiteReadCache<Key, Value>, key: Key, _ body: @escaping @Sendable (Database) throws -> Value?
    ) async throws -> Value? {
        guard let version = committedVersion else { return try await read(body) }
        if let value = cache.value(for: key, at: version) { return value }
        let value = try await read(body)
        if let value { cache.insert(value, for: key, at: version) }
        return value
    }

    /// Runs `access` on the pool, counted in `usage`, with its errors as ``translate(_:)`` makes them.
    private func translatingErrors<T: Sendable>(
        _ access: (DatabasePool, DatabasePoolUsage) async throws -> T
    ) async throws -> T {
        do {
            return try await access(pool, usage)
        } catch {
            throw Self.translate(error)
        }
    }

    /// The error a store caller sees: ``StoreError/duplicateEmail`` for a taken email (and
    /// ``StoreError/duplicateUserID`` for a taken id, ``StoreError/duplicateCredential`` for a
    /// passkey registered already),
    /// ``StoreError/unavailable(_:)`` when the database cannot be used now (locked past the busy
    /// timeout, disk full, I/O error, read-only or missing file), so clients get 503, not 500.
    static func translate(_ error: any Error) -> any Error {
        guard let error = error as? DatabaseError else { return error }
        if error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE, (error.message ?? "").contains("users.email") {
            return StoreError.duplicateEmail
        }
        if error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE, (error.message ?? "").contains("users.phone") {
            return StoreError.duplicatePhone
        }
        if [.SQLITE_CONSTRAINT_PRIMARYKEY, .SQLITE_CONSTRAINT_UNIQUE].contains(error.extendedResultCode),
            (error.message ?? "").contains("users.id")
        {
            return StoreError.duplicateUserID
        }
        if error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE, (error.message ?? "").contains("webauthn_credentials.credential_id") {
            return StoreError.duplicateCredential
        }
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_FULL, .SQLITE_IOERR, .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_NOMEM,
            .SQLITE_PROTOCOL, .SQLITE_NOLFS, .SQLITE_CORRUPT, .SQLITE_NOTADB:
            // The result code and SQLite's own message only: no statement, no arguments.
            return StoreError.unavailable("SQLite: \(error.resultCode) \(error.message ?? "")")
        case .SQLITE_MISUSE where error.message == "Connection is closed":
            return StoreError.unavailable("SQLite: the database is closed")
        case .SQLITE_MISUSE where error.message?.hasPrefix("out of memory") == true:
            // SQLite's words for a statement on a connection already closed (a write that
            // begins its transaction after the store was closed).
            return StoreError.unavailable("SQLite: the database is closed")
        default:
            return error
        }
    }

    static func insert(_ user: UserRecord, _ db: Database) throws {
        try db.run(
            sql: "INSERT INTO users (\(SQLiteRows.userColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            arguments: SQLiteRows.userArguments(user))
    }

    static func update(_ user: UserRecord, _ db: Database) throws {
        var arguments = SQLiteRows.userArguments(user)
        arguments += [user.id.lowercasedString]
        try db.run(
            sql: """
                UPDATE users SET id = ?, aud = ?, role = ?, email = ?, password_hash = ?, email_confirmed_at = ?,
                confirmation_sent_at = ?, recovery_sent_at = ?, new_email = ?, email_change_sent_at = ?, last_sign_in_at = ?,
                banned_until = ?, app_metadata = ?, user_metadata = ?, created_at = ?, updated_at = ?, is_anonymous = ?,
                invited_at = ?, phone = ?, phone_confirmed_at = ?, phone_change = ?, phone_change_sent_at = ? WHERE id = ?
                """,
            arguments: arguments)
    }
}
