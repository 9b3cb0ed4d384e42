import Foundation
import Logging
import PostgresNIO

/// A Supabase-shaped `auth` schema on the tests' PostgreSQL (`LATCHKEY_TEST_POSTGRES_URL`, which
/// scripts/test.sh sets): a fresh database per test, GoTrue's tables created by ``schema``, rows
/// inserted with plain SQL, the database dropped afterwards.
package enum SupabaseAuthFixture {
    package static var adminURL: String? {
        ProcessInfo.processInfo.environment["LATCHKEY_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    package static var isAvailable: Bool { adminURL != nil }

    package static let skipReason =
        "LATCHKEY_TEST_POSTGRES_URL is not set: the Supabase import tests need PostgreSQL (scripts/test.sh starts a throwaway server)"

    /// The tables and columns an import reads, in the shapes of GoTrue's migrations up to
    /// 20260302000000 (add_passkeys): written here from the column lists of supabase/auth's
    /// `migrations/` and `internal/models/`, with the types GoTrue gives them (enums for factor
    /// types, statuses and assurance levels, `jsonb` metadata and WebAuthn credentials, `bytea`
    /// credential ids and public keys, a `timestamp` without time zone for
    /// `sessions.refreshed_at`). Columns no import reads are left out.
    package static let schema: [String] = [
        "CREATE SCHEMA auth",
        "CREATE TYPE auth.factor_type AS ENUM ('totp', 'webauthn', 'phone')",
        "CREATE TYPE auth.factor_status AS ENUM ('unverified', 'verified')",
        "CREATE TYPE auth.aal_level AS ENUM ('aal1', 'aal2', 'aal3')",
        """
        CREATE TABLE auth.users (
            instance_id uuid, id uuid NOT NULL PRIMARY KEY, aud varchar(255), "role" varchar(255), email varchar(255),
            encrypted_password varchar(255), email_confirmed_at timestamptz, invited_at timestamptz,
            confirmation_sent_at timestamptz, recovery_sent_at timestamptz, last_sign_in_at timestamptz,
            raw_app_meta_data jsonb, raw_user_meta_data jsonb, is_super_admin bool, created_at timestamptz, updated_at timestamptz,
            phone text DEFAULT NULL UNIQUE, phone_confirmed_at timestamptz,
            confirmed_at timestamptz GENERATED ALWAYS AS (LEAST(email_confirmed_at, phone_confirmed_at)) STORED,
            banned_until timestamptz, is_sso_user boolean NOT NULL DEFAULT false, deleted_at timestamptz,
            is_anonymous boolean NOT NULL DEFAULT false
        )
        """,
        """
        CREATE TABLE auth.identities (
            provider_id text NOT NULL, user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE, identity_data jsonb NOT NULL,
            provider text NOT NULL, last_sign_in_at timestamptz, created_at timestamptz, updated_at timestamptz,
            email text GENERATED ALWAYS AS (lower(identity_data ->> 'email')) STORED,
            id uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY, UNIQUE (provider_id, provider)
        )
        """,
        """
        CREATE TABLE auth.sessions (
            id uuid NOT NULL PRIMARY KEY, user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
            created_at timestamptz, updated_at timestamptz, factor_id uuid, aal auth.aal_level, not_after timestamptz,
            refreshed_at timestamp, user_agent text, ip inet, tag text, refresh_token_hmac_key text, refresh_token_counter bigint
        )
        """,
        """
        CREATE TABLE auth.refresh_tokens (
            instance_id uuid, id bigserial PRIMARY KEY, token varchar(255) UNIQUE, user_id varchar(255), revoked bool,
            created_at timestamptz, updated_at timestamptz, parent varchar(255),
            session_id uuid REFERENCES auth.sessions (id) ON DELETE CASCADE
        )
        """,
        """
        CREATE TABLE auth.mfa_factors (
            id uuid NOT NULL PRIMARY KEY, user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE, friendly_name text,
            factor_type auth.factor_type NOT NULL, status auth.factor_status NOT NULL, created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL, secret text, phone text, last_challenged_at timestamptz UNIQUE,
            web_authn_credential jsonb NULL, web_authn_aaguid uuid NULL, last_webauthn_challenge_data jsonb
        )
        """,
        """
        CREATE TABLE auth.webauthn_credentials (
            id uuid NOT NULL DEFAULT gen_random_uuid(), user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
            credential_id bytea NOT NULL, public_key bytea NOT NULL, attestation_type text NOT NULL DEFAULT '', aaguid uuid,
            sign_count bigint NOT NULL DEFAULT 0, transports jsonb NOT NULL DEFAULT '[]'::jsonb,
            backup_eligible boolean NOT NULL DEFAULT false, backed_up boolean NOT NULL DEFAULT false,
            friendly_name text NOT NULL DEFAULT '', created_at timestamptz NOT NULL DEFAULT now(),
            updated_at timestamptz NOT NULL DEFAULT now(), last_used_at timestamptz,
            CONSTRAINT webauthn_credentials_pkey PRIMARY KEY (id)
        )
        """,
        "CREATE UNIQUE INDEX webauthn_credentials_credential_id_key ON auth.webauthn_credentials (credential_id)",
        "CREATE INDEX webauthn_credentials_user_id_idx ON auth.webauthn_credentials (user_id)",
        """
        CREATE TABLE auth.mfa_amr_claims (
            session_id uuid NOT NULL REFERENCES auth.sessions (id) ON DELETE CASCADE, created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL, authentication_method text NOT NULL, id uuid NOT NULL PRIMARY KEY,
            UNIQUE (session_id, authentication_method)
        )
        """,
    ]

    /// Runs `body` with the URL of a new database holding ``schema``; drops the database afterwards.
    package static func with<T>(_ body: (String) async throws -> T) async throws -> T {
        guard let adminURL else { throw PythonPeer.PeerFailure(description: "LATCHKEY_TEST_POSTGRES_URL is not set") }
        let name = "supabase_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await execute(["CREATE DATABASE \(name)"], on: adminURL)
        var components = URLComponents(string: adminURL)!
        components.path = "/" + name
        let url = components.string!
        do {
            try await execute(schema, on: url)
            let result = try await body(url)
            try await execute(["DROP DATABASE IF EXISTS \(name) WITH (FORCE)"], on: adminURL)
            return result
        } catch {
            try? await execute(["DROP DATABASE IF EXISTS \(name) WITH (FORCE)"], on: adminURL)
            throw error
        }
    }

    /// Runs each statement, in order, on one short-lived connection to `url` (a trusting test
    /// cluster: the URL's password, if any, is used as is, without TLS).
    package static func execute(_ statements: [String], on url: String) async throws {
        let components = URLComponents(string: url)!
        let configuration = PostgresConnection.Configuration(
            host: components.host ?? "127.0.0.1", port: components.port ?? 5432, username: components.user ?? "postgres",
            password: components.password, database: String(components.path.dropFirst()), tls: .disable)
        let logger = Logger(label: "test.supabase", factory: { _ in SwiftLogNoOpLogHandler() })
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        do {
            for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// `bytes` as a SQL `bytea` literal (`'\x…'::bytea`), as GoTrue's driver writes a Go `[]byte`.
    package static func bytea(_ bytes: [UInt8]) -> String {
        "'\\x" + bytes.map { String(format: "%02x", $0) }.joined() + "'::bytea"
    }

    /// `text` as a SQL string literal (`NULL` for `nil`).
    package static func literal(_ text: String?) -> String {
        guard let text else { return "NULL" }
        return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
