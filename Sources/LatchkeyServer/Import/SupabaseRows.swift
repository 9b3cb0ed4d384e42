import Foundation

/// One row of GoTrue's `auth.users`, as ``SupabaseAuthSchema`` reads it: the columns an import
/// keeps. Columns an older schema lacks read as `nil` (`is_anonymous` as false).
struct SupabaseUserRow: Sendable, Equatable {
    var id: UUID
    var email: String?
    /// The number in E.164 digits, as GoTrue keeps it (no `+`).
    var phone: String?
    var phoneConfirmedAt: Date?
    /// `encrypted_password`: bcrypt for GoTrue's own users; GoTrue's admin API also stores
    /// imported Firebase scrypt and argon2 hashes here. Empty for users without a password.
    var encryptedPassword: String?
    /// `email_confirmed_at` (`confirmed_at` in schemas before 2021-07).
    var emailConfirmedAt: Date?
    var bannedUntil: Date?
    var lastSignInAt: Date?
    var createdAt: Date?
    /// `raw_user_meta_data` and `raw_app_meta_data`, as JSON text.
    var rawUserMetaData: String?
    var rawAppMetaData: String?
    var isAnonymous: Bool
    /// Set when GoTrue soft-deleted the user.
    var deletedAt: Date?

    init(
        id: UUID, email: String? = nil, phone: String? = nil, encryptedPassword: String? = nil, emailConfirmedAt: Date? = nil,
        bannedUntil: Date? = nil, lastSignInAt: Date? = nil, createdAt: Date? = nil, rawUserMetaData: String? = nil,
        rawAppMetaData: String? = nil, isAnonymous: Bool = false, deletedAt: Date? = nil, phoneConfirmedAt: Date? = nil
    ) {
        self.id = id
        self.email = email
        self.phone = phone
        self.phoneConfirmedAt = phoneConfirmedAt
        self.encryptedPassword = encryptedPassword
        self.emailConfirmedAt = emailConfirmedAt
        self.bannedUntil = bannedUntil
        self.lastSignInAt = lastSignInAt
        self.createdAt = createdAt
        self.rawUserMetaData = rawUserMetaData
        self.rawAppMetaData = rawAppMetaData
        self.isAnonymous = isAnonymous
        self.deletedAt = deletedAt
    }
}

/// One row of `auth.identities`: the provider and the provider's id of the person
/// (`provider_id`; the `id` column before GoTrue's 2023-11 migration).
struct SupabaseIdentityRow: Sendable, Equatable {
    var userID: UUID
    var provider: String
    var providerID: String
    /// `identity_data`, as JSON text.
    var identityData: String?
    var lastSignInAt: Date?
    var createdAt: Date?
    var updatedAt: Date?

    init(
        userID: UUID, provider: String, providerID: String, identityData: String?, lastSignInAt: Date? = nil, createdAt: Date? = nil,
        updatedAt: Date? = nil
    ) {
        self.userID = userID
        self.provider = provider
        self.providerID = providerID
        self.identityData = identityData
        self.lastSignInAt = lastSignInAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// One row of `auth.mfa_factors`.
struct SupabaseFactorRow: Sendable, Equatable {
    var id: UUID
    var userID: UUID
    var friendlyName: String?
    /// `totp`, `phone` or `webauthn`.
    var factorType: String
    /// `unverified` or `verified`.
    var status: String
    /// The TOTP secret in base32, or, when GoTrue's database encryption was on, a JSON object
    /// (`key_id`, `alg`, `nonce`, `data`).
    var secret: String?
    var createdAt: Date
    var updatedAt: Date
    /// `web_authn_credential`, as JSON text: a WebAuthn factor's credential as go-webauthn's
    /// `webauthn.Credential` encodes it (GoTrue's `MFAWebAuthnCredential`). `NULL` for other
    /// factors, for a WebAuthn factor whose registration was not finished, and in schemas
    /// before GoTrue's 2024-10 migration.
    var webAuthnCredential: String?
    /// `web_authn_aaguid`: the authenticator model GoTrue read from the registration.
    var webAuthnAAGUID: UUID?
    /// `phone`: a phone factor's number (GoTrue's 2024-06 migration); `NULL` for other factors.
    var phone: String?

    init(
        id: UUID, userID: UUID, friendlyName: String?, factorType: String, status: String, secret: String?, createdAt: Date, updatedAt: Date,
        webAuthnCredential: String? = nil, webAuthnAAGUID: UUID? = nil, phone: String? = nil
    ) {
        self.phone = phone
        self.id = id
        self.userID = userID
        self.friendlyName = friendlyName
        self.factorType = factorType
        self.status = status
        self.secret = secret
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.webAuthnCredential = webAuthnCredential
        self.webAuthnAAGUID = webAuthnAAGUID
    }
}

/// One row of `auth.webauthn_credentials`: a passkey (GoTrue's `WebAuthnCredential`, since its
/// 2026-03 migration).
struct SupabasePasskeyRow: Sendable, Equatable {
    var id: UUID
    var userID: UUID
    /// `credential_id` and `public_key` (`bytea`): the credential id and the COSE_Key bytes the
    /// authenticator gave at registration.
    var credentialID: [UInt8]
    var publicKey: [UInt8]
    /// `attestation_type`: what go-webauthn recorded (the attestation format, such as `none` or `packed`).
    var attestationType: String?
    var aaguid: UUID?
    /// `sign_count` (`bigint`; GoTrue keeps a `uint32`).
    var signCount: Int64
    /// `transports`, as JSON text (an array of strings).
    var transports: String?
    var backupEligible: Bool
    var backedUp: Bool
    var friendlyName: String?
    var createdAt: Date
    var updatedAt: Date
    var lastUsedAt: Date?

    init(
        id: UUID, userID: UUID, credentialID: [UInt8], publicKey: [UInt8], attestationType: String? = "none", aaguid: UUID? = nil,
        signCount: Int64 = 0, transports: String? = "[]", backupEligible: Bool = false, backedUp: Bool = false, friendlyName: String? = nil,
        createdAt: Date, updatedAt: Date, lastUsedAt: Date? = nil
    ) {
        self.id = id
        self.userID = userID
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.attestationType = attestationType
        self.aaguid = aaguid
        self.signCount = signCount
        self.transports = transports
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.friendlyName = friendlyName
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastUsedAt = lastUsedAt
    }
}

/// One row of `auth.sessions` with what an import needs from the tables around it: the newest
/// refresh token of `auth.refresh_tokens` not revoked, and the methods of `auth.mfa_amr_claims`.
struct SupabaseSessionRow: Sendable, Equatable {
    var id: UUID
    var userID: UUID
    var createdAt: Date
    var updatedAt: Date?
    var refreshedAt: Date?
    var notAfter: Date?
    /// `aal1`, `aal2` or `aal3`.
    var aal: String?
    var factorID: UUID?
    /// Whether `refresh_token_hmac_key` is set: GoTrue then issues signed refresh tokens that
    /// `auth.refresh_tokens` does not hold.
    var signsRefreshTokens: Bool
    /// The session's live refresh token, `nil` when every token was revoked.
    var refreshToken: String?
    /// `mfa_amr_claims`: each method with when it was last verified in the session, oldest first.
    var methods: [AuthenticationMethodReference]

    init(
        id: UUID, userID: UUID, createdAt: Date, updatedAt: Date? = nil, refreshedAt: Date? = nil, notAfter: Date? = nil, aal: String? = nil,
        factorID: UUID? = nil, signsRefreshTokens: Bool = false, refreshToken: String?, methods: [AuthenticationMethodReference] = []
    ) {
        self.id = id
        self.userID = userID
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.refreshedAt = refreshedAt
        self.notAfter = notAfter
        self.aal = aal
        self.factorID = factorID
        self.signsRefreshTokens = signsRefreshTokens
        self.refreshToken = refreshToken
        self.methods = methods
    }
}

/// One user of the source with every row about them an import reads.
package struct SupabaseAccountRows: Sendable, Equatable {
    var user: SupabaseUserRow
    var identities: [SupabaseIdentityRow]
    var factors: [SupabaseFactorRow]
    var passkeys: [SupabasePasskeyRow]
    var sessions: [SupabaseSessionRow]

    init(
        user: SupabaseUserRow, identities: [SupabaseIdentityRow] = [], factors: [SupabaseFactorRow] = [], passkeys: [SupabasePasskeyRow] = [],
        sessions: [SupabaseSessionRow] = []
    ) {
        self.user = user
        self.identities = identities
        self.factors = factors
        self.passkeys = passkeys
        self.sessions = sessions
    }
}
