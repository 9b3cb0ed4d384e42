#!/usr/bin/env bash
# A stand-in for a Supabase project's database, to try `latchkey import supabase` without one
# (README, "Moving from Supabase"):
#
#   scripts/sample-supabase-database.sh start   prints the URL of a new throwaway PostgreSQL
#       database holding GoTrue's auth schema (scripts/supabase-auth-schema.sql) with one user,
#       hedy@example.com: confirmed, with the password "old supabase password" (a bcrypt hash made
#       by PostgreSQL's pgcrypto, as Supabase's own seed scripts make them), an email identity and
#       a live session whose refresh token is `SELECT token FROM auth.refresh_tokens`.
#   scripts/sample-supabase-database.sh stop    stops it and removes its files.
#
# The cluster is the tests' throwaway kind (scripts/postgres-test-cluster.sh): loopback only, no
# password, its data in /tmp. A second `start` replaces the first. Needs PostgreSQL's server
# binaries (Debian: apt-get install postgresql).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
stop_file=/tmp/latchkey-sample-supabase.stop

stop() {
    if [ -f "$stop_file" ]; then
        bash "$stop_file" || true
        rm -f "$stop_file"
    fi
}

case "${1:-}" in
start)
    stop
    cleanup_steps=()
    # shellcheck source=/dev/null
    source "$here/postgres-test-cluster.sh"
    if [ -z "${LATCHKEY_TEST_POSTGRES_URL:-}" ]; then
        echo "sample-supabase-database: PostgreSQL could not be started (see the line above)" >&2
        exit 1
    fi
    printf '%s\n' "${cleanup_steps[@]}" > "$stop_file"
    url="${LATCHKEY_TEST_POSTGRES_URL%/*}/supabase"
    psql=("$LATCHKEY_TEST_POSTGRES_BIN/psql" -q -v ON_ERROR_STOP=1)
    "${psql[@]}" "$LATCHKEY_TEST_POSTGRES_URL" -c 'CREATE DATABASE supabase' >/dev/null
    "${psql[@]}" "$url" -f "$here/supabase-auth-schema.sql" >/dev/null
    "${psql[@]}" "$url" >/dev/null <<'SQL'
CREATE EXTENSION pgcrypto;
INSERT INTO auth.users (id, aud, role, email, encrypted_password, email_confirmed_at, created_at, updated_at,
  last_sign_in_at, raw_app_meta_data, raw_user_meta_data)
VALUES ('4ed90000-0000-4000-8000-000000000001', 'authenticated', 'authenticated', 'hedy@example.com',
  crypt('old supabase password', gen_salt('bf', 10)), now() - interval '30 days', now() - interval '30 days', now(),
  now() - interval '1 day', '{"provider": "email", "providers": ["email"]}', '{"full_name": "Hedy Lamarr"}');
INSERT INTO auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)
VALUES ('4ed90000-0000-4000-8000-000000000001', '4ed90000-0000-4000-8000-000000000001',
  '{"sub": "4ed90000-0000-4000-8000-000000000001", "email": "hedy@example.com", "email_verified": true}', 'email',
  now() - interval '30 days', now());
WITH session AS (
  INSERT INTO auth.sessions (id, user_id, created_at, updated_at, aal, refreshed_at)
  VALUES (gen_random_uuid(), '4ed90000-0000-4000-8000-000000000001', now() - interval '1 day', now(), 'aal1',
    now() at time zone 'utc')
  RETURNING id, user_id
)
INSERT INTO auth.refresh_tokens (token, user_id, revoked, created_at, updated_at, session_id)
SELECT substr(encode(gen_random_bytes(12), 'hex'), 1, 12), user_id::text, false, now() - interval '1 hour', now(), id
FROM session;
SQL
    echo "$url"
    ;;
stop)
    stop
    ;;
*)
    echo "usage: $0 start | stop" >&2
    exit 2
    ;;
esac
