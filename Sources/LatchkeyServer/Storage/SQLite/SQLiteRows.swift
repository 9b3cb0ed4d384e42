import Foundation
import GRDB
import LatchkeyWire

/// Mapping between records and SQLite rows. Dates are seconds since 1970 (DOUBLE).
///
/// A column that holds what the store never writes (an id that is no UUID, an unknown audit
/// action) throws ``StoreError/unreadableRow(_:)`` naming it: nothing is made up in its place.
enum SQLiteRows {
    static func date(_ value: Double?) -> Date? { value.map(Date.init(timeIntervalSince1970:)) }

    /// The UUID in `column`, which the store writes as lower-case text.
    static func uuid(_ row: Row, _ column: String, of table: String) throws -> UUID {
        guard let uuid = try optionalUUID(row, column, of: table) else {
            throw StoreError.unreadableRow("\(table).\(column) is empty")
        }
        return uuid
    }

    /// The UUID in a nullable `column`.
    static func optionalUUID(_ row: Row, _ column: String, of table: String) throws -> UUID? {
        try optionalUUID(row[column] as DatabaseValue, column, of: table)
    }

    /// The UUID at position `index` of a row selected with an explicit column list.
    static func uuid(_ row: Row, at index: Int, _ column: String, of table: String) throws -> UUID {
        guard let uuid = try optionalUUID(row[index] as DatabaseValue, column, of: table) else {
            throw StoreError.unreadableRow("\(table).\(column) is empty")
        }
        return uuid
    }

    private static func optionalUUID(_ value: DatabaseValue, _ column: String, of table: String) throws -> UUID? {
        if value.isNull { return nil }
        guard let text = String.fromDatabaseValue(value), let uuid = UUID(uuidString: text) else {
            throw StoreError.unreadableRow("\(table).\(column) holds no UUID")
        }
        return uuid
    }

    /// `SELECT` of every user column in ``userColumns``' order, which ``user(_:)`` reads by
    /// position (a lookup by name costs more than the rest of the row on `GET /user`).
    static let selectUser = "SELECT \(userColumns) FROM users"

    /// A user from a row of ``selectUser``.
    static func user(_ row: Row) throws -> UserRecord {
        UserRecord(
            id: try uuid(row, at: 0, "id", of: "users"), aud: row[1], role: row[2],
            email: row[3] as String? ?? "",
            passwordHash: row[4],
            emailConfirmedAt: date(row[5]),
            confirmationSentAt: date(row[6]),
            recoverySentAt: date(row[7]),
            newEmail: row[8],
            emailChangeSentAt: date(row[9]),
            lastSignInAt: date(row[10]),
            bannedUntil: date(row[11]),
            isAnonymous: row[16],
            invitedAt: date(row[17]),
            appMetadata: .fromJSONString(row[12]),
            userMetadata: .fromJSONString(row[13]),
            createdAt: Date(timeIntervalSince1970: row[14]),
            updatedAt: Date(timeIntervalSince1970: row[15]),
            phone: row[18] as String? ?? "",
            phoneConfirmedAt: date(row[19]),
            phoneChange: row[20],
            phoneChangeSentAt: date(row[21]))
    }

    static func userArguments(_ user: UserRecord) -> StatementArguments {
        [
            user.id.lowercasedString, user.aud, user.role, user.storedEmail, user.passwordHash,
            user.emailConfirmedAt?.timeIntervalSince1970, user.confirmationSentAt?.timeIntervalSince1970,
            user.recoverySentAt?.timeIntervalSince1970, user.newEmail, user.emailChangeSentAt?.timeIntervalSince1970,
            user.lastSignInAt?.timeIntervalSince1970, user.bannedUntil?.timeIntervalSince1970,
            user.appMetadata.jsonString(), user.userMetadata.jsonString(),
            user.createdAt.timeIntervalSince1970, user.updatedAt.timeIntervalSince1970,
            user.isAnonymous, user.invitedAt?.timeIntervalSince1970,
            user.storedPhone, user.phoneConfirmedAt?.timeIntervalSince1970, user.phoneChange, user.phoneChangeSentAt?.timeIntervalSince1970,
        ]
    }

    static let userColumns = """
        id, aud, role, email, password_hash, email_confirmed_at, confirmation_sent_at, recovery_sent_at, \
        new_email, email_change_sent_at, last_sign_in_at, banned_until, app_metadata, user_metadata, created_at, updated_at, \
        is_anonymous, invited_at, phone, phone_confirmed_at, phone_change, phone_change_sent_at
        """

    /// Every session column, in the order ``session(_:)`` reads them.
    static let sessionColumns =
        "id, user_id, created_at, updated_at, refreshed_at, not_after, auth_method, aal, factor_id, verified_methods, oauth_client_id, scopes"

    /// `SELECT` of ``sessionColumns``, which ``session(_:)`` reads by position.
    static let selectSession = "SELECT \(sessionColumns) FROM sessions"

    /// A session from a row of ``selectSession``.
    static func session(_ row: Row) throws -> SessionRecord {
        SessionRecord(
            id: try uuid(row, at: 0, "id", of: "sessions"), userID: try uuid(row, at: 1, "user_id", of: "sessions"),
            createdAt: Date(timeIntervalSince1970: row[2]),
            updatedAt: Date(timeIntervalSince1970: row[3]),
            refreshedAt: Date(timeIntervalSince1970: row[4]),
            notAfter: date(row[5]), authMethod: row[6],
            aal: try assuranceLevel(row[7], of: "sessions"), factorID: try optionalUUID(row[8] as DatabaseValue, "factor_id", of: "sessions"),
            verifiedMethods: try verifiedMethods(row[9], of: "sessions"),
            oauthClientID: try optionalUUID(row[10] as DatabaseValue, "oauth_client_id", of: "sessions"), scopes: row[11])
    }

    static func assuranceLevel(_ text: String?, of table: String) throws -> AssuranceLevel {
        guard let level = AssuranceLevel(rawValue: text ?? "aal1") else { throw StoreError.unreadableRow("\(table).aal holds an unknown level") }
        return level
    }

    static func verifiedMethods(_ text: String?, of table: String) throws -> [AuthenticationMethodReference] {
        guard let text, !text.isEmpty else { return [] }
        do {
            return try JSONDecoder().decode([AuthenticationMethodReference].self, from: Data(text.utf8))
        } catch {
            throw StoreError.unreadableRow("\(table).verified_methods holds no list of methods")
        }
    }

    static func factor(_ row: Row) throws -> FactorRecord {
        guard let status = FactorRecord.Status(rawValue: row["status"]) else {
            throw StoreError.unreadableRow("mfa_factors.status holds an unknown status")
        }
        return FactorRecord(
            id: try uuid(row, "id", of: "mfa_factors"), userID: try uuid(row, "user_id", of: "mfa_factors"),
            friendlyName: row["friendly_name"], factorType: row["factor_type"], status: status, sealedSecret: row["secret"],
            createdAt: Date(timeIntervalSince1970: row["created_at"]), updatedAt: Date(timeIntervalSince1970: row["updated_at"]),
            lastChallengedAt: date(row["last_challenged_at"]), lastUsedStep: row["last_used_step"],
            webAuthnCredential: try FactorCredential.stored(row["web_authn_credential"]), phone: row["phone"])
    }

    static func challenge(_ row: Row) throws -> ChallengeRecord {
        ChallengeRecord(
            id: try uuid(row, "id", of: "mfa_challenges"), factorID: try uuid(row, "factor_id", of: "mfa_challenges"),
            createdAt: Date(timeIntervalSince1970: row["created_at"]), verifiedAt: date(row["verified_at"]), ipAddress: row["ip_address"],
            webAuthn: try FactorWebAuthnChallenge.stored(ceremony: row["web_authn_ceremony"], challenge: row["web_authn_challenge"]),
            codeHash: row["code_hash"])
    }

    static func oneTimeToken(_ row: Row) throws -> OneTimeToken {
        guard let kind = OneTimeToken.Kind(rawValue: row["kind"]) else {
            throw StoreError.unreadableRow("one_time_tokens.kind holds an unknown kind")
        }
        return OneTimeToken(
            userID: try uuid(row, "user_id", of: "one_time_tokens"), kind: kind, tokenHash: row["token_hash"], codeHash: row["code_hash"],
            relatesTo: row["relates_to"], createdAt: Date(timeIntervalSince1970: row["created_at"]))
    }

    static func flowState(_ row: Row) throws -> FlowState {
        guard let method = FlowState.ChallengeMethod(rawValue: row["code_challenge_method"]) else {
            throw StoreError.unreadableRow("flow_states.code_challenge_method holds an unknown method")
        }
        return FlowState(
            id: try uuid(row, "id", of: "flow_states"), userID: try uuid(row, "user_id", of: "flow_states"),
            authenticationMethod: row["authentication_method"], codeChallenge: row["code_challenge"], codeChallengeMethod: method,
            authCodeHash: row["auth_code_hash"], authCodeIssuedAt: date(row["auth_code_issued_at"]),
            createdAt: Date(timeIntervalSince1970: row["created_at"]))
    }

    static func refreshToken(_ row: Row) throws -> RefreshTokenRecord {
        RefreshTokenRecord(
            id: row["id"], tokenHash: row["token_hash"], sessionID: try uuid(row, "session_id", of: "refresh_tokens"),
            userID: try uuid(row, "user_id", of: "refresh_tokens"),
            parentHash: row["parent_hash"], revokedAt: date(row["revoked_at"]),
            createdAt: Date(timeIntervalSince1970: row["created_at"]))
    }

    static func audit(_ row: Row) throws -> AuditEntry {
        guard let action = AuditEntry.Action(rawValue: row["action"]) else {
            throw StoreError.unreadableRow("audit_log.action holds an unknown action")
        }
        var entry = AuditEntry(
            id: try uuid(row, "id", of: "audit_log"), action: action,
            actorID: try optionalUUID(row, "actor_id", of: "audit_log"), actorUsername: row["actor_username"],
            traits: .fromJSONString(row["traits"]), ipAddress: row["ip_address"],
            createdAt: Date(timeIntervalSince1970: row["created_at"]))
        entry.logType = row["log_type"]
        return entry
    }

    /// Writes one row change of a refresh.
    static func apply(_ change: RefreshTokenChange, _ db: Database) throws {
        switch change {
        case .markSpent(let hash, let at):
            try db.run(sql: "UPDATE refresh_tokens SET revoked_at = ? WHERE token_hash = ?", arguments: [at.timeIntervalSince1970, hash])
        case .insertToken(let token):
            try db.run(
                sql: "INSERT INTO refresh_tokens (token_hash, session_id, user_id, parent_hash, revoked_at, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    token.tokenHash, token.sessionID.lowercasedString, token.userID.lowercasedString, token.parentHash,
                    token.revokedAt?.timeIntervalSince1970, token.createdAt.timeIntervalSince1970,
                ])
        case .touchSession(let id, let at):
            try db.run(
                sql: "UPDATE sessions SET refreshed_at = ?, updated_at = ? WHERE id = ?",
                arguments: [at.timeIntervalSince1970, at.timeIntervalSince1970, id.lowercasedString])
        case .revokeSession(let id, let at):
            try db.run(sql: "DELETE FROM sessions WHERE id = ?", arguments: [id.lowercasedString])
            try db.run(
                sql: "UPDATE refresh_tokens SET revoked_at = ? WHERE session_id = ? AND revoked_at IS NULL",
                arguments: [at.timeIntervalSince1970, id.lowercasedString])
        case .audit(let entry):
            try insertAudit(entry, db)
        }
    }

    static func insertAudit(_ entry: AuditEntry, _ db: Database) throws {
        try db.run(
            sql: """
                INSERT INTO audit_log (id, action, actor_id, actor_username, log_type, traits, ip_address, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                entry.id.lowercasedString, entry.action.rawValue, entry.actorID?.lowercasedString,
                entry.actorUsername, entry.logType, entry.traits.jsonString(), entry.ipAddress,
                entry.createdAt.timeIntervalSince1970,
            ])
    }
}

extension Database {
    /// Statements are compiled once per connection and reused: the hot paths (bearer checks,
    /// refresh rotation) run the same few statements over and over.
    func fetchRow(sql: String, arguments: StatementArguments = []) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: sql), arguments: arguments)
    }

    func fetchRows(sql: String, arguments: StatementArguments = []) throws -> [Row] {
        try Row.fetchAll(cachedStatement(sql: sql), arguments: arguments)
    }

    func fetchInt(sql: String, arguments: StatementArguments = []) throws -> Int? {
        try Int.fetchOne(cachedStatement(sql: sql), arguments: arguments)
    }

    func run(sql: String, arguments: StatementArguments = []) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }
}
