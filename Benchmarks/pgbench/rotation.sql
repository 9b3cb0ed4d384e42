-- One refresh-token rotation as PostgresAuthStore.rotateRefreshToken runs it, for pgbench: the
-- PostgreSQL ceiling `postgres.sh` measures the server's rotations against. Each pgbench client
-- rotates its own session (the one whose token is the client's place among the active tokens),
-- as each wrk connection does; the token it holds lives in the client's variable `current`,
-- found on the client's first run (pgbench -D fresh=1).
\if :fresh
SELECT token_hash AS current FROM refresh_tokens WHERE revoked_at IS NULL ORDER BY id OFFSET :client_id LIMIT 1 \gset
\set fresh 0
\endif
\set serial random(1, 9000000000000000)
BEGIN;
-- 1. Lock the session that owns the token, with its user.
SELECT s.id, s.user_id, s.created_at, s.updated_at, s.refreshed_at, s.not_after, s.auth_method, u.*
FROM sessions s JOIN users u ON u.id = s.user_id
WHERE s.id = (SELECT session_id FROM refresh_tokens WHERE token_hash = :current)
FOR UPDATE OF s;
-- 2. The token itself, locked.
SELECT session_id AS session, user_id AS owner FROM refresh_tokens WHERE token_hash = :current FOR UPDATE \gset
-- 3. The changes: spend it, insert its successor, touch the session, write the audit row.
UPDATE refresh_tokens SET revoked_at = now() WHERE token_hash = :current;
UPDATE sessions SET refreshed_at = now(), updated_at = now() WHERE id = :session;
INSERT INTO audit_log (id, action, actor_id, actor_username, log_type, traits, ip_address, created_at)
VALUES (gen_random_uuid(), 'token_refreshed', :owner, NULL, 'token', '{}', '127.0.0.1', now());
INSERT INTO refresh_tokens (token_hash, session_id, user_id, parent_hash, revoked_at, created_at)
VALUES ('pgbench-' || :client_id || '-' || :serial, :session, :owner, :current, NULL, now())
RETURNING token_hash AS current \gset
COMMIT;
