import Foundation
import LatchkeyWire

/// A verified factor of the source as Latchkey stores it: a TOTP factor with its secret (not
/// yet sealed), a WebAuthn factor with its credential, or a phone factor with its number.
struct ImportedFactor: Sendable, Equatable {
    /// What proves the factor.
    enum Proof: Sendable, Equatable {
        case totp(secret: [UInt8])
        case webAuthn(FactorCredential)
        /// The number in E.164 digits without the `+`.
        case phone(String)
    }

    var id: UUID
    var userID: UUID
    var friendlyName: String
    var proof: Proof
    var createdAt: Date
    var updatedAt: Date

    /// The TOTP secret; `nil` for a WebAuthn factor.
    var secret: [UInt8]? {
        guard case .totp(let secret) = proof else { return nil }
        return secret
    }

    /// The WebAuthn credential; `nil` for a TOTP factor.
    var webAuthnCredential: FactorCredential? {
        guard case .webAuthn(let credential) = proof else { return nil }
        return credential
    }
}

/// How the rows of a Supabase (GoTrue) `auth` schema become Latchkey's:
///
/// - a user keeps their `id`, `email` (lowercased), `email_confirmed_at`, `phone` (E.164),
///   `phone_confirmed_at`, `banned_until`, `created_at`, `last_sign_in_at` and `is_anonymous`;
///   `raw_user_meta_data` becomes user metadata and `raw_app_meta_data` app metadata;
/// - `encrypted_password` is kept when the server can verify it (bcrypt, Firebase scrypt or
///   Argon2i/Argon2id that GoTrue's admin API took in, the first sign-in re-hashing it to
///   bcrypt); another (argon2d, an Argon2 cost above ``Argon2Hash``'s limits) leaves the user
///   without a password, and the report says why;
/// - a user with a number and no address (a phone-only one) signs in with the number here; a
///   soft-deleted user (`deleted_at`), a user with neither an address nor a number (unless
///   anonymous), a number that is not E.164 and a row whose metadata is not a JSON object are
///   refused;
/// - each identity at an external provider keeps its provider, `provider_id` (the subject) and
///   `identity_data`; GoTrue's `email` and `phone` identities are the account's own address
///   and number, which Latchkey keeps on the user instead (`app_metadata.providers` names them;
///   a `phone` identity row adds `phone` there when the source's metadata lacks it);
/// - a verified TOTP factor keeps its id, name and secret while the secret is in plain text
///   (base32); a verified WebAuthn factor keeps its id, name and credential
///   (`web_authn_credential`: credential id, COSE public key, counter, flags, AAGUID); a verified
///   phone factor keeps its id, name and number (`phone`); secrets GoTrue encrypted and
///   credentials that cannot be read are left out;
/// - a passkey (`webauthn_credentials`) keeps its id, credential id, COSE public key, counter,
///   AAGUID, transports, backup flags, name and times; one whose public key is not a COSE key
///   the server verifies (ES256, EdDSA, RS256) is left out. The user handle both servers give
///   authenticators is the user id's text, and the id is kept, so the authenticators need
///   nothing new; the relying party ID must stay the same;
/// - a session keeps its id, user, times, `not_after`, `aal`, factor and methods, and its newest
///   refresh token not revoked becomes its active token here.
enum SupabaseAccountMapping {
    /// GoTrue's identities that are the account's own address or number, not an external provider.
    static let ownIdentityProviders: Set<String> = ["email", "phone"]
    /// The `mfa_amr_claims` methods of the second factors Latchkey has: a session keeps them
    /// as verified in it (its `amr`); the first other method is how it signed in.
    static let secondFactorMethods: Set<String> = ["totp", "mfa/phone", "mfa/webauthn"]

    /// The account `rows` describe as Latchkey stores it, or why it cannot be imported. What is
    /// left out (a password hash the server cannot verify) is in ``ImportedAccount/leftOut``.
    static func account(_ rows: SupabaseAccountRows, now: Date) throws(ImportRefusal) -> ImportedAccount {
        var row = rows.user
        row.emailConfirmedAt = milliseconds(row.emailConfirmedAt)
        row.bannedUntil = milliseconds(row.bannedUntil)
        row.lastSignInAt = milliseconds(row.lastSignInAt)
        row.createdAt = milliseconds(row.createdAt)
        row.phoneConfirmedAt = milliseconds(row.phoneConfirmedAt)
        guard row.deletedAt == nil else { throw ImportRefusal("deleted at the source (deleted_at is set)") }
        var phone = ""
        if let rawPhone = row.phone, !rawPhone.isEmpty {
            do { phone = try InputRules.normalizedPhone(rawPhone) } catch { throw ImportRefusal("the phone number is not valid (E.164)") }
        }
        let rawEmail = row.email ?? ""
        let email: String
        if rawEmail.isEmpty {
            guard row.isAnonymous || !phone.isEmpty else { throw ImportRefusal("no email address or phone number") }
            email = ""
        } else {
            do { email = try InputRules.normalizedEmail(rawEmail) } catch { throw ImportRefusal("the email address is not valid") }
        }
        let createdAt = row.createdAt ?? now

        var leftOut: [String] = []
        var passwordHash: String?
        if let hash = row.encryptedPassword, !hash.isEmpty {
            do throws(PasswordHashError) {
                _ = try StoredPasswordHash(importing: hash)
                passwordHash = hash
            } catch {
                let reason =
                    switch error {
                    case .unsupported(let reason), .malformed(let reason): reason
                    }
                leftOut.append(
                    hash.hasPrefix(Argon2Hash.prefix)
                        ? "imported without its password: encrypted_password is an argon2 hash this server will not verify (\(reason))"
                        : "imported without its password: encrypted_password is not a bcrypt (cost \(StoredPasswordHash.maximumImportedBcryptCost) or less), Firebase scrypt or argon2 hash (\(reason))"
                )
            }
        }

        let userMetadata = try jsonObject(row.rawUserMetaData, "raw_user_meta_data")
        var appMetadata = try jsonObject(row.rawAppMetaData, "raw_app_meta_data")

        var identities: [IdentityRecord] = []
        for identity in rows.identities where !ownIdentityProviders.contains(identity.provider) {
            guard !identity.providerID.isEmpty else { throw ImportRefusal("its \(identity.provider) identity has no provider_id") }
            let data = try jsonObject(identity.identityData, "identity_data of its \(identity.provider) identity")
            let identityCreatedAt = identity.createdAt ?? createdAt
            identities.append(
                IdentityRecord(
                    subject: identity.providerID, userID: row.id, provider: identity.provider, identityData: data,
                    email: data["email"]?.stringValue.map { $0.lowercased() }, lastSignInAt: identity.lastSignInAt,
                    createdAt: identityCreatedAt, updatedAt: identity.updatedAt ?? identityCreatedAt))
        }
        // A phone-only account signs in with its number: GoTrue gave it a phone identity.
        let phoneIdentity = !phone.isEmpty && (email.isEmpty || rows.identities.contains { $0.provider == "phone" }) ? ["phone"] : []
        var providers = appMetadata["providers"]?.arrayValue?.compactMap(\.stringValue) ?? (email.isEmpty ? [] : ["email"])
        for provider in phoneIdentity + identities.map(\.provider) where !providers.contains(provider) { providers.append(provider) }
        appMetadata["providers"] = .array(providers.map(JSONValue.string))
        if appMetadata["provider"] == nil, let first = providers.first { appMetadata["provider"] = .string(first) }

        let user = UserRecord(
            id: row.id, email: email, passwordHash: passwordHash, emailConfirmedAt: email.isEmpty ? nil : row.emailConfirmedAt,
            lastSignInAt: row.lastSignInAt, bannedUntil: row.bannedUntil, isAnonymous: row.isAnonymous && email.isEmpty && phone.isEmpty,
            appMetadata: appMetadata, userMetadata: userMetadata, createdAt: createdAt, updatedAt: now, phone: phone,
            phoneConfirmedAt: phone.isEmpty ? nil : row.phoneConfirmedAt)
        return ImportedAccount(user: user, identities: identities, leftOut: leftOut)
    }

    /// The factor as Latchkey stores it; `nil` for a factor never verified (an enrollment the
    /// user did not finish); throws why a verified factor cannot be taken.
    static func factor(_ row: SupabaseFactorRow) throws(ImportRefusal) -> ImportedFactor? {
        guard [FactorRecord.totpType, FactorRecord.webAuthnType, FactorRecord.phoneType].contains(row.factorType) else {
            throw ImportRefusal("a \(row.factorType) factor (only verified TOTP, WebAuthn and phone factors are imported)")
        }
        guard row.status == FactorRecord.Status.verified.rawValue else { return nil }
        let proof: ImportedFactor.Proof
        if row.factorType == FactorRecord.phoneType {
            guard let number = row.phone, !number.isEmpty else { throw ImportRefusal("a phone factor without a number") }
            do { proof = .phone(try InputRules.normalizedPhone(number)) } catch { throw ImportRefusal("a phone factor whose number is not E.164") }
        } else if row.factorType == FactorRecord.webAuthnType {
            proof = .webAuthn(try GoWebAuthnCredential.factorCredential(row.webAuthnCredential, aaguid: row.webAuthnAAGUID))
        } else {
            guard let text = row.secret, !text.isEmpty else { throw ImportRefusal("a TOTP factor without a secret") }
            if text.hasPrefix("{") {
                throw ImportRefusal("a TOTP factor whose secret GoTrue's database encryption sealed (the user enrolls again)")
            }
            guard let secret = Base32.decode(text), !secret.isEmpty else { throw ImportRefusal("a TOTP factor whose secret is not base32") }
            proof = .totp(secret: secret)
        }
        return ImportedFactor(
            id: row.id, userID: row.userID, friendlyName: row.friendlyName ?? "", proof: proof, createdAt: row.createdAt, updatedAt: row.updatedAt)
    }

    /// The passkey as Latchkey stores it, or why it cannot be taken: a credential id out of
    /// WebAuthn's bounds, a public key that is not a COSE key the server verifies, a counter
    /// out of range. Transports are hints: unreadable ones are dropped, not refused.
    static func passkey(_ row: SupabasePasskeyRow) throws(ImportRefusal) -> PasskeyRecord {
        guard (1...GoWebAuthnCredential.maximumCredentialIDLength).contains(row.credentialID.count) else {
            throw ImportRefusal("credential_id is empty or longer than WebAuthn's 1023 bytes")
        }
        try GoWebAuthnCredential.checkPublicKey(row.publicKey, "public_key")
        guard let signCount = UInt32(exactly: row.signCount) else { throw ImportRefusal("sign_count is out of range") }
        let transports =
            row.transports.flatMap { try? JSONDecoder().decode([JSONValue].self, from: Data($0.utf8)) }?.compactMap(\.stringValue) ?? []
        let createdAt = milliseconds(row.createdAt) ?? row.createdAt
        return PasskeyRecord(
            id: row.id, userID: row.userID, credentialID: row.credentialID, publicKey: row.publicKey,
            attestationType: row.attestationType.flatMap { $0.isEmpty ? nil : $0 } ?? "none", aaguid: GoWebAuthnCredential.model(row.aaguid),
            signCount: signCount, transports: transports, backupEligible: row.backupEligible, backedUp: row.backedUp,
            friendlyName: row.friendlyName ?? "", createdAt: createdAt, updatedAt: milliseconds(row.updatedAt) ?? createdAt,
            lastUsedAt: milliseconds(row.lastUsedAt))
    }

    /// The session and its live refresh token; `nil` for a session that cannot be resumed
    /// anyway (every token revoked, or past `not_after`); throws why a live one cannot be taken.
    /// `factorIDs` are the user's factors stored here: the session keeps its factor if it is one.
    static func session(
        _ row: SupabaseSessionRow, factorIDs: Set<UUID>, now: Date
    ) throws(ImportRefusal) -> (session: SessionRecord, refreshToken: String)? {
        if let notAfter = row.notAfter, notAfter <= now { return nil }
        guard !row.signsRefreshTokens else {
            throw ImportRefusal("a session whose refresh tokens GoTrue signs (refresh_token_hmac_key), which Latchkey cannot verify")
        }
        guard let token = row.refreshToken, !token.isEmpty else { return nil }
        let signIn = row.methods.first { !secondFactorMethods.contains($0.method) }?.method ?? "password"
        let aal: AssuranceLevel = row.aal == "aal2" || row.aal == "aal3" ? .aal2 : .aal1
        let updatedAt = row.updatedAt ?? row.createdAt
        let session = SessionRecord(
            id: row.id, userID: row.userID, createdAt: row.createdAt, updatedAt: updatedAt, refreshedAt: row.refreshedAt ?? updatedAt,
            notAfter: row.notAfter, authMethod: signIn, aal: aal, factorID: row.factorID.flatMap { factorIDs.contains($0) ? $0 : nil },
            verifiedMethods: row.methods.filter { secondFactorMethods.contains($0.method) })
        return (session, token)
    }

    /// `date` to the millisecond: PostgreSQL keeps microseconds, and a time read back from a
    /// store must equal the one a re-run reads again, so that an unchanged row stays unchanged.
    static func milliseconds(_ date: Date?) -> Date? {
        date.map { Date(timeIntervalSince1970: ($0.timeIntervalSince1970 * 1000).rounded() / 1000) }
    }

    /// A JSON object column: empty when the column is `NULL`.
    static func jsonObject(_ text: String?, _ column: String) throws(ImportRefusal) -> [String: JSONValue] {
        guard let text, !text.isEmpty, text != "null" else { return [:] }
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8)) else {
            throw ImportRefusal("\(column) is not a JSON object")
        }
        return object
    }
}
