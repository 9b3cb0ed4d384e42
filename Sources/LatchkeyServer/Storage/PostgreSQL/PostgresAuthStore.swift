import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// The store for running several `latchkey serve` instances on one PostgreSQL database.
///
/// Every method is one transaction on a pooled connection (``PostgresClient``, at most
/// `poolSize` connections per instance). Refresh-token rotation locks the session row and the
/// token rows it reads (`SELECT … FOR UPDATE`), so concurrent refreshes of one token on any
/// number of instances produce exactly one successor; sessions are read from the database on
/// every request, so a logout on one instance is seen by all of them at once.
///
/// The pool must run: the store is a `Service`, and ``LatchkeyApplication`` runs it alongside the
/// HTTP server. While the database is unreachable, calls throw ``StoreError/unavailable(_:)``
/// (503 for clients) after waiting at most `timeout` for a connection; the pool reconnects by
/// itself when the database returns.
///
/// ```swift
/// let store = try await PostgresAuthStore.connect(url: "postgres://latchkey@127.0.0.1:5432/latchkey")
/// let app = try await LatchkeyApplication.build(configuration: configuration, store: store)
/// ```
final class PostgresAuthStore: AuthStore, Service {
    let client: PostgresClient
    /// The longest a call waits for a pooled connection before answering ``StoreError/unavailable(_:)``.
    let timeout: Duration
    /// Logs from the driver; never below `.info`, because driver traces carry row data.
    let logger: Logger
    /// The database URL without its password.
    let redactedURL: String
    /// Whether ``run()`` has started the pool (it runs once).
    private let running = OnceFlag()
    let usage: DatabasePoolUsage
    /// The pooled connections in use.
    var poolUsage: DatabasePoolUsage? { usage }

    private init(client: PostgresClient, poolSize: Int, timeout: Duration, logger: Logger, redactedURL: String) {
        self.client = client
        self.usage = DatabasePoolUsage(capacity: poolSize)
        self.timeout = timeout
        self.logger = logger
        self.redactedURL = redactedURL
    }

    /// Connects to the database at `url`, applies pending migrations (safely, while other
    /// instances may be doing the same), and returns the store. Run it (``run()``) before use.
    ///
    /// - Parameters:
    ///   - url: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=require…]`.
    ///   - poolSize: the most connections this store opens.
    ///   - timeout: the longest a call waits for a connection while the database is unreachable
    ///     or every connection is busy.
    static func connect(
        url: String, poolSize: Int = ServerConfiguration.defaultDatabasePoolSize,
        timeout: TimeInterval = ServerConfiguration.defaultDatabaseTimeout, logger: Logger = Logger(label: "latchkey.postgres")
    ) async throws -> PostgresAuthStore {
        let parsed = try PostgresDatabaseURL(url)
        var driverLogger = logger
        if driverLogger.logLevel < .info { driverLogger.logLevel = .info }
        do {
            let connection = try await PostgresConnection.connect(
                configuration: try parsed.connectionConfiguration(), id: 0, logger: driverLogger)
            do {
                let applied = try await PostgresMigrations.migrate(connection, logger: driverLogger)
                if !applied.isEmpty { logger.notice("applied PostgreSQL migrations", metadata: ["versions": "\(applied)"]) }
                try await connection.close()
            } catch {
                try? await connection.close()
                throw error
            }
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw StoreError.unavailable("cannot prepare PostgreSQL at \(parsed.redacted): \(PostgresFailure.describe(error))")
        }
        let client = PostgresClient(
            configuration: try parsed.clientConfiguration(maximumConnections: poolSize), backgroundLogger: driverLogger)
        return PostgresAuthStore(
            client: client, poolSize: poolSize, timeout: .milliseconds(Int64(timeout * 1000)), logger: driverLogger, redactedURL: parsed.redacted)
    }

    /// Runs the connection pool until graceful shutdown or cancellation.
    ///
    /// The pool runs once: when the store is already running (say a test runs it and also hands
    /// it to the application), a second call only waits for shutdown.
    func run() async throws {
        guard running.setIfUnset() else {
            try? await gracefulShutdown()
            return
        }
        await client.run()
    }

    /// Nothing to release here: the pool closes when ``run()`` ends.
    func close() async throws {}

    // MARK: Users

    func insertUser(_ user: UserRecord, audit: AuditEntry?) async throws {
        try await transaction { connection in
            try await connection.query(PostgresRows.insertUser(user), logger: self.logger)
            if let audit { try await connection.query(PostgresRows.insertAudit(audit).query, logger: self.logger) }
        }
    }

    func insertUser(_ user: UserRecord, audit: AuditEntry?, start: NewAccountStart) async throws {
        try await transaction { connection in
            try await connection.query(PostgresRows.insertUser(user), logger: self.logger)
            if let audit { try await connection.query(PostgresRows.insertAudit(audit).query, logger: self.logger) }
            switch start {
            case .session(let session, let refreshTokenHash, let audit):
                try await self.insertSession(session, refreshTokenHash: refreshTokenHash, connection)
                if let audit { try await connection.query(PostgresRows.insertAudit(audit).query, logger: self.logger) }
            case .confirmation(let token, let flow, let audit):
                if let flow { try await self.insertFlowState(flow, connection) }
                try await self.saveOneTimeToken(token, connection)
                if let audit { try await connection.query(PostgresRows.insertAudit(audit).query, logger: self.logger) }
            }
        }
    }

    func user(id: UUID) async throws -> UserRecord? {
        try await autocommit { connection in try await connection.selectUser(id: id, logger: self.logger) }
    }

    func user(email: String) async throws -> UserRecord? {
        guard !email.isEmpty else { return nil }
        return try await autocommit { connection in
            try await connection.query("SELECT \(unescaped: PostgresRows.userColumns) FROM users WHERE email = \(email)", logger: self.logger)
                .firstRow { try PostgresRows.user($0) }
        }
    }

    func user(phone: String) async throws -> UserRecord? {
        guard !phone.isEmpty else { return nil }
        return try await autocommit { connection in
            try await connection.query("SELECT \(unescaped: PostgresRows.userColumns) FROM users WHERE phone = \(phone)", logger: self.logger)
                .firstRow { try PostgresRows.user($0) }
        }
    }

    func updateUser(_ user: UserRecord, audit: AuditEntry?, endingSessions: SessionsToEnd?) async throws {
        try await transaction { connection in
            try await connection.query(PostgresRows.updateUser(user), logger: self.logger)
            if let endingSessions {
                try await connection.query(PostgresRows.endSessions(userID: user.id, except: endingSessions.kept, only: nil), logger: self.logger)
            }
            if let audit { try await connection.query(PostgresRows.insertAudit(audit).query, logger: self.logger) }
        }
    }

    func deleteUser(id: UUID, audit: AuditEntry?) async throws -> Bool {
        try await transaction { connection in
            // Sessions first (their rows are what rotation locks), then the user; tokens and
            // links go with the user (ON DELETE CASCADE).
            try await connection.query("DELETE FROM sessions WHERE user_id = \(id)", logger: self.logger)
            let deleted =
                try await connection.query("DELETE FROM users WHERE id = \(id) RETURNING id", logger: self.logger)
                .rowCount() > 0
            if deleted, let audit { try await connection.query(PostgresRows.insertAudit(audit).query, logger: self.logger) }
            return deleted
        }
    }

    func listUsers(offset: Int, limit: Int, listing: UserListing) async throws -> (users: [UserRecord], total: Int) {
        let pattern = listing.likePattern
        let direction = listing.newestFirst ? "DESC" : "ASC"
        // One snapshot for the count and the page.
        let result = try await transaction(isolation: "REPEATABLE READ READ ONLY") { connection in
            let total =
                try await connection.query(
                    """
                    SELECT COUNT(*) FROM users WHERE \(pattern)::text IS NULL
                        OR email ILIKE \(pattern) ESCAPE '\\' OR user_metadata->>'full_name' ILIKE \(pattern) ESCAPE '\\'
                    """, logger: self.logger
                ).firstRow { try $0.decode(Int.self) } ?? 0
            let users = try await connection.query(
                """
                SELECT \(unescaped: PostgresRows.userColumns) FROM users WHERE \(pattern)::text IS NULL
                    OR email ILIKE \(pattern) ESCAPE '\\' OR user_metadata->>'full_name' ILIKE \(pattern) ESCAPE '\\'
                ORDER BY created_at \(unescaped: direction), id \(unescaped: direction)
                LIMIT \(Int64(max(limit, 0))) OFFSET \(Int64(max(offset, 0)))
                """, logger: self.logger
            ).allRows { try PostgresRows.user($0) }
            return UserPage(users: users, total: total)
        }
        return (result.users, result.total)
    }

    // MARK: Email-link tokens

    func saveOneTimeToken(_ token: OneTimeToken, updatingUser: UserRecord?, audit: AuditEntry?) async throws {
        try await transaction { connection in
            try await self.saveOneTimeToken(token, connection)
            if let updatingUser { try await connection.query(PostgresRows.updateUser(updatingUser), logger: self.logger) }
            if let audit { try await connection.query(PostgresRows.insertAudit(audit).query, logger: self.logger) }
        }
    }

    func hasOneTimeToken(userID: UUID, kind: OneTimeToken.Kind) async throws -> Bool {
        try await autocommit { connection in
            try await connection.query(
                "SELECT 1 FROM one_time_tokens WHERE user_id = \(userID) AND kind = \(kind.rawValue)", logger: self.logger
            ).firstRow({ _ in true }) ?? false
        }
    }

    func consumeOneTimeToken(_ hash: OneTimeToken.Hash, kinds: [OneTimeToken.Kind]) async throws -> (token: OneTimeToken, user: UserRecord)? {
        let (column, value) = (hash.column, hash.value)
        let consumed = try await transaction { connection -> ConsumedToken? in
            // Deleting with RETURNING spends the token exactly once, however many instances race.
            guard
                let token = try await connection.query(
                    """
                    DELETE FROM one_time_tokens WHERE \(unescaped: column) = \(value) AND kind = ANY(\(kinds.map(\.rawValue)))
                    RETURNING \(unescaped: PostgresRows.oneTimeTokenColumns)
                    """, logger: self.logger
                ).firstRow({ try PostgresRows.oneTimeToken($0) }),
                let user = try await connection.selectUser(id: token.userID, logger: self.logger)
            else { return nil }
            return ConsumedToken(token: token, user: user)
        }
        return consumed.map { ($0.token, $0.user) }
    }

    // MARK: PKCE flows

    func saveFlowState(_ flow: FlowState) async throws {
        try await autocommit { connection in try await self.insertFlowState(flow, connection) }
    }

    func issueAuthCode(userID: UUID, authenticationMethod: String, authCodeHash: String, issuedAt: Date) async throws -> FlowState? {
        try await autocommit { connection in
            try await connection.query(
                """
                UPDATE flow_states SET auth_code_hash = \(authCodeHash), auth_code_issued_at = \(issuedAt)
                WHERE id = (SELECT id FROM flow_states WHERE user_id = \(userID) AND authentication_method = \(authenticationMethod)
                    ORDER BY created_at DESC LIMIT 1)
                RETURNING \(unescaped: PostgresRows.flowStateColumns)
                """, logger: self.logger
            ).firstRow { try PostgresRows.flowState($0) }
        }
    }

    func consumeFlowState(authCodeHash: String) async throws -> FlowState? {
        try await autocommit { connection in
            try await connection.query(
                "DELETE FROM flow_states WHERE auth_code_hash = \(authCodeHash) RETURNING \(unescaped: PostgresRows.flowStateColumns)",
                logger: self.logger
            ).firstRow { try PostgresRows.flowState($0) }
        }
    }

    func saveOneTimeToken(_ token: OneTimeToken, _ connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO one_time_tokens (user_id, kind, token_hash, code_hash, relates_to, created_at)
            VALUES (\(token.userID), \(token.kind.rawValue), \(token.tokenHash), \(token.codeHash), \(token.relatesTo), \(token.createdAt))
            ON CONFLICT (user_id, kind) DO UPDATE SET
                token_hash = EXCLUDED.token_hash, code_hash = EXCLUDED.code_hash, relates_to = EXCLUDED.relates_to,
                created_at = EXCLUDED.created_at
            """, logger: self.logger)
    }

    func insertFlowState(_ flow: FlowState, _ connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO flow_states (\(unescaped: PostgresRows.flowStateColumns))
            VALUES (\(flow.id), \(flow.userID), \(flow.authenticationMethod), \(flow.codeChallenge),
                \(flow.codeChallengeMethod.rawValue), \(flow.authCodeHash), \(flow.authCodeIssuedAt), \(flow.createdAt))
            """, logger: self.logger)
    }

    // MARK: Audit

    func appendAudit(_ entry: AuditEntry) async throws {
        try await autocommit { connection in
            _ = try await connection.query(PostgresRows.insertAudit(entry).query, logger: self.logger)
        }
    }

    func auditEntries(offset: Int, limit: Int) async throws -> [AuditEntry] {
        try await autocommit { connection in
            try await connection.query(
                """
                SELECT \(unescaped: PostgresRows.auditColumns) FROM audit_log ORDER BY seq DESC
                LIMIT \(Int64(max(limit, 0))) OFFSET \(Int64(max(offset, 0)))
                """, logger: self.logger
            ).allRows { try PostgresRows.audit($0) }
        }
    }
}

/// A page of users, as one `Sendable` value leaving a transaction.
struct UserPage: Sendable {
    var users: [UserRecord]
    var total: Int
}

/// A consumed email-link token and its user.
struct ConsumedToken: Sendable {
    var token: OneTimeToken
    var user: UserRecord
}
