import Foundation
import Logging
import PostgresNIO

/// The `auth` schema of a Supabase project's (or any GoTrue's) PostgreSQL database, read one
/// page of users at a time for `latchkey import supabase`. It only reads.
///
/// The tables and columns are GoTrue's (its `migrations/`): `users`, `identities`,
/// `mfa_factors`, `webauthn_credentials`, `sessions`, `refresh_tokens` and `mfa_amr_claims`.
/// Which columns exist is read from `information_schema` first, so older schemas work too:
/// `identities.id` holds the provider's subject before `provider_id` existed, `confirmed_at`
/// stands for `email_confirmed_at`, and a column or table a schema lacks reads as empty (no
/// `mfa_factors.web_authn_credential` before 2024-10, no `webauthn_credentials` before 2026-03).
///
/// Users come in keyset pages ordered by id (`id > last id of the previous page`), each with
/// the rows of the other tables about them, so memory holds one page however many users there are.
package struct SupabaseAuthSchema: Sendable {
    /// Why the source cannot be read. The text names the database without its password, and no
    /// query or value.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    let connection: PostgresConnection
    let schema: String
    /// `table.column` for every column of the schema's tables.
    let columns: Set<String>
    let logger: Logger
    /// The database URL without its password.
    package let redactedURL: String

    /// Connects to the database at `url` and checks that `schema` holds GoTrue's `users` table.
    package static func connect(url: String, schema: String = "auth", logger: Logger) async throws(Failure) -> SupabaseAuthSchema {
        let parsed: PostgresDatabaseURL
        do {
            parsed = try PostgresDatabaseURL(url)
        } catch {
            throw Failure(description: "--database-url must look like postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE")
        }
        guard schema.range(of: "^[A-Za-z_][A-Za-z0-9_$]{0,62}$", options: .regularExpression) != nil else {
            throw Failure(description: "--schema must be a PostgreSQL name such as auth")
        }
        var driverLogger = logger
        if driverLogger.logLevel < .info { driverLogger.logLevel = .info }
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: try parsed.connectionConfiguration(), id: 1, logger: driverLogger)
        } catch {
            throw Failure(description: "cannot connect to \(parsed.redacted): \(PostgresFailure.describe(error))")
        }
        do {
            // GoTrue writes UTC into its `timestamp` (without time zone) columns.
            try await connection.query("SET TIME ZONE 'UTC'", logger: driverLogger)
            var columns: Set<String> = []
            let rows = try await connection.query(
                "SELECT table_name::text, column_name::text FROM information_schema.columns WHERE table_schema = \(schema)",
                logger: driverLogger)
            for try await (table, column) in rows.decode((String, String).self) { columns.insert(table + "." + column) }
            guard columns.contains("users.id"), columns.contains("users.email") else {
                throw Failure(description: "\(parsed.redacted) has no table \(schema).users with GoTrue's columns: is --schema the auth schema?")
            }
            return SupabaseAuthSchema(connection: connection, schema: schema, columns: columns, logger: driverLogger, redactedURL: parsed.redacted)
        } catch let failure as Failure {
            try? await connection.close()
            throw failure
        } catch {
            try? await connection.close()
            throw Failure(description: "cannot read \(parsed.redacted): \(PostgresFailure.describe(error))")
        }
    }

    package func close() async {
        try? await connection.close()
    }

    /// The users after `after` (all from the first when `nil`), at most `limit`, by id, each with
    /// their identities, factors and passkeys, and their sessions when `sessions` is set.
    package func accounts(after: UUID?, limit: Int, sessions: Bool) async throws(Failure) -> [SupabaseAccountRows] {
        do {
            let users = try await self.users(after: after, limit: limit)
            let ids = users.map(\.id)
            guard !ids.isEmpty else { return [] }
            let identities = Dictionary(grouping: try await self.identities(of: ids), by: \.userID)
            let factors = Dictionary(grouping: try await self.factors(of: ids), by: \.userID)
            let passkeys = Dictionary(grouping: try await self.passkeys(of: ids), by: \.userID)
            let sessionRows = sessions ? Dictionary(grouping: try await self.sessions(of: ids), by: \.userID) : [:]
            return users.map { user in
                SupabaseAccountRows(
                    user: user, identities: identities[user.id] ?? [], factors: factors[user.id] ?? [], passkeys: passkeys[user.id] ?? [],
                    sessions: sessionRows[user.id] ?? [])
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "cannot read \(schema) at \(redactedURL): \(PostgresFailure.describe(error))")
        }
    }

    /// `name` quoted as a PostgreSQL identifier.
    private static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// `table` in the schema, quoted.
    private func table(_ table: String) -> String { Self.quoted(schema) + "." + Self.quoted(table) }

    /// The first of `names` the table has, as `alias.name::type`; `NULL::type` when it has none.
    private func column(_ table: String, _ names: [String], _ type: String, alias: String = "t") -> String {
        guard let name = names.first(where: { columns.contains(table + "." + $0) }) else { return "NULL::\(type)" }
        return "\(alias).\(Self.quoted(name))::\(type)"
    }

    private func has(_ table: String) -> Bool { columns.contains(table + ".id") || columns.contains(table + ".session_id") }

    private func run(_ sql: String, _ configure: (inout PostgresBindings) -> Void) async throws -> PostgresRowSequence {
        var binds = PostgresBindings()
        configure(&binds)
        return try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
    }

    private func users(after: UUID?, limit: Int) async throws -> [SupabaseUserRow] {
        let sql = """
            SELECT t.id, t.email::text, \(column("users", ["phone"], "text")), \(column("users", ["encrypted_password"], "text")),
              \(column("users", ["email_confirmed_at", "confirmed_at"], "timestamptz")), \(column("users", ["banned_until"], "timestamptz")),
              \(column("users", ["last_sign_in_at"], "timestamptz")), \(column("users", ["created_at"], "timestamptz")),
              \(column("users", ["raw_user_meta_data"], "text")), \(column("users", ["raw_app_meta_data"], "text")),
              coalesce(\(column("users", ["is_anonymous"], "boolean")), false), \(column("users", ["deleted_at"], "timestamptz")),
              \(column("users", ["phone_confirmed_at"], "timestamptz"))
            FROM \(table("users")) t WHERE ($1::uuid IS NULL OR t.id > $1::uuid) ORDER BY t.id LIMIT $2
            """
        let rows = try await run(sql) { binds in
            if let after { binds.append(after) } else { binds.appendNull() }
            binds.append(limit)
        }
        var users: [SupabaseUserRow] = []
        for try await row in rows {
            let (
                id, email, phone, password, confirmedAt, bannedUntil, lastSignInAt, createdAt, userMetadata, appMetadata, anonymous, deletedAt,
                phoneConfirmedAt
            ) =
                try row.decode((UUID, String?, String?, String?, Date?, Date?, Date?, Date?, String?, String?, Bool, Date?, Date?).self)
            users.append(
                SupabaseUserRow(
                    id: id, email: email, phone: phone, encryptedPassword: password, emailConfirmedAt: confirmedAt, bannedUntil: bannedUntil,
                    lastSignInAt: lastSignInAt, createdAt: createdAt, rawUserMetaData: userMetadata, rawAppMetaData: appMetadata,
                    isAnonymous: anonymous, deletedAt: deletedAt, phoneConfirmedAt: phoneConfirmedAt))
        }
        return users
    }

    private func identities(of userIDs: [UUID]) async throws -> [SupabaseIdentityRow] {
        guard columns.contains("identities.user_id") else { return [] }
        // `provider_id` since GoTrue's 2023-11 migration; before it, `id` was the subject.
        let subject = columns.contains("identities.provider_id") ? "provider_id" : "id"
        let sql = """
            SELECT t.user_id, t.provider::text, t.\(Self.quoted(subject))::text, t.identity_data::text,
              \(column("identities", ["last_sign_in_at"], "timestamptz")), \(column("identities", ["created_at"], "timestamptz")),
              \(column("identities", ["updated_at"], "timestamptz"))
            FROM \(table("identities")) t WHERE t.user_id = ANY($1) ORDER BY t.user_id, t.created_at NULLS FIRST, t.\(Self.quoted(subject))
            """
        let rows = try await run(sql) { $0.append(userIDs) }
        var identities: [SupabaseIdentityRow] = []
        for try await (userID, provider, providerID, data, lastSignInAt, createdAt, updatedAt) in rows.decode(
            (UUID, String, String, String?, Date?, Date?, Date?).self)
        {
            identities.append(
                SupabaseIdentityRow(
                    userID: userID, provider: provider, providerID: providerID, identityData: data, lastSignInAt: lastSignInAt,
                    createdAt: createdAt, updatedAt: updatedAt))
        }
        return identities
    }

    private func factors(of userIDs: [UUID]) async throws -> [SupabaseFactorRow] {
        guard has("mfa_factors") else { return [] }
        let sql = """
            SELECT t.id, t.user_id, t.friendly_name::text, t.factor_type::text, t.status::text, \(column("mfa_factors", ["secret"], "text")),
              t.created_at::timestamptz, t.updated_at::timestamptz, \(column("mfa_factors", ["web_authn_credential"], "text")),
              \(column("mfa_factors", ["web_authn_aaguid"], "uuid")), \(column("mfa_factors", ["phone"], "text"))
            FROM \(table("mfa_factors")) t WHERE t.user_id = ANY($1) ORDER BY t.user_id, t.created_at, t.id
            """
        let rows = try await run(sql) { $0.append(userIDs) }
        var factors: [SupabaseFactorRow] = []
        for try await (id, userID, name, type, status, secret, createdAt, updatedAt, credential, aaguid, phone) in rows.decode(
            (UUID, UUID, String?, String, String, String?, Date, Date, String?, UUID?, String?).self)
        {
            factors.append(
                SupabaseFactorRow(
                    id: id, userID: userID, friendlyName: name, factorType: type, status: status, secret: secret, createdAt: createdAt,
                    updatedAt: updatedAt, webAuthnCredential: credential, webAuthnAAGUID: aaguid, phone: phone))
        }
        return factors
    }

    private func passkeys(of userIDs: [UUID]) async throws -> [SupabasePasskeyRow] {
        guard columns.contains("webauthn_credentials.user_id"), columns.contains("webauthn_credentials.public_key") else { return [] }
        let w = "webauthn_credentials"
        let sql = """
            SELECT t.id, t.user_id, t.credential_id, t.public_key, \(column(w, ["attestation_type"], "text")), \(column(w, ["aaguid"], "uuid")),
              coalesce(\(column(w, ["sign_count"], "bigint")), 0), \(column(w, ["transports"], "text")),
              coalesce(\(column(w, ["backup_eligible"], "boolean")), false), coalesce(\(column(w, ["backed_up"], "boolean")), false),
              \(column(w, ["friendly_name"], "text")), coalesce(\(column(w, ["created_at"], "timestamptz")), now()),
              coalesce(\(column(w, ["updated_at"], "timestamptz")), \(column(w, ["created_at"], "timestamptz")), now()),
              \(column(w, ["last_used_at"], "timestamptz"))
            FROM \(table(w)) t WHERE t.user_id = ANY($1) ORDER BY t.user_id, t.created_at, t.id
            """
        let rows = try await run(sql) { $0.append(userIDs) }
        var passkeys: [SupabasePasskeyRow] = []
        for try await row in rows {
            let (
                id, userID, credentialID, publicKey, attestationType, aaguid, signCount, transports, backupEligible, backedUp, name, createdAt,
                updatedAt, lastUsedAt
            ) = try row.decode((UUID, UUID, Data, Data, String?, UUID?, Int64, String?, Bool, Bool, String?, Date, Date, Date?).self)
            passkeys.append(
                SupabasePasskeyRow(
                    id: id, userID: userID, credentialID: Array(credentialID), publicKey: Array(publicKey), attestationType: attestationType,
                    aaguid: aaguid, signCount: signCount, transports: transports, backupEligible: backupEligible, backedUp: backedUp,
                    friendlyName: name, createdAt: createdAt, updatedAt: updatedAt, lastUsedAt: lastUsedAt))
        }
        return passkeys
    }

    private func sessions(of userIDs: [UUID]) async throws -> [SupabaseSessionRow] {
        guard has("sessions") else { return [] }
        let liveToken =
            columns.contains("refresh_tokens.session_id")
            ? """
            (SELECT r.token::text FROM \(table("refresh_tokens")) r
              WHERE r.session_id = t.id AND NOT coalesce(r.revoked, false) ORDER BY r.id DESC LIMIT 1)
            """ : "NULL::text"
        let signs = columns.contains("sessions.refresh_token_hmac_key") ? "t.refresh_token_hmac_key IS NOT NULL" : "false"
        let sql = """
            SELECT t.id, t.user_id, coalesce(t.created_at::timestamptz, now()), \(column("sessions", ["updated_at"], "timestamptz")),
              \(column("sessions", ["refreshed_at"], "timestamptz")), \(column("sessions", ["not_after"], "timestamptz")),
              \(column("sessions", ["aal"], "text")), \(column("sessions", ["factor_id"], "uuid")), \(signs), \(liveToken)
            FROM \(table("sessions")) t WHERE t.user_id = ANY($1) ORDER BY t.user_id, t.created_at, t.id
            """
        let rows = try await run(sql) { $0.append(userIDs) }
        var sessions: [SupabaseSessionRow] = []
        for try await (id, userID, createdAt, updatedAt, refreshedAt, notAfter, aal, factorID, signsTokens, token) in rows.decode(
            (UUID, UUID, Date, Date?, Date?, Date?, String?, UUID?, Bool, String?).self)
        {
            sessions.append(
                SupabaseSessionRow(
                    id: id, userID: userID, createdAt: createdAt, updatedAt: updatedAt, refreshedAt: refreshedAt, notAfter: notAfter, aal: aal,
                    factorID: factorID, signsRefreshTokens: signsTokens, refreshToken: token))
        }
        guard !sessions.isEmpty, has("mfa_amr_claims") else { return sessions }
        let claims = try await run(
            """
            SELECT t.session_id, t.authentication_method::text, t.updated_at::timestamptz
            FROM \(table("mfa_amr_claims")) t WHERE t.session_id = ANY($1) ORDER BY t.created_at, t.authentication_method
            """
        ) { $0.append(sessions.map(\.id)) }
        var methods: [UUID: [AuthenticationMethodReference]] = [:]
        for try await (sessionID, method, at) in claims.decode((UUID, String, Date).self) {
            methods[sessionID, default: []].append(AuthenticationMethodReference(method: method, timestamp: Int(at.timeIntervalSince1970)))
        }
        for index in sessions.indices { sessions[index].methods = methods[sessions[index].id] ?? [] }
        return sessions
    }
}
