-- GoTrue's `auth` schema as a Supabase project's database holds it: the tables and columns
-- `latchkey import supabase` reads, in the shapes of supabase/auth's migrations up to
-- 20260302000000 (add_passkeys), written from the column lists of its `migrations/` and
-- `internal/models/` with the types GoTrue gives them (enums for factor types, statuses and
-- assurance levels, `jsonb` metadata and WebAuthn credentials, `bytea` credential ids and public
-- keys, a `timestamp` without time zone for `sessions.refreshed_at`). Columns no import reads are
-- left out.
--
-- Used by the Supabase import tests (Tests/LatchkeyTestSupport/SupabaseAuthFixture.swift) and by
-- scripts/sample-supabase-database.sh (the README's "Moving from Supabase"). Statements end with
-- a semicolon at the end of a line.

CREATE SCHEMA auth;

CREATE TYPE auth.factor_type AS ENUM ('totp', 'webauthn', 'phone');

CREATE TYPE auth.factor_status AS ENUM ('unverified', 'verified');

CREATE TYPE auth.aal_level AS ENUM ('aal1', 'aal2', 'aal3');

CREATE TABLE auth.users (
    instance_id uuid, id uuid NOT NULL PRIMARY KEY, aud varchar(255), "role" varchar(255), email varchar(255),
    encrypted_password varchar(255), email_confirmed_at timestamptz, invited_at timestamptz,
    confirmation_sent_at timestamptz, recovery_sent_at timestamptz, last_sign_in_at timestamptz,
    raw_app_meta_data jsonb, raw_user_meta_data jsonb, is_super_admin bool, created_at timestamptz, updated_at timestamptz,
    phone text DEFAULT NULL UNIQUE, phone_confirmed_at timestamptz,
    confirmed_at timestamptz GENERATED ALWAYS AS (LEAST(email_confirmed_at, phone_confirmed_at)) STORED,
    banned_until timestamptz, is_sso_user boolean NOT NULL DEFAULT false, deleted_at timestamptz,
    is_anonymous boolean NOT NULL DEFAULT false
);

CREATE TABLE auth.identities (
    provider_id text NOT NULL, user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE, identity_data jsonb NOT NULL,
    provider text NOT NULL, last_sign_in_at timestamptz, created_at timestamptz, updated_at timestamptz,
    email text GENERATED ALWAYS AS (lower(identity_data ->> 'email')) STORED,
    id uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY, UNIQUE (provider_id, provider)
);

CREATE TABLE auth.sessions (
    id uuid NOT NULL PRIMARY KEY, user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
    created_at timestamptz, updated_at timestamptz, factor_id uuid, aal auth.aal_level, not_after timestamptz,
    refreshed_at timestamp, user_agent text, ip inet, tag text, refresh_token_hmac_key text, refresh_token_counter bigint
);

CREATE TABLE auth.refresh_tokens (
    instance_id uuid, id bigserial PRIMARY KEY, token varchar(255) UNIQUE, user_id varchar(255), revoked bool,
    created_at timestamptz, updated_at timestamptz, parent varchar(255),
    session_id uuid REFERENCES auth.sessions (id) ON DELETE CASCADE
);

CREATE TABLE auth.mfa_factors (
    id uuid NOT NULL PRIMARY KEY, user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE, friendly_name text,
    factor_type auth.factor_type NOT NULL, status auth.factor_status NOT NULL, created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL, secret text, phone text, last_challenged_at timestamptz UNIQUE,
    web_authn_credential jsonb NULL, web_authn_aaguid uuid NULL, last_webauthn_challenge_data jsonb
);

CREATE TABLE auth.webauthn_credentials (
    id uuid NOT NULL DEFAULT gen_random_uuid(), user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
    credential_id bytea NOT NULL, public_key bytea NOT NULL, attestation_type text NOT NULL DEFAULT '', aaguid uuid,
    sign_count bigint NOT NULL DEFAULT 0, transports jsonb NOT NULL DEFAULT '[]'::jsonb,
    backup_eligible boolean NOT NULL DEFAULT false, backed_up boolean NOT NULL DEFAULT false,
    friendly_name text NOT NULL DEFAULT '', created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(), last_used_at timestamptz,
    CONSTRAINT webauthn_credentials_pkey PRIMARY KEY (id)
);

CREATE UNIQUE INDEX webauthn_credentials_credential_id_key ON auth.webauthn_credentials (credential_id);

CREATE INDEX webauthn_credentials_user_id_idx ON auth.webauthn_credentials (user_id);

CREATE TABLE auth.mfa_amr_claims (
    session_id uuid NOT NULL REFERENCES auth.sessions (id) ON DELETE CASCADE, created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL, authentication_method text NOT NULL, id uuid NOT NULL PRIMARY KEY,
    UNIQUE (session_id, authentication_method)
);
