import GRDB

/// The SQLite schema, as GRDB migrations: applied in order, each exactly once.
enum SQLiteMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: users, sessions, refresh tokens, links, audit") { db in
            try db.execute(
                sql: """
                    CREATE TABLE users (
                        id TEXT PRIMARY KEY NOT NULL,
                        aud TEXT NOT NULL,
                        role TEXT NOT NULL,
                        email TEXT NOT NULL UNIQUE,
                        password_hash TEXT,
                        email_confirmed_at DOUBLE,
                        confirmation_sent_at DOUBLE,
                        recovery_sent_at DOUBLE,
                        new_email TEXT,
                        email_change_sent_at DOUBLE,
                        last_sign_in_at DOUBLE,
                        banned_until DOUBLE,
                        app_metadata TEXT NOT NULL,
                        user_metadata TEXT NOT NULL,
                        created_at DOUBLE NOT NULL,
                        updated_at DOUBLE NOT NULL
                    );
                    CREATE TABLE sessions (
                        id TEXT PRIMARY KEY NOT NULL,
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        created_at DOUBLE NOT NULL,
                        updated_at DOUBLE NOT NULL,
                        refreshed_at DOUBLE NOT NULL,
                        not_after DOUBLE,
                        auth_method TEXT NOT NULL
                    );
                    CREATE INDEX sessions_user_id ON sessions(user_id);
                    -- Tokens outlive their session (no cascade from sessions), so that a token of an
                    -- ended session answers session_not_found rather than refresh_token_not_found.
                    CREATE TABLE refresh_tokens (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        token_hash TEXT NOT NULL UNIQUE,
                        session_id TEXT NOT NULL,
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        parent_hash TEXT,
                        revoked_at DOUBLE,
                        created_at DOUBLE NOT NULL
                    );
                    CREATE INDEX refresh_tokens_session ON refresh_tokens(session_id, revoked_at);
                    CREATE INDEX refresh_tokens_user ON refresh_tokens(user_id);
                    CREATE TABLE one_time_tokens (
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        kind TEXT NOT NULL,
                        token_hash TEXT NOT NULL UNIQUE,
                        relates_to TEXT NOT NULL,
                        created_at DOUBLE NOT NULL,
                        PRIMARY KEY (user_id, kind)
                    );
                    CREATE TABLE audit_log (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        id TEXT NOT NULL UNIQUE,
                        action TEXT NOT NULL,
                        actor_id TEXT,
                        actor_username TEXT,
                        log_type TEXT NOT NULL,
                        traits TEXT NOT NULL,
                        ip_address TEXT NOT NULL,
                        created_at DOUBLE NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v2: anonymous and invited users, email codes, PKCE flows") { db in
            // SQLite cannot drop NOT NULL from a column: the users table is rebuilt (GRDB runs
            // migrations with foreign keys off and checks them before committing).
            try db.execute(
                sql: """
                    CREATE TABLE users_v2 (
                        id TEXT PRIMARY KEY NOT NULL,
                        aud TEXT NOT NULL,
                        role TEXT NOT NULL,
                        email TEXT UNIQUE,
                        password_hash TEXT,
                        email_confirmed_at DOUBLE,
                        confirmation_sent_at DOUBLE,
                        recovery_sent_at DOUBLE,
                        new_email TEXT,
                        email_change_sent_at DOUBLE,
                        last_sign_in_at DOUBLE,
                        banned_until DOUBLE,
                        app_metadata TEXT NOT NULL,
                        user_metadata TEXT NOT NULL,
                        created_at DOUBLE NOT NULL,
                        updated_at DOUBLE NOT NULL,
                        is_anonymous INTEGER NOT NULL DEFAULT 0,
                        invited_at DOUBLE
                    );
                    INSERT INTO users_v2 (id, aud, role, email, password_hash, email_confirmed_at, confirmation_sent_at,
                        recovery_sent_at, new_email, email_change_sent_at, last_sign_in_at, banned_until, app_metadata,
                        user_metadata, created_at, updated_at)
                    SELECT id, aud, role, email, password_hash, email_confirmed_at, confirmation_sent_at,
                        recovery_sent_at, new_email, email_change_sent_at, last_sign_in_at, banned_until, app_metadata,
                        user_metadata, created_at, updated_at FROM users;
                    DROP TABLE users;
                    ALTER TABLE users_v2 RENAME TO users;
                    ALTER TABLE one_time_tokens ADD COLUMN code_hash TEXT;
                    CREATE INDEX one_time_tokens_code ON one_time_tokens(code_hash);
                    CREATE TABLE flow_states (
                        id TEXT PRIMARY KEY NOT NULL,
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        authentication_method TEXT NOT NULL,
                        code_challenge TEXT NOT NULL,
                        code_challenge_method TEXT NOT NULL,
                        auth_code_hash TEXT UNIQUE,
                        auth_code_issued_at DOUBLE,
                        created_at DOUBLE NOT NULL
                    );
                    CREATE INDEX flow_states_user ON flow_states(user_id, authentication_method, created_at);
                    """)
        }
        migrator.registerMigration("v3: indexes for the cleanup task") { db in
            // Finding spent tokens by age, a token's children (the lost-response rule keeps the
            // parent of an active token), and old audit entries, without scanning the tables.
            try db.execute(
                sql: """
                    CREATE INDEX refresh_tokens_revoked_at ON refresh_tokens(revoked_at) WHERE revoked_at IS NOT NULL;
                    CREATE INDEX refresh_tokens_parent ON refresh_tokens(parent_hash);
                    CREATE INDEX audit_log_created_at ON audit_log(created_at);
                    CREATE INDEX one_time_tokens_created_at ON one_time_tokens(created_at);
                    """)
        }
        migrator.registerMigration("v4: multi-factor authentication") { db in
            // Sessions carry their assurance level (aal1/aal2), the factor that raised it and the
            // methods verified since sign-in (JSON); factors keep their secret sealed, never plain.
            try db.execute(
                sql: """
                    ALTER TABLE sessions ADD COLUMN aal TEXT NOT NULL DEFAULT 'aal1';
                    ALTER TABLE sessions ADD COLUMN factor_id TEXT;
                    ALTER TABLE sessions ADD COLUMN verified_methods TEXT NOT NULL DEFAULT '[]';
                    CREATE INDEX sessions_factor ON sessions(factor_id) WHERE factor_id IS NOT NULL;
                    CREATE TABLE mfa_factors (
                        id TEXT PRIMARY KEY NOT NULL,
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        friendly_name TEXT NOT NULL,
                        factor_type TEXT NOT NULL,
                        status TEXT NOT NULL,
                        secret TEXT NOT NULL,
                        created_at DOUBLE NOT NULL,
                        updated_at DOUBLE NOT NULL,
                        last_challenged_at DOUBLE,
                        last_used_step INTEGER
                    );
                    CREATE INDEX mfa_factors_user ON mfa_factors(user_id, created_at);
                    CREATE INDEX mfa_factors_unverified ON mfa_factors(created_at) WHERE status = 'unverified';
                    CREATE TABLE mfa_challenges (
                        id TEXT PRIMARY KEY NOT NULL,
                        factor_id TEXT NOT NULL REFERENCES mfa_factors(id) ON DELETE CASCADE,
                        created_at DOUBLE NOT NULL,
                        verified_at DOUBLE,
                        ip_address TEXT NOT NULL
                    );
                    CREATE INDEX mfa_challenges_factor ON mfa_challenges(factor_id);
                    CREATE INDEX mfa_challenges_created_at ON mfa_challenges(created_at);
                    """)
        }
        migrator.registerMigration("v5: identities at external providers") { db in
            // One user per (provider, subject); an identity goes with its user.
            try db.execute(
                sql: """
                    CREATE TABLE identities (
                        id TEXT PRIMARY KEY NOT NULL,
                        provider_id TEXT NOT NULL,
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        provider TEXT NOT NULL,
                        identity_data TEXT NOT NULL,
                        email TEXT,
                        last_sign_in_at DOUBLE,
                        created_at DOUBLE NOT NULL,
                        updated_at DOUBLE NOT NULL,
                        UNIQUE (provider_id, provider)
                    );
                    CREATE INDEX identities_user ON identities(user_id, created_at);
                    CREATE INDEX identities_email ON identities(email) WHERE email IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v6: browser sign-ins at providers") { db in
            try db.execute(
                sql: """
                    CREATE TABLE provider_flows (
                        id TEXT PRIMARY KEY NOT NULL,
                        provider TEXT NOT NULL,
                        redirect_to TEXT NOT NULL,
                        code_challenge TEXT,
                        code_challenge_method TEXT,
                        linking_user_id TEXT,
                        provider_verifier TEXT,
                        nonce TEXT NOT NULL,
                        browser_binding_hash TEXT NOT NULL,
                        created_at DOUBLE NOT NULL
                    );
                    CREATE INDEX provider_flows_created_at ON provider_flows(created_at);
                    """)
        }
        migrator.registerMigration("v7: custom providers") { db in
            try db.execute(
                sql: """
                    CREATE TABLE custom_providers (
                        identifier TEXT PRIMARY KEY NOT NULL,
                        document TEXT NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v8: passkeys") { db in
            // GoTrue's webauthn_credentials and webauthn_challenges; binary values as base64url text.
            try db.execute(
                sql: """
                    CREATE TABLE webauthn_credentials (
                        id TEXT PRIMARY KEY NOT NULL,
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        credential_id TEXT NOT NULL UNIQUE,
                        public_key TEXT NOT NULL,
                        attestation_type TEXT NOT NULL,
                        aaguid TEXT,
                        sign_count INTEGER NOT NULL,
                        transports TEXT NOT NULL,
                        backup_eligible BOOLEAN NOT NULL,
                        backed_up BOOLEAN NOT NULL,
                        friendly_name TEXT NOT NULL,
                        created_at DOUBLE NOT NULL,
                        updated_at DOUBLE NOT NULL,
                        last_used_at DOUBLE
                    );
                    CREATE INDEX webauthn_credentials_user ON webauthn_credentials(user_id, created_at);
                    CREATE TABLE webauthn_challenges (
                        id TEXT PRIMARY KEY NOT NULL,
                        kind TEXT NOT NULL,
                        user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
                        challenge TEXT NOT NULL,
                        created_at DOUBLE NOT NULL,
                        expires_at DOUBLE NOT NULL
                    );
                    CREATE INDEX webauthn_challenges_expires_at ON webauthn_challenges(expires_at);
                    CREATE INDEX webauthn_challenges_user ON webauthn_challenges(user_id) WHERE user_id IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v9: WebAuthn as a second factor") { db in
            // A factor's credential as JSON; a challenge's ceremony and random challenge (base64url).
            try db.execute(
                sql: """
                    ALTER TABLE mfa_factors ADD COLUMN web_authn_credential TEXT;
                    ALTER TABLE mfa_challenges ADD COLUMN web_authn_ceremony TEXT;
                    ALTER TABLE mfa_challenges ADD COLUMN web_authn_challenge TEXT;
                    """)
        }
        migrator.registerMigration("v10: phone numbers") { db in
            // GoTrue's phone columns; the codes sent by SMS are one_time_tokens rows, hashed like email codes.
            try db.execute(
                sql: """
                    ALTER TABLE users ADD COLUMN phone TEXT;
                    ALTER TABLE users ADD COLUMN phone_confirmed_at DOUBLE;
                    ALTER TABLE users ADD COLUMN phone_change TEXT;
                    ALTER TABLE users ADD COLUMN phone_change_sent_at DOUBLE;
                    CREATE UNIQUE INDEX users_phone ON users(phone);
                    """)
        }
        migrator.registerMigration("v11: phone as a second factor") { db in
            // A phone factor's number; a phone challenge's code, hashed and bound to the challenge.
            try db.execute(
                sql: """
                    ALTER TABLE mfa_factors ADD COLUMN phone TEXT;
                    ALTER TABLE mfa_challenges ADD COLUMN code_hash TEXT;
                    """)
        }
        migrator.registerMigration("v12: provider refresh tokens") { db in
            // Apple's refresh tokens, sealed, kept to revoke them when the account is deleted.
            try db.execute(
                sql: """
                    CREATE TABLE provider_refresh_tokens (
                        provider TEXT NOT NULL,
                        provider_id TEXT NOT NULL,
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        client_id TEXT NOT NULL,
                        sealed_token TEXT NOT NULL,
                        created_at DOUBLE NOT NULL,
                        PRIMARY KEY (provider, provider_id)
                    );
                    CREATE INDEX provider_refresh_tokens_user ON provider_refresh_tokens(user_id);
                    """)
        }
        migrator.registerMigration("v13: OAuth server clients") { db in
            // The OAuth server's clients: one JSON document each; a deleted client stays, unusable.
            try db.execute(
                sql: """
                    CREATE TABLE oauth_clients (
                        id TEXT PRIMARY KEY NOT NULL,
                        created_at DOUBLE NOT NULL,
                        deleted BOOLEAN NOT NULL,
                        document TEXT NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v14: OAuth server sign-ins") { db in
            // Authorizations (one JSON document each, found by id or by the hash of their code),
            // each user's consent per client, and the client and scopes of a session granted to one.
            try db.execute(
                sql: """
                    CREATE TABLE oauth_authorizations (
                        id TEXT PRIMARY KEY NOT NULL,
                        code_hash TEXT UNIQUE,
                        status TEXT NOT NULL,
                        user_id TEXT,
                        expires_at DOUBLE NOT NULL,
                        document TEXT NOT NULL
                    );
                    CREATE INDEX oauth_authorizations_expires_at ON oauth_authorizations(expires_at);
                    CREATE TABLE oauth_consents (
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        client_id TEXT NOT NULL,
                        scopes TEXT NOT NULL,
                        granted_at DOUBLE NOT NULL,
                        revoked_at DOUBLE,
                        PRIMARY KEY (user_id, client_id)
                    );
                    ALTER TABLE sessions ADD COLUMN oauth_client_id TEXT;
                    ALTER TABLE sessions ADD COLUMN scopes TEXT;
                    """)
        }
        return migrator
    }
}
