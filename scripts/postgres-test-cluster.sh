# shellcheck shell=bash
# Sourced by scripts/test.sh (and Benchmarks/postgres.sh): starts a throwaway PostgreSQL cluster
# for the PostgreSQL tests, then exports
#
#   LATCHKEY_TEST_POSTGRES_URL=postgres://latchkey@127.0.0.1:PORT/latchkey_test
#
# and registers its own removal in the caller's `cleanup_steps` array.
#
# The cluster lives in a temporary directory, runs as an unprivileged user (`postgres`, which
# Debian's postgresql package creates, when we are root), listens on a free loopback port only,
# and trusts connections from 127.0.0.1 and its own socket directory: nothing outside this machine
# can reach it, and no password exists to leak. Durability is switched off (fsync, full-page
# writes) because the data is thrown away. When PostgreSQL's server binaries are missing, or
# anything fails, it prints one line and exports nothing, so the PostgreSQL tests are skipped
# rather than failed.

latchkey_pg_log() { echo "postgres-test-cluster: $*" >&2; }

latchkey_pg_start() {
    local bindir="" candidate
    # The newest installed major version (e.g. /usr/lib/postgresql/15/bin).
    for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V); do
        [ -x "$candidate/initdb" ] && [ -x "$candidate/pg_ctl" ] && bindir="$candidate"
    done
    if [ -z "$bindir" ]; then
        latchkey_pg_log "no PostgreSQL server binaries under /usr/lib/postgresql"
        return 0
    fi

    local -a as_owner=()
    if [ "$(id -u)" = 0 ]; then
        # PostgreSQL refuses to run as root: run it as the package's unprivileged user.
        if ! id postgres >/dev/null 2>&1; then
            latchkey_pg_log "running as root but there is no 'postgres' user to run the cluster as"
            return 0
        fi
        as_owner=(runuser -u postgres --)
    fi

    local dir
    # /tmp, not $TMPDIR: the cluster user must be able to reach the directory.
    dir=$(mktemp -d /tmp/latchkey-pg.XXXXXX) || return 0
    chmod 0700 "$dir"
    [ "${#as_owner[@]}" -gt 0 ] && chown postgres: "$dir"

    if ! "${as_owner[@]}" "$bindir/initdb" -D "$dir/data" -U latchkey -A trust -E UTF8 --locale=C \
        >"$dir/initdb.log" 2>&1; then
        latchkey_pg_log "initdb failed (see $dir/initdb.log)"
        return 0
    fi
    # Trust only loopback TCP and the cluster's private socket directory.
    printf '%s\n' \
        "local all all trust" \
        "host  all all 127.0.0.1/32 trust" >"$dir/data/pg_hba.conf"

    # Pick a free loopback port; retry a few times in case another process takes it first.
    local port="" attempt
    for attempt in 1 2 3 4 5; do
        local try=$((20000 + RANDOM % 40000))
        if (exec 3<>"/dev/tcp/127.0.0.1/$try") 2>/dev/null; then continue; fi   # in use
        if "${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
            -o "-p $try -c listen_addresses=127.0.0.1 -k $dir -c max_connections=400 -c shared_buffers=64MB -c fsync=off -c full_page_writes=off -c synchronous_commit=off" \
            start >/dev/null 2>&1; then
            port=$try
            break
        fi
    done
    if [ -z "$port" ]; then
        latchkey_pg_log "could not start PostgreSQL (see $dir/server.log)"
        return 0
    fi
    # From here on the cluster runs: stop it and remove its files when the caller exits.
    cleanup_steps+=("${as_owner[*]} '$bindir/pg_ctl' -D '$dir/data' -m immediate -w stop >/dev/null 2>&1; rm -rf '$dir'")

    if ! "${as_owner[@]}" "$bindir/createdb" -h 127.0.0.1 -p "$port" -U latchkey latchkey_test >"$dir/createdb.log" 2>&1; then
        latchkey_pg_log "createdb failed (see $dir/createdb.log)"
        return 0
    fi
    export LATCHKEY_TEST_POSTGRES_URL="postgres://latchkey@127.0.0.1:$port/latchkey_test"
    export LATCHKEY_TEST_POSTGRES_BIN="$bindir"
}

if ! declare -p cleanup_steps >/dev/null 2>&1; then cleanup_steps=(); fi
latchkey_pg_start
