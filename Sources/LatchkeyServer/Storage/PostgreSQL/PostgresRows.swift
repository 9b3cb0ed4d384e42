import Foundation
import LatchkeyWire
import PostgresNIO

/// Mapping between records and PostgreSQL rows, and the statements that write them.
///
/// Dates are TIMESTAMPTZ (microsecond precision); metadata and audit traits are JSONB, written
/// from and read back as the same compact JSON text that SQLite stores. Ids are native UUIDs,
/// which PostgreSQL itself keeps well-formed; a text column that holds what the store never
/// writes (an unknown audit action or link kind) throws ``StoreError/unreadableRow(_:)``.
enum PostgresRows {
    // MARK: Users

    /// The columns ``user(_:)`` decodes, in order.
    static let userColumns = """
        id, aud, role, email, password_hash, email_confirmed_at, confirmation_sent_at, recovery_sent_at, \
        new_email, email_change_sent_at, last_sign_in_at, banned_until, app_metadata::text, user_metadata::text, \
        created_at, updated_at, is_anonymous, invited_at, phone, phone_confirmed_at, phone_change, phone_change_sent_at
        """

    /// ``userColumns`` of the table aliased `u`.
    static let userColumnsOfU = userColumns.split(separator: ",").map { "u." + $0.trimmingCharacters(in: .whitespaces) }
        .joined(separator: ", ")

    /// Decodes ``userColumns`` starting at column `offset` (after a session's columns in a join).
    static func user(_ row: PostgresRow, offset: Int = 0) throws -> UserRecord {
        let cells = row.makeRandomAccess()
        func cell<T: PostgresDecodable>(_ index: Int, _ type: T.Type = T.self) throws -> T { try cells[offset + index].decode(T.self) }
        return UserRecord(
            id: try cell(0), aud: try cell(1), role: try cell(2), email: try cell(3, String?.self) ?? "", passwordHash: try cell(4),
            emailConfirmedAt: try cell(5), confirmationSentAt: try cell(6), recoverySentAt: try cell(7), newEmail: try cell(8),
            emailChangeSentAt: try cell(9), lastSignInAt: try cell(10), bannedUntil: try cell(11),
            isAnonymous: try cell(16), invitedAt: try cell(17),
            appMetadata: .fromJSONString(try cell(12, String.self)), userMetadata: .fromJSONString(try cell(13, String.self)),
            createdAt: try cell(14), updatedAt: try cell(15), phone: try cell(18, String?.self) ?? "", phoneConfirmedAt: try cell(19),
            phoneChange: try cell(20), phoneChangeSentAt: try cell(21))
    }

    static func insertUser(_ user: UserRecord) -> PostgresQuery {
        """
        INSERT INTO users (id, aud, role, email, password_hash, email_confirmed_at, confirmation_sent_at, recovery_sent_at,
            new_email, email_change_sent_at, last_sign_in_at, banned_until, app_metadata, user_metadata, created_at, updated_at,
            is_anonymous, invited_at, phone, phone_confirmed_at, phone_change, phone_change_sent_at)
        VALUES (\(user.id), \(user.aud), \(user.role), \(user.storedEmail), \(user.passwordHash), \(user.emailConfirmedAt),
            \(user.confirmationSentAt), \(user.recoverySentAt), \(user.newEmail), \(user.emailChangeSentAt), \(user.lastSignInAt),
            \(user.bannedUntil), \(user.appMetadata.jsonString())::jsonb, \(user.userMetadata.jsonString())::jsonb,
            \(user.createdAt), \(user.updatedAt), \(user.isAnonymous), \(user.invitedAt), \(user.storedPhone), \(user.phoneConfirmedAt),
            \(user.phoneChange), \(user.phoneChangeSentAt))
        """
    }

    /// Deletes sessions of `userID` (all, all but `except`, or only `only`), returning their ids.
    static func endSessions(userID: UUID, except: UUID?, only: UUID?) -> PostgresQuery {
        """
        DELETE FROM sessions WHERE user_id = \(userID)
            AND (\(except)::uuid IS NULL OR id <> \(except)) AND (\(only)::uuid IS NULL OR id = \(only))
        RETURNING id
        """
    }

    static func updateUser(_ user: UserRecord) -> PostgresQuery {
        """
        UPDATE users SET aud = \(user.aud), role = \(user.role), email = \(user.storedEmail), password_hash = \(user.passwordHash),
            email_confirmed_at = \(user.emailConfirmedAt), confirmation_sent_at = \(user.confirmationSentAt),
            recovery_sent_at = \(user.recoverySentAt), new_email = \(user.newEmail), email_change_sent_at = \(user.emailChangeSentAt),
            last_sign_in_at = \(user.lastSignInAt), banned_until = \(user.bannedUntil),
            app_metadata = \(user.appMetadata.jsonString())::jsonb, user_metadata = \(user.userMetadata.jsonString())::jsonb,
            created_at = \(user.createdAt), updated_at = \(user.updatedAt), is_anonymous = \(user.isAnonymous),
            invited_at = \(user.invitedAt), phone = \(user.storedPhone), phone_confirmed_at = \(user.phoneConfirmedAt),
            phone_change = \(user.phoneChange), phone_change_sent_at = \(user.phoneChangeSentAt)
        WHERE id = \(user.id)
        """
    }

    // MARK: Sessions and refresh tokens

    static let sessionColumns =
        "id, user_id, created_at, updated_at, refreshed_at, not_after, auth_method, aal, factor_id, verified_methods::text, oauth_client_id, scopes"
    static let sessionColumnsOfS = sessionColumns.split(separator: ",").map { "s." + $0.trimmingCharacters(in: .whitespaces) }
        .joined(separator: ", ")
    /// How many columns ``session(_:)`` decodes: a joined user's columns start after them.
    static let sessionColumnCount = 12

    /// Decodes ``sessionColumns``, the first ``sessionColumnCount`` columns of the row.
    static func session(_ row: PostgresRow) throws -> SessionRecord {
        let cells = row.makeRandomAccess()
        return SessionRecord(
            id: try cells[0].decode(UUID.self), userID: try cells[1].decode(UUID.self),
            createdAt: try cells[2].decode(Date.self), updatedAt: try cells[3].decode(Date.self),
            refreshedAt: try cells[4].decode(Date.self), notAfter: try cells[5].decode(Date?.self),
            authMethod: try cells[6].decode(String.self),
            aal: try SQLiteRows.assuranceLevel(try cells[7].decode(String.self), of: "sessions"), factorID: try cells[8].decode(UUID?.self),
            verifiedMethods: try SQLiteRows.verifiedMethods(try cells[9].decode(String.self), of: "sessions"),
            oauthClientID: try cells[10].decode(UUID?.self), scopes: try cells[11].decode(String?.self))
    }

    static func insertSession(_ session: SessionRecord) -> PostgresQuery {
        """
        INSERT INTO sessions (id, user_id, created_at, updated_at, refreshed_at, not_after, auth_method, aal, factor_id, verified_methods,
            oauth_client_id, scopes)
        VALUES (\(session.id), \(session.userID), \(session.createdAt), \(session.updatedAt), \(session.refreshedAt),
            \(session.notAfter), \(session.authMethod), \(session.aal.rawValue), \(session.factorID), \(session.verifiedMethodsJSON)::jsonb,
            \(session.oauthClientID), \(session.scopes))
        """
    }

    // MARK: Factors and challenges

    static let factorColumns =
        "id, user_id, friendly_name, factor_type, status, secret, created_at, updated_at, last_challenged_at, last_used_step, web_authn_credential::text, phone"

    static func factor(_ row: PostgresRow) throws -> FactorRecord {
        let (id, userID, name, type, status, secret, createdAt, updatedAt, challengedAt, lastStep, credential, phone) =
            try row.decode((UUID, UUID, String, String, String, String, Date, Date, Date?, Int64?, String?, String?).self)
        guard let status = FactorRecord.Status(rawValue: status) else {
            throw StoreError.unreadableRow("mfa_factors.status holds an unknown status")
        }
        return FactorRecord(
            id: id, userID: userID, friendlyName: name, factorType: type, status: status, sealedSecret: secret, createdAt: createdAt,
            updatedAt: updatedAt, lastChallengedAt: challengedAt, lastUsedStep: lastStep, webAuthnCredential: try FactorCredential.stored(credential),
            phone: phone)
    }

    static let challengeColumns = "id, factor_id, created_at, verified_at, ip_address, web_authn_ceremony, web_authn_challenge, code_hash"

    static func challenge(_ row: PostgresRow) throws -> ChallengeRecord {
        let (id, factorID, createdAt, verifiedAt, ipAddress, ceremony, challenge, codeHash) =
            try row.decode((UUID, UUID, Date, Date?, String, String?, String?, String?).self)
        return ChallengeRecord(
            id: id, factorID: factorID, createdAt: createdAt, verifiedAt: verifiedAt, ipAddress: ipAddress,
            webAuthn: try FactorWebAuthnChallenge.stored(ceremony: ceremony, challenge: challenge), codeHash: codeHash)
    }

    /// The statements of one row change of a factor operation, to run in order.
    static func statements(for change: FactorChange) -> [PostgresFragment] {
        switch change {
        case .insertFactor(let factor):
            [
                """
                INSERT INTO mfa_factors (id, user_id, friendly_name, factor_type, status, secret, created_at, updated_at,
                    last_challenged_at, last_used_step, web_authn_credential, phone)
                VALUES (\(factor.id), \(factor.userID), \(factor.friendlyName), \(factor.factorType), \(factor.status.rawValue),
                    \(factor.sealedSecret), \(factor.createdAt), \(factor.updatedAt), \(factor.lastChallengedAt), \(factor.lastUsedStep),
                    \(factor.webAuthnCredential?.storedText)::jsonb, \(factor.phone))
                """
            ]
        case .updateFactor(let factor):
            [
                """
                UPDATE mfa_factors SET friendly_name = \(factor.friendlyName), status = \(factor.status.rawValue),
                    updated_at = \(factor.updatedAt), last_challenged_at = \(factor.lastChallengedAt), last_used_step = \(factor.lastUsedStep),
                    web_authn_credential = \(factor.webAuthnCredential?.storedText)::jsonb
                WHERE id = \(factor.id)
                """
            ]
        case .deleteFactor(let id):
            [
                "DELETE FROM mfa_factors WHERE id = \(id)",
                "UPDATE sessions SET aal = 'aal1', factor_id = NULL, verified_methods = '[]'::jsonb WHERE factor_id = \(id)",
            ]
        case .insertChallenge(let challenge):
            [
                """
                INSERT INTO mfa_challenges (id, factor_id, created_at, verified_at, ip_address, web_authn_ceremony, web_authn_challenge, code_hash)
                VALUES (\(challenge.id), \(challenge.factorID), \(challenge.createdAt), \(challenge.verifiedAt), \(challenge.ipAddress),
                    \(challenge.webAuthn?.ceremony.rawValue), \(challenge.webAuthn.map { Base64URL.encode($0.challenge) }), \(challenge.codeHash))
                """
            ]
        case .markChallengeVerified(let id, let at):
            ["UPDATE mfa_challenges SET verified_at = \(at) WHERE id = \(id)"]
        case .deleteChallenge(let id):
            ["DELETE FROM mfa_challenges WHERE id = \(id)"]
        case .updateSessionAssurance(let session):
            [
                """
                UPDATE sessions SET aal = \(session.aal.rawValue), factor_id = \(session.factorID),
                    verified_methods = \(session.verifiedMethodsJSON)::jsonb, updated_at = \(session.updatedAt)
                WHERE id = \(session.id)
                """
            ]
        case .replaceRefreshToken(let token):
            [
                "UPDATE refresh_tokens SET revoked_at = \(token.createdAt) WHERE session_id = \(token.sessionID) AND revoked_at IS NULL",
                insertRefreshToken(token),
            ]
        case .endLowerAssuranceSessions(let userID, let except):
            ["DELETE FROM sessions WHERE user_id = \(userID) AND aal = 'aal1' AND id <> \(except)"]
        case .audit(let entry):
            [insertAudit(entry)]
        }
    }

    static let refreshTokenColumns = "id, token_hash, session_id, user_id, parent_hash, revoked_at, created_at"

    static func refreshToken(_ row: PostgresRow) throws -> RefreshTokenRecord {
        let (id, hash, sessionID, userID, parentHash, revokedAt, createdAt) =
            try row.decode((Int64, String, UUID, UUID, String?, Date?, Date).self)
        return RefreshTokenRecord(
            id: id, tokenHash: hash, sessionID: sessionID, userID: userID, parentHash: parentHash, revokedAt: revokedAt, createdAt: createdAt)
    }

    static func insertRefreshToken(_ token: RefreshTokenRecord) -> PostgresFragment {
        """
        INSERT INTO refresh_tokens (token_hash, session_id, user_id, parent_hash, revoked_at, created_at)
        VALUES (\(token.tokenHash), \(token.sessionID), \(token.userID), \(token.parentHash), \(token.revokedAt), \(token.createdAt))
        """
    }

    /// `changes` as one query (see ``PostgresFragment/query(_:)``); `nil` when there are none.
    static func apply(_ changes: [RefreshTokenChange]) -> PostgresQuery? {
        PostgresFragment.query(changes.flatMap(statements(for:)))
    }

    /// The statements of one row change of a refresh.
    static func statements(for change: RefreshTokenChange) -> [PostgresFragment] {
        switch change {
        case .markSpent(let hash, let at):
            ["UPDATE refresh_tokens SET revoked_at = \(at) WHERE token_hash = \(hash)"]
        case .insertToken(let token):
            [insertRefreshToken(token)]
        case .touchSession(let id, let at):
            ["UPDATE sessions SET refreshed_at = \(at), updated_at = \(at) WHERE id = \(id)"]
        case .revokeSession(let id, let at):
            [
                "DELETE FROM sessions WHERE id = \(id)",
                "UPDATE refresh_tokens SET revoked_at = \(at) WHERE session_id = \(id) AND revoked_at IS NULL",
            ]
        case .audit(let entry):
            [insertAudit(entry)]
        }
    }

    // MARK: Email-link tokens

    static let oneTimeTokenColumns = "user_id, kind, token_hash, code_hash, relates_to, created_at"

    static func oneTimeToken(_ row: PostgresRow) throws -> OneTimeToken {
        let (userID, kind, hash, codeHash, relatesTo, createdAt) = try row.decode((UUID, String, String, String?, String, Date).self)
        guard let kind = OneTimeToken.Kind(rawValue: kind) else {
            throw StoreError.unreadableRow("one_time_tokens.kind holds an unknown kind")
        }
        return OneTimeToken(userID: userID, kind: kind, tokenHash: hash, codeHash: codeHash, relatesTo: relatesTo, createdAt: createdAt)
    }

    // MARK: PKCE flows

    static let flowStateColumns =
        "id, user_id, authentication_method, code_challenge, code_challenge_method, auth_code_hash, auth_code_issued_at, created_at"

    static func flowState(_ row: PostgresRow) throws -> FlowState {
        let (id, userID, method, challenge, challengeMethod, codeHash, issuedAt, createdAt) =
            try row.decode((UUID, UUID, String, String, String, String?, Date?, Date).self)
        guard let challengeMethod = FlowState.ChallengeMethod(rawValue: challengeMethod) else {
            throw StoreError.unreadableRow("flow_states.code_challenge_method holds an unknown method")
        }
        return FlowState(
            id: id, userID: userID, authenticationMethod: method, codeChallenge: challenge, codeChallengeMethod: challengeMethod,
            authCodeHash: codeHash, authCodeIssuedAt: issuedAt, createdAt: createdAt)
    }

    // MARK: Audit

    static let auditColumns = "id, action, actor_id, actor_username, log_type, traits::text, ip_address, created_at"

    static func audit(_ row: PostgresRow) throws -> AuditEntry {
        let (id, action, actorID, actorUsername, logType, traits, ipAddress, createdAt) =
            try row.decode((UUID, String, UUID?, String?, String, String, String, Date).self)
        guard let action = AuditEntry.Action(rawValue: action) else {
            throw StoreError.unreadableRow("audit_log.action holds an unknown action")
        }
        var entry = AuditEntry(
            id: id, action: action, actorID: actorID, actorUsername: actorUsername,
            traits: .fromJSONString(traits), ipAddress: ipAddress, createdAt: createdAt)
        entry.logType = logType
        return entry
    }

    static func insertAudit(_ entry: AuditEntry) -> PostgresFragment {
        """
        INSERT INTO audit_log (id, action, actor_id, actor_username, log_type, traits, ip_address, created_at)
        VALUES (\(entry.id), \(entry.action.rawValue), \(entry.actorID), \(entry.actorUsername), \(entry.logType),
            \(entry.traits.jsonString())::jsonb, \(entry.ipAddress), \(entry.createdAt))
        """
    }
}
