import Foundation

/// `latchkey import supabase`: reads a Supabase (GoTrue) `auth` schema one page of users at a
/// time (``SupabaseAuthSchema``) and writes each user through the store in its own transaction
/// (``ImportPlan``), then their passkeys, TOTP, WebAuthn and phone factors and, when asked, their
/// live sessions, so an interrupted import is finished by running it again. Nothing it reports
/// or logs holds an address, a hash, a secret or a token: rows are named by their position and
/// user id.
package struct SupabaseImport: Sendable {
    let store: any AuthStore
    let factorSecrets: FactorSecretBox
    let sessions: Bool
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - configuration: the server's: its JWT secret (or `<data-dir>/jwt-secret`) seals the
    ///     factors' secrets as the server will open them.
    ///   - sessions: whether live sessions and their refresh tokens come along.
    package init(store: any AuthStore, configuration: ServerConfiguration, sessions: Bool, now: @escaping @Sendable () -> Date = { Date() }) throws {
        if configuration.jwtSecret == nil { try ServerSecrets.prepareDataDirectory(configuration.dataDirectory) }
        let secret = try ServerSecrets.jwtSecret(configured: configuration.jwtSecret, dataDirectory: configuration.dataDirectory)
        self.store = store
        self.factorSecrets = FactorSecretBox(jwtSecret: secret)
        self.sessions = sessions
        self.now = now
    }

    /// Imports every user of `source`, `pageSize` at a time; `progress` is called after every page.
    package func run(
        source: SupabaseAuthSchema, pageSize: Int = 500, progress: @Sendable (ImportReport) -> Void = { _ in }
    ) async throws -> ImportReport {
        var report = ImportReport()
        var after: UUID?
        while true {
            let page = try await source.accounts(after: after, limit: pageSize, sessions: sessions)
            for rows in page {
                report.read += 1
                try await importAccount(rows, position: report.read, into: &report)
            }
            guard page.count == pageSize, let last = page.last else { break }
            after = last.user.id
            progress(report)
        }
        return report
    }

    /// The user, then their passkeys, factors and sessions; what of them cannot be taken is
    /// reported as left out.
    func importAccount(_ rows: SupabaseAccountRows, position: Int, into report: inout ImportReport) async throws {
        let now = now()
        let uid = rows.user.id.lowercasedString
        let imported = try await report.importRow(position: position, uid: uid) {
            let account = try SupabaseAccountMapping.account(rows, now: now)
            let first = account.identities.first
            let lookup = IdentityLookup(
                provider: first?.provider, subject: first?.subject, emails: account.user.email.isEmpty ? [] : [account.user.email],
                userID: account.user.id)
            return (try await store.changeIdentities(lookup) { state in try ImportPlan.plan(account, state: state, now: now) }, account)
        }
        guard let account = imported else { return }
        report.identities += account.identities.count
        for reason in account.leftOut { report.leaveOut(position: position, uid: uid, reason: reason) }

        for row in rows.passkeys {
            do {
                let passkey = try SupabaseAccountMapping.passkey(row)
                _ = try await store.changePasskeys(of: passkey.userID) { current in try ImportPlan.passkey(passkey, current: current) }
                report.passkeys += 1
            } catch {
                try report.leaveOut(position: position, uid: uid, what: "passkey \(row.id.lowercasedString)", error)
            }
        }

        var factorIDs: Set<UUID> = []
        // A WebAuthn factor may not hold one of the user's passkeys (imported or registered here).
        let passkeys =
            rows.factors.contains { $0.factorType == FactorRecord.webAuthnType }
            ? try await store.passkeys(userID: rows.user.id).map(\.credentialID) : []
        for row in rows.factors {
            do {
                guard let factor = try SupabaseAccountMapping.factor(row) else { continue }
                let record: FactorRecord
                switch factor.proof {
                case .totp(let secret):
                    record = FactorRecord(
                        id: factor.id, userID: factor.userID, friendlyName: factor.friendlyName, status: .verified,
                        sealedSecret: try factorSecrets.seal(secret, factorID: factor.id), createdAt: factor.createdAt, updatedAt: factor.updatedAt)
                case .webAuthn(let credential):
                    record = FactorRecord(
                        id: factor.id, userID: factor.userID, friendlyName: factor.friendlyName, factorType: FactorRecord.webAuthnType,
                        status: .verified, sealedSecret: "", createdAt: factor.createdAt, updatedAt: factor.updatedAt, webAuthnCredential: credential)
                case .phone(let number):
                    record = FactorRecord(
                        id: factor.id, userID: factor.userID, friendlyName: factor.friendlyName, factorType: FactorRecord.phoneType,
                        status: .verified, sealedSecret: "", createdAt: factor.createdAt, updatedAt: factor.updatedAt, phone: number)
                }
                let outcome = try await store.changeFactors(of: factor.userID, challengeID: nil, sessionID: nil) { state in
                    ImportPlan.factor(record, state: state, passkeys: passkeys)
                }
                _ = try outcome.get()
                factorIDs.insert(factor.id)
                switch record.factorType {
                case FactorRecord.webAuthnType: report.webAuthnFactors += 1
                case FactorRecord.phoneType: report.phoneFactors += 1
                default: report.factors += 1
                }
            } catch {
                try report.leaveOut(position: position, uid: uid, what: "factor \(row.id.lowercasedString)", error)
            }
        }
        guard sessions else { return }
        for row in rows.sessions {
            do {
                guard let live = try SupabaseAccountMapping.session(row, factorIDs: factorIDs, now: now) else { continue }
                try await carryOver(live.session, refreshToken: live.refreshToken, now: now)
                report.sessions += 1
            } catch {
                try report.leaveOut(position: position, uid: uid, what: "session \(row.id.lowercasedString)", error)
            }
        }
    }

    /// Stores `session` with `refreshToken` as its active token. A session stored by an earlier
    /// run stays as it is when it holds this token (spent or not: a client may have refreshed
    /// here since); when the source refreshed the session since, its newest token replaces the
    /// stored one.
    func carryOver(_ session: SessionRecord, refreshToken: String, now: Date) async throws {
        let hash = OpaqueTokens.hash(refreshToken)
        if let stored = try await store.sessionID(ofRefreshTokenHash: hash) {
            guard stored == session.id else { throw ImportRefusal("its refresh token belongs to another session") }
            return
        }
        guard try await store.sessionWithUser(id: session.id) != nil else {
            try await store.createSession(session, refreshTokenHash: hash, updatingUser: nil, audit: nil)
            return
        }
        let token = RefreshTokenRecord(hash: hash, of: session, parentHash: nil, createdAt: now)
        let replaced = try await store.changeFactors(of: session.userID, challengeID: nil, sessionID: session.id) { state in
            guard state.session?.userID == session.userID else { return FactorPlan(changes: [], result: false) }
            return FactorPlan(changes: [.replaceRefreshToken(token)], result: true)
        }
        guard replaced else { throw ImportRefusal("the session belongs to another user here") }
    }
}
