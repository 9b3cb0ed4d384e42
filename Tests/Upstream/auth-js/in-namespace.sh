#!/usr/bin/env bash
# Run by run.sh inside `unshare -rn`: a network namespace of its own, so the suite's fixed ports
# (54321) are private. Starts `latchkey serve` configured as the suite's Supabase CLI project
# (test/supabase/config.toml), waits for /health, and runs jest on the chosen tests; exits with
# jest's status.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite=$LATCHKEY_AUTHJS_DIR
work=$LATCHKEY_AUTHJS_WORK
ip link set lo up

pids=()
stop_all() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap stop_all EXIT

# config.toml's [auth] as latchkey serve settings. The suite reaches Auth at
# http://127.0.0.1:54321/auth/v1, the Supabase CLI's gateway; latchkey serves every route under
# /auth/v1 too, so it listens there itself.
mkdir -p "$work/latchkey"
GOTRUE_JWT_SECRET='super-secret-jwt-token-with-at-least-32-characters-long' \
"$LATCHKEY_BIN" serve \
    --data-dir "$work/latchkey" \
    --host 127.0.0.1 --port 54321 \
    --external-url http://127.0.0.1:54321/auth/v1 \
    --site-url http://127.0.0.1:3000 \
    --redirect-url https://127.0.0.1:3000 --redirect-url http://localhost:5173 \
    --jwt-keys-file "$suite/test/supabase/signing_keys.json" \
    --access-token-ttl 3600 --refresh-reuse-interval 10 \
    --autoconfirm --enable-anonymous-users --password-min-length 6 \
    --phone-enabled --sms-autoconfirm --sms-test-otp 1234567890:123456 --sms-max-frequency 1 \
    --rate-limit-email 100 --rate-limit-sms 100 --rate-limit-signin 100 --rate-limit-refresh 300 \
    --rate-limit-verify 100 \
    --mfa-max-enrolled-factors 10 \
    --mfa-phone-enroll --mfa-phone-verify --mfa-phone-max-frequency 1 \
    --webauthn-rp-id localhost --webauthn-rp-display-name 'auth-js tests' \
    --webauthn-rp-origins http://localhost:5173 \
    --mfa-webauthn-enroll --mfa-webauthn-verify --passkeys-enabled \
    --oauth-server --oauth-server-authorization-path /oauth/consent \
    --oauth-server-dynamic-registration \
    > "$work/latchkey.log" 2>&1 &
pids+=($!)

# Wait for Auth where the suite reaches it, while the server is still running.
until curl -fsS -o /dev/null http://127.0.0.1:54321/auth/v1/health 2>/dev/null; do
    if ! kill -0 "${pids[0]}" 2>/dev/null; then
        echo "auth-js: latchkey serve stopped before answering /health:"
        cat "$work/latchkey.log"
        exit 1
    fi
    sleep 0.2
done

status=0
NODE_PATH=/usr/share/nodejs:/usr/lib/nodejs:/usr/lib/x86_64-linux-gnu/nodejs \
NODE_OPTIONS="--require $here/debian-node.js" \
    node /usr/share/nodejs/jest/bin/jest.js --config "$here/jest.config.js" --runInBand --ci "$@" || status=$?
if [ "$status" != 0 ]; then
    echo "auth-js: the server's log (last 40 lines):"
    tail -n 40 "$work/latchkey.log"
fi
exit "$status"
