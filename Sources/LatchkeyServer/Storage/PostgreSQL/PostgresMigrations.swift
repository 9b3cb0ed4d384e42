import Foundation
import Logging
import PostgresNIO

/// The PostgreSQL schema: the same tables, columns and rules as ``SQLiteMigrations``, in
/// PostgreSQL's native types (UUID, TIMESTAMPTZ, JSONB).
///
/// Migrations run in one transaction that first takes a transaction-scoped advisory lock, so
/// several `latchkey serve` instances starting at once apply each migration exactly once: the
/// first applies them, the others wait for its commit and then find nothing left to do. DDL is
/// transactional in PostgreSQL, so a failed migration leaves no half-made schema behind.
enum PostgresMigrations {
    /// One schema change: its name (recorded in `latchkey_schema_migrations`) and its statements.
    struct Migration: Sendable {
        var version: String
        var statements: [String]
    }

    /// The advisory-lock key that serialises migrations ("Latchkey" in ASCII). Advisory locks
    /// are per database, so instances on different databases never wait for each other.
    static let lockKey: Int64 = 0x4C61_7463_686B_6579

    /// Every migration, oldest first. Never edit one that has shipped: add a new one.
    static let all: [Migration] = [
        Migration(
            version: "v1: users, sessions, refresh tokens, links, audit",
            statements: [
                """
                CREATE TABLE users (
                    id UUID PRIMARY KEY,
                    aud TEXT NOT NULL,
                    role TEXT NOT NULL,
                    email TEXT NOT NULL CONSTRAINT users_email_key UNIQUE,
                    password_hash TEXT,
                    email_confirmed_at TIMESTAMPTZ,
                    confirmation_sent_at TIMESTAMPTZ,
                    recovery_sent_at TIMESTAMPTZ,
                    new_email TEXT,
                    email_change_sent_at TIMESTAMPTZ,
                    last_sign_in_at TIMESTAMPTZ,
                    banned_until TIMESTAMPTZ,
                    app_metadata JSONB NOT NULL,
                    user_metadata JSONB NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL,
                    updated_at TIMESTAMPTZ NOT NULL
                )
                """,
                "CREATE INDEX users_created_at ON users (created_at, id)",
                """
                CREATE TABLE sessions (
                    id UUID PRIMARY KEY,
                    user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    created_at TIMESTAMPTZ NOT NULL,
                    updated_at TIMESTAMPTZ NOT NULL,
                    refreshed_at TIMESTAMPTZ NOT NULL,
                    not_after TIMESTAMPTZ,
                    auth_method TEXT NOT NULL
                )
                """,
                "CREATE INDEX sessions_user_id ON sessions (user_id)",
                // Tokens outlive their session (no cascade from sessions), so that a token of an ended
                // session answers session_not_found rather than refresh_token_not_found.
                """
                CREATE TABLE refresh_tokens (
                    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    token_hash TEXT NOT NULL UNIQUE,
                    session_id UUID NOT NULL,
                    user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    parent_hash TEXT,
                    revoked_at TIMESTAMPTZ,
                    created_at TIMESTAMPTZ NOT NULL
                )
                """,
                "CREATE INDEX refresh_tokens_session ON refresh_tokens (session_id, revoked_at)",
                "CREATE INDEX refresh_tokens_user ON refresh_tokens (user_id)",
                """
                CREATE TABLE one_time_tokens (
                    user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    token_hash TEXT NOT NULL UNIQUE,
                    relates_to TEXT NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL,
                    PRIMARY KEY (user_id, kind)
                )
                """,
                """
                CREATE TABLE audit_log (
                    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    id UUID NOT NULL UNIQUE,
                    action TEXT NOT NULL,
                    actor_id UUID,
                    actor_username TEXT,
                    log_type TEXT NOT NULL,
                    traits JSONB NOT NULL,
                    ip_address TEXT NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL
                )
                """,
            ]),
        Migration(
            version: "v2: anonymous and invited users, email codes, PKCE flows",
            statements: [
                "ALTER TABLE users ALTER COLUMN email DROP NOT NULL",
                "ALTER TABLE users ADD COLUMN is_anonymous BOOLEAN NOT NULL DEFAULT FALSE",
                "ALTER TABLE users ADD COLUMN invited_at TIMESTAMPTZ",
                "ALTER TABLE one_time_tokens ADD COLUMN code_hash TEXT",
                "CREATE INDEX one_time_tokens_code ON one_time_tokens (code_hash)",
                """
                CREATE TABLE flow_states (
                    id UUID PRIMARY KEY,
                    user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    authentication_method TEXT NOT NULL,
                    code_challenge TEXT NOT NULL,
                    code_challenge_method TEXT NOT NULL,
                    auth_code_hash TEXT UNIQUE,
                    auth_code_issued_at TIMESTAMPTZ,
                    created_at TIMESTAMPTZ NOT NULL
                )
                """,
                "CREATE INDEX flow_states_user ON flow_states (user_id, authentication_method, created_at)",
            ]),
        Migration(
            version: "v3: indexes for the cleanup task",
            statements: [
                "CREATE INDEX refresh_tokens_revoked_at ON refresh_tokens (revoked_at) WHERE revoked_at IS NOT NULL",
                "CREATE INDEX refresh_tokens_parent ON refresh_tokens (parent_hash)",
                "CREATE INDEX audit_log_created_at ON audit_log (created_at)",
                "CREATE INDEX one_time_tokens_created_at ON one_time_tokens (created_at)",
            ]),
        Migration(
            version: "v4: multi-factor authentication",
            statements: [
                "ALTER TABLE sessions ADD COLUMN aal TEXT NOT NULL DEFAULT 'aal1'",
                "ALTER TABLE sessions ADD COLUMN factor_id UUID",
                "ALTER TABLE sessions ADD COLUMN verified_methods JSONB NOT NULL DEFAULT '[]'",
                "CREATE INDEX sessions_factor ON sessions (factor_id) WHERE factor_id IS NOT NULL",
                """
                CREATE TABLE mfa_factors (
                    id UUID PRIMARY KEY,
                    user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    friendly_name TEXT NOT NULL,
                    factor_type TEXT NOT NULL,
                    status TEXT NOT NULL,
                    secret TEXT NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL,
                    updated_at TIMESTAMPTZ NOT NULL,
                    last_challenged_at TIMESTAMPTZ,
                    last_used_step BIGINT
                )
                """,
                "CREATE INDEX mfa_factors_user ON mfa_factors (user_id, created_at)",
                "CREATE INDEX mfa_factors_unverified ON mfa_factors (created_at) WHERE status = 'unverified'",
                """
                CREATE TABLE mfa_challenges (
                    id UUID PRIMARY KEY,
                    factor_id UUID NOT NULL REFERENCES mfa_factors(id) ON DELETE CASCADE,
                    created_at TIMESTAMPTZ NOT NULL,
                    verified_at TIMESTAMPTZ,
                    ip_address TEXT NOT NULL
                )
                """,
                "CREATE INDEX mfa_challenges_factor ON mfa_challenges (factor_id)",
                "CREATE INDEX mfa_challenges_created_at ON mfa_challenges (created_at)",
            ]),
        Migration(
            version: "v5: identities at external providers",
            statements: [
                """
                CREATE TABLE identities (
                    id UUID PRIMARY KEY,
                    provider_id TEXT NOT NULL,
                    user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    provider TEXT NOT NULL,
                    identity_data JSONB NOT NULL,
                    email TEXT,
                    last_sign_in_at TIMESTAMPTZ,
                    created_at TIMESTAMPTZ NOT NULL,
                    updated_at TIMESTAMPTZ NOT NULL,
                    UNIQUE (provider_id, provider)
                )
                """,
                "CREATE INDEX identities_user ON identities (user_id, created_at)",
                "CREATE INDEX identities_email ON identities (email) WHERE email IS NOT NULL",
            ]),
        Migration(
            version: "v6: browser sign-ins at providers",
            statements: [
                """
                CREATE TABLE provider_flows (
                    id UUID PRIMARY KEY,
                    provider TEXT NOT NULL,
                    redirect_to TEXT NOT NULL,
                    code_challenge TEXT,
                    code_challenge_method TEXT,
                    linking_user_id UUID,
                    provider_verifier TEXT,
                    nonce TEXT NOT NULL,
                    browser_binding_hash TEXT NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL
                )
                """,
                "CREATE INDEX provider_flows_created_at ON provider_flows (created_at)",
            ]),
        Migration(
            version: "v7: custom providers",
            statements: [
                "CREATE TABLE custom_providers (identifier TEXT PRIMARY KEY, document TEXT NOT NULL)"
            ]),
        Migration(
            version: "v8: rate limits shared by instances",
            statements: [
                // PostgresRateLimitCounter: one row per limited key (its kind and an HMAC, never
                // an address), the instants of its events within the window, and when the newest
                // leaves it. No SQLite table: a single instance counts in its process.
                """
                CREATE TABLE rate_limit_counters (
                    key TEXT PRIMARY KEY,
                    events TIMESTAMPTZ[] NOT NULL,
                    expires_at TIMESTAMPTZ NOT NULL,
                    admitted BOOLEAN NOT NULL
                )
                """,
                "CREATE INDEX rate_limit_counters_expires_at ON rate_limit_counters (expires_at)",
            ]),
        Migration(
            version: "v9: passkeys",
            statements: [
                // GoTrue's webauthn_credentials and webauthn_challenges; binary values as base64url text.
                """
                CREATE TABLE webauthn_credentials (
                    id UUID PRIMARY KEY,
                    user_id UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    credential_id TEXT NOT NULL UNIQUE,
                    public_key TEXT NOT NULL,
                    attestation_type TEXT NOT NULL,
                    aaguid UUID,
                    sign_count BIGINT NOT NULL,
                    transports JSONB NOT NULL,
                    backup_eligible BOOLEAN NOT NULL,
                    backed_up BOOLEAN NOT NULL,
                    friendly_name TEXT NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL,
                    updated_at TIMESTAMPTZ NOT NULL,
                    last_used_at TIMESTAMPTZ
                )
                """,
                "CREATE INDEX webauthn_credentials_user ON webauthn_credentials (user_id, created_at)",
                """
                CREATE TABLE webauthn_challenges (
                    id UUID PRIMARY KEY,
                    kind TEXT NOT NULL,
                    user_id UUID REFERENCES users (id) ON DELETE CASCADE,
                    challenge TEXT NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL,
                    expires_at TIMESTAMPTZ NOT NULL
                )
                """,
                "CREATE INDEX webauthn_challenges_expires_at ON webauthn_challenges (expires_at)",
                "CREATE INDEX webauthn_challenges_user ON webauthn_challenges (user_id) WHERE user_id IS NOT NULL",
            ]),
        Migration(
            version: "v10: WebAuthn as a second factor",
            statements: [
                // A factor's credential as JSON; a challenge's ceremony and random challenge (base64url).
                "ALTER TABLE mfa_factors ADD COLUMN web_authn_credential JSONB",
                "ALTER TABLE mfa_challenges ADD COLUMN web_authn_ceremony TEXT",
                "ALTER TABLE mfa_challenges ADD COLUMN web_authn_challenge TEXT",
            ]),
        Migration(
            version: "v11: phone numbers",
            statements: [
                // GoTrue's phone columns; the codes sent by SMS are one_time_tokens rows, hashed like email codes.
                "ALTER TABLE users ADD COLUMN phone TEXT CONSTRAINT users_phone_key UNIQUE",
                "ALTER TABLE users ADD COLUMN phone_confirmed_at TIMESTAMPTZ",
                "ALTER TABLE users ADD COLUMN phone_change TEXT",
                "ALTER TABLE users ADD COLUMN phone_change_sent_at TIMESTAMPTZ",
            ]),
        Migration(
            version: "v12: phone as a second factor",
            statements: [
                // A phone factor's number; a phone challenge's code, hashed and bound to the challenge.
                "ALTER TABLE mfa_factors ADD COLUMN phone TEXT",
                "ALTER TABLE mfa_challenges ADD COLUMN code_hash TEXT",
            ]),
        Migration(
            version: "v12: provider refresh tokens",
            statements: [
                // Apple's refresh tokens, sealed, kept to revoke them when the account is deleted.
                """
                CREATE TABLE provider_refresh_tokens (
                    provider TEXT NOT NULL,
                    provider_id TEXT NOT NULL,
                    user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    client_id TEXT NOT NULL,
                    sealed_token TEXT NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL,
                    PRIMARY KEY (provider, provider_id)
                )
                """,
                "CREATE INDEX provider_refresh_tokens_user ON provider_refresh_tokens (user_id)",
            ]),
        Migration(
            version: "v13: OAuth server clients",
            statements: [
                // The OAuth server's clients: one JSON document each; a deleted client stays, unusable.
                "CREATE TABLE oauth_clients (id UUID PRIMARY KEY, created_at TIMESTAMPTZ NOT NULL, deleted BOOLEAN NOT NULL, document TEXT NOT NULL)"
            ]),
        Migration(
            version: "v14: OAuth server sign-ins",
            statements: [
                // Authorizations (one JSON document each, found by id or by the hash of their code),
                // each user's consent per client, and the client and scopes of a session granted to one.
                """
                CREATE TABLE oauth_authorizations (id TEXT PRIMARY KEY, code_hash TEXT UNIQUE, status TEXT NOT NULL, user_id UUID,
                    expires_at TIMESTAMPTZ NOT NULL, document TEXT NOT NULL)
                """,
                "CREATE INDEX oauth_authorizations_expires_at ON oauth_authorizations(expires_at)",
                """
                CREATE TABLE oauth_consents (user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE, client_id UUID NOT NULL,
                    scopes TEXT NOT NULL, granted_at TIMESTAMPTZ NOT NULL, revoked_at TIMESTAMPTZ, PRIMARY KEY (user_id, client_id))
                """,
                "ALTER TABLE sessions ADD COLUMN oauth_client_id UUID",
                "ALTER TABLE sessions ADD COLUMN scopes TEXT",
            ]),
    ]

    /// Applies the migrations `connection`'s database lacks; returns the versions it applied.
    @discardableResult
    static func migrate(_ connection: PostgresConnection, migrations: [Migration] = all, logger: Logger) async throws -> [String] {
        try await connection.query("BEGIN", logger: logger)
        do {
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS latchkey_schema_migrations (
                    version TEXT PRIMARY KEY,
                    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
                )
                """, logger: logger)
            var applied = Set<String>()
            for try await version in try await connection.query("SELECT version FROM latchkey_schema_migrations", logger: logger)
                .decode(String.self)
            {
                applied.insert(version)
            }
            var newlyApplied: [String] = []
            for migration in migrations where !applied.contains(migration.version) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO latchkey_schema_migrations (version) VALUES (\(migration.version))", logger: logger)
                newlyApplied.append(migration.version)
            }
            try await connection.query("COMMIT", logger: logger)
            return newlyApplied
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }
}
