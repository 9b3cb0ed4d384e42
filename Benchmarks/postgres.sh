#!/usr/bin/env bash
# Scale-out benchmark: refresh-token rotations/s and GET /user requests/s with one instance on
# SQLite, one on PostgreSQL, and two on one PostgreSQL database, and the same rotation
# transaction run by pgbench (Benchmarks/pgbench/rotation.sql) as the ceiling, in one run, against
# release builds of `latchkey serve` with rate limits off. The ratio two/one on PostgreSQL shows
# whether instances scale (on a 2-core machine the two instances, PostgreSQL and wrk share the
# same cores, so expect the CPU, not the design, to cap it).
#
# PostgreSQL is a throwaway cluster (scripts/postgres-test-cluster.sh) with fsync back on and
# synchronous_commit off: commits are not flushed one by one, the same durability as SQLite's
# WAL mode with synchronous=NORMAL that the SQLite store uses.
#
# Usage: Benchmarks/postgres.sh [seconds-per-measurement]   (needs wrk and postgresql: apt-get install wrk postgresql)
set -euo pipefail
command -v wrk >/dev/null || { echo "needs wrk: apt-get install wrk" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
bench="$root/Benchmarks"
duration=${1:-10}
scratch=${LATCHKEY_BENCH_SCRATCH:-$root/.build-release}
out=$(mktemp -d)

cleanup_steps=("rm -rf '$out'")
cleanup() { for ((i=${#cleanup_steps[@]}-1; i>=0; i--)); do eval "${cleanup_steps[$i]}" || true; done; }
trap cleanup EXIT
trap "exit 1" INT TERM

command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
unset LATCHKEY_TEST_POSTGRES_URL
# shellcheck source=../scripts/postgres-test-cluster.sh
source "$root/scripts/postgres-test-cluster.sh"
[ -n "${LATCHKEY_TEST_POSTGRES_URL:-}" ] || { echo "PostgreSQL is not available (apt-get install postgresql)" >&2; exit 1; }
psql=("$LATCHKEY_TEST_POSTGRES_BIN/psql" -q -X -v ON_ERROR_STOP=1 "$LATCHKEY_TEST_POSTGRES_URL")
"${psql[@]}" -c "ALTER SYSTEM SET fsync = on" -c "ALTER SYSTEM SET full_page_writes = on" -c "SELECT pg_reload_conf()" >/dev/null
"${psql[@]}" -c "CREATE DATABASE latchkey_bench" >/dev/null
database="${LATCHKEY_TEST_POSTGRES_URL%/*}/latchkey_bench"

echo "building release binary…" >&2
swift build -c release --product latchkey --scratch-path "$scratch" >/dev/null
bin="$scratch/release/latchkey"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
export LATCHKEY_JWT_SECRET
LATCHKEY_JWT_SECRET=$(head -c 48 /dev/urandom | base64 | tr -d '\n/+=')
start() { # name, extra serve arguments…
    local name=$1 port data; shift
    port=$(free_port); data=$(mktemp -d)
    "$bin" serve --port "$port" --data-dir "$data" --autoconfirm --no-rate-limits --bcrypt-cost 4 --log-level error "$@" &
    cleanup_steps+=("kill $! 2>/dev/null; wait $! 2>/dev/null; rm -rf '$data'")
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
    eval "url_$name=http://127.0.0.1:$port"
}
start sqlite
start pg1 --database "$database" --database-pool-size "${LATCHKEY_BENCH_POOL:-10}"
start pg2 --database "$database" --database-pool-size "${LATCHKEY_BENCH_POOL:-10}"

json() { python3 -c "import json,sys; print(json.load(sys.stdin)[sys.argv[1]])" "$1"; }
signup() { curl -sf -X POST "$1/signup" -H 'Content-Type: application/json' -d "{\"email\":\"$2\",\"password\":\"benchmark password\"}"; }
signin() { curl -sf -X POST "$1/token?grant_type=password" -H 'Content-Type: application/json' -d "{\"email\":\"$2\",\"password\":\"benchmark password\"}"; }
tokens() { # url, file, count: one fresh session (refresh token) per wrk thread
    for i in $(seq "$3"); do signin "$1" "user$i@example.com" | json refresh_token; done > "$2"
}
for i in $(seq 8); do signup "$url_sqlite" "user$i@example.com" >/dev/null; signup "$url_pg1" "user$i@example.com" >/dev/null; done
access_sqlite=$(signin "$url_sqlite" user1@example.com | json access_token)
access_pg1=$(signin "$url_pg1" user1@example.com | json access_token)
access_pg2=$(signin "$url_pg2" user1@example.com | json access_token)

rps() { awk '/Requests\/sec/ {print $2}' "$1"; }
p99() { awk '$1=="99%" {v=$2; if (v ~ /us$/) {sub(/us$/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms$/,"",v)} else if (v ~ /s$/) {sub(/s$/,"",v); v*=1000}; printf "%.2f", v}' "$1"; }
errors() { awk '/Non-2xx/ {print $5} /Socket errors/ {print "socket:" $0}' "$1" | tr '\n' ' '; }
sum() { python3 -c "import sys; print(f'{sum(float(x) for x in sys.argv[1:]):.2f}')" "$@"; }
max() { python3 -c "import sys; print(f'{max(float(x) for x in sys.argv[1:]):.2f}')" "$@"; }

# The same total load for every configuration: 8 rotating sessions, 16 /user connections.
echo "measuring (${duration}s each)…" >&2
tokens "$url_sqlite" "$out/t-sqlite" 8
wrk -t8 -c8 -d"${duration}s" --latency -s "$bench/lua/refresh.lua" "$url_sqlite" -- "$out/t-sqlite" > "$out/refresh-sqlite"
wrk -t2 -c16 -d"${duration}s" --latency -s "$bench/lua/user.lua" "$url_sqlite/user" -- "$access_sqlite" > "$out/user-sqlite"
tokens "$url_pg1" "$out/t-pg" 8
wrk -t8 -c8 -d"${duration}s" --latency -s "$bench/lua/refresh.lua" "$url_pg1" -- "$out/t-pg" > "$out/refresh-pg"
wrk -t2 -c16 -d"${duration}s" --latency -s "$bench/lua/user.lua" "$url_pg1/user" -- "$access_pg1" > "$out/user-pg"
tokens "$url_pg1" "$out/t-pg1" 4
tokens "$url_pg2" "$out/t-pg2" 4
# (wait for the first wrk by its pid: a bare `wait` would also wait for the servers.)
wrk -t4 -c4 -d"${duration}s" --latency -s "$bench/lua/refresh.lua" "$url_pg1" -- "$out/t-pg1" > "$out/refresh-2pg-a" &
first=$!
wrk -t4 -c4 -d"${duration}s" --latency -s "$bench/lua/refresh.lua" "$url_pg2" -- "$out/t-pg2" > "$out/refresh-2pg-b"
wait "$first"
wrk -t1 -c8 -d"${duration}s" --latency -s "$bench/lua/user.lua" "$url_pg1/user" -- "$access_pg1" > "$out/user-2pg-a" &
first=$!
wrk -t1 -c8 -d"${duration}s" --latency -s "$bench/lua/user.lua" "$url_pg2/user" -- "$access_pg2" > "$out/user-2pg-b"
wait "$first"

# The PostgreSQL ceiling: the same rotation transaction run by pgbench (Benchmarks/pgbench), 8
# clients on 8 sessions, against the same database, with no server in between.
tokens "$url_pg1" "$out/t-pgbench" 8
"$LATCHKEY_TEST_POSTGRES_BIN/pgbench" -n -M extended -c 8 -j 2 -T "$duration" -D fresh=1 -f "$bench/pgbench/rotation.sql" "$database" > "$out/pgbench" 2>&1 \
    || { cat "$out/pgbench" >&2; exit 1; }
pgbench_tps=$(awk '/^tps = / {printf "%.0f", $3; exit}' "$out/pgbench")

refresh_2pg=$(sum "$(rps "$out/refresh-2pg-a")" "$(rps "$out/refresh-2pg-b")")
user_2pg=$(sum "$(rps "$out/user-2pg-a")" "$(rps "$out/user-2pg-b")")
ratio() { python3 -c "print(f'{float($1)/float($2):.2f}×')"; }
cat <<TABLE
Measured $(date -u +%Y-%m-%d) on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), release build, rate limits off, PostgreSQL $("${psql[@]}" -tAc 'SHOW server_version' | cut -d' ' -f1) on the same machine (pool ${LATCHKEY_BENCH_POOL:-10} per instance), ${duration}s per measurement; refresh: 8 sessions rotating on 8 connections; /user: 16 connections.

| configuration | refresh rotations/s | refresh p99 | GET /user req/s | /user p99 |
|---|---:|---:|---:|---:|
| 1 instance, SQLite | $(rps "$out/refresh-sqlite") | $(p99 "$out/refresh-sqlite") ms | $(rps "$out/user-sqlite") | $(p99 "$out/user-sqlite") ms |
| 1 instance, PostgreSQL | $(rps "$out/refresh-pg") | $(p99 "$out/refresh-pg") ms | $(rps "$out/user-pg") | $(p99 "$out/user-pg") ms |
| 2 instances, one PostgreSQL | $refresh_2pg | $(max "$(p99 "$out/refresh-2pg-a")" "$(p99 "$out/refresh-2pg-b")") ms | $user_2pg | $(max "$(p99 "$out/user-2pg-a")" "$(p99 "$out/user-2pg-b")") ms |
| pgbench, the same rotation transaction (8 clients) | $pgbench_tps | | | |
| server rotation against pgbench | $(python3 -c "print(f'{float($(rps "$out/refresh-pg"))/float($pgbench_tps)*100:.0f}%')") | | | |
| two / one on PostgreSQL | $(ratio "$refresh_2pg" "$(rps "$out/refresh-pg")") | | $(ratio "$user_2pg" "$(rps "$out/user-pg")") | |
TABLE
for f in refresh-sqlite user-sqlite refresh-pg user-pg refresh-2pg-a refresh-2pg-b user-2pg-a user-2pg-b; do
    e=$(errors "$out/$f"); [ -n "$e" ] && echo "warning: $f had errors: $e" >&2
done
true
