#!/usr/bin/env bash
# Run by run.sh inside `unshare -rn`: a network namespace of its own, so the suite's fixed ports
# are private. Starts `latchkey serve` as each of the suite's servers (below), waits for each
# one's /health, and runs jest on the suite's two parts as upstream's CI runs them; exits
# non-zero if either failed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite=$LATCHKEY_AUTHJS_DIR
work=$LATCHKEY_AUTHJS_WORK
ip link set lo up

pids=()
stop_all() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap stop_all EXIT
trap 'exit 130' INT TERM

# Each server gets only the settings given below: the caller's own Latchkey and GoTrue settings
# (LATCHKEY_*, GOTRUE_*, DATABASE_URL, ...) are taken out of its environment.
unset_caller_settings=()
for name in $(compgen -e); do
    case "$name" in
        LATCHKEY_* | GOTRUE_* | DATABASE_URL | API_EXTERNAL_URL | PORT) unset_caller_settings+=(-u "$name") ;;
    esac
done

# start NAME HEALTH_URL [env NAME=VALUE ...] -- [latchkey serve arguments ...]: one server, with
# a temporary SQLite database and outbox of its own in $work/NAME.
start() {
    local name=$1 health=$2
    shift 2
    local environment=()
    while [ "$1" != -- ]; do environment+=("$1"); shift; done
    shift
    mkdir -p "$work/$name"
    env "${unset_caller_settings[@]}" "${environment[@]}" "$LATCHKEY_BIN" serve --data-dir "$work/$name" --host 127.0.0.1 "$@" \
        > "$work/$name.log" 2>&1 &
    pids+=($!)
    servers+=("$name $! $health")
}
servers=()

# 1. The Supabase CLI project of test/supabase/config.toml, its [auth] as latchkey serve
# settings. The suite reaches Auth at http://127.0.0.1:54321/auth/v1 (the CLI's gateway);
# latchkey serves every route under /auth/v1 too, so it listens there itself.
start cli http://127.0.0.1:54321/auth/v1/health \
    GOTRUE_JWT_SECRET='super-secret-jwt-token-with-at-least-32-characters-long' -- \
    --port 54321 \
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
    --oauth-server-dynamic-registration

# 2. The four GoTrue services of infra/docker-compose.yml, for test/docker-tests: each with its
# service's environment as the compose file sets it (compose-env.js says what is left out).
for service in gotrue autoconfirm autoconfirm_with_asymmetric_keys disabled; do
    mapfile -t service_env < <(node "$here/compose-env.js" "$suite/infra/docker-compose.yml" "$service")
    port=
    for assignment in "${service_env[@]}"; do
        case "$assignment" in PORT=*) port=${assignment#PORT=} ;; esac
    done
    [ -n "$port" ] || { echo "auth-js: no PORT for $service in infra/docker-compose.yml"; exit 1; }
    start "compose-$service" "http://127.0.0.1:$port/health" "${service_env[@]}" --
done

# Wait for each server's /health while it is still running.
for server in "${servers[@]}"; do
    read -r name pid health <<< "$server"
    until curl -fsS -o /dev/null "$health" 2>/dev/null; do
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "auth-js: latchkey serve ($name) stopped before answering /health:"
            cat "$work/$name.log"
            exit 1
        fi
        sleep 0.2
    done
done

jest() {
    NODE_PATH=/usr/share/nodejs:/usr/lib/nodejs:/usr/lib/x86_64-linux-gnu/nodejs \
    NODE_OPTIONS="--require $here/debian-node.js" \
        node /usr/share/nodejs/jest/bin/jest.js --runInBand --ci "$@"
}
# Arguments given (a test file, -t NAME) go to both parts; one part may then have none to run.
[ $# -gt 0 ] && set -- --passWithNoTests "$@"
status=0
# Upstream's two jobs: test:suite (jest.config.cli.js) and test:docker:suite (jest.config.docker.js).
echo "auth-js: the suite against the Supabase CLI project (test/, less docker-tests)"
jest --config "$here/jest.config.js" "$@" || status=$?
echo "auth-js: test/docker-tests against the compose file's servers"
LATCHKEY_AUTHJS_PART=docker jest --config "$here/jest.config.js" "$@" || status=$?
if [ "$status" != 0 ]; then
    for server in "${servers[@]}"; do
        read -r name _ <<< "$server"
        echo "auth-js: $name's log (last 30 lines):"
        tail -n 30 "$work/$name.log"
    done
fi
exit "$status"
