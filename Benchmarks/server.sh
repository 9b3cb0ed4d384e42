#!/usr/bin/env bash
# Server benchmark: throughput and p99 of GET /user and of refresh-token rotation as ratios to
# GET /health, rotation against the raw-SQLite ceiling of the same transaction
# (Sources/RotationCeiling), password sign-ins/s against the machine's raw bcrypt ceiling, and
# GET /user p99 while sign-ins saturate the CPU — all in one run, against a release build of
# `latchkey serve` with rate limits off on a temporary SQLite database.
#
# Then the cost of production defaults on the refresh path: a baseline server (metrics off,
# cleanup off) against one with the defaults (metrics recorded and /metrics scraped every second,
# cleanup every 300 s), measured in interleaved rounds (A B A B …) so that whatever else loads
# the machine hits both, and printed as one ratio.
#
# Usage: Benchmarks/server.sh [seconds-per-measurement] [rounds]   (needs wrk: apt-get install wrk)
#        LATCHKEY_BENCH_ONLY=defaults Benchmarks/server.sh 5 4   (only the interleaved comparison)
#        LATCHKEY_BENCH_BIN=PATH uses that latchkey binary instead of building a release one.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench="$root/Benchmarks"
command -v wrk >/dev/null || { echo "needs wrk: apt-get install wrk" >&2; exit 2; }
duration=${1:-10}
rounds=${2:-4}
only=${LATCHKEY_BENCH_ONLY:-}
scratch=${LATCHKEY_BENCH_SCRATCH:-$root/.build-release}
out=$(mktemp -d)
data=$(mktemp -d)

if [ -n "${LATCHKEY_BENCH_BIN:-}" ]; then
    bin=$LATCHKEY_BENCH_BIN   # a binary built elsewhere (a debug build only checks the script)
else
    echo "building the release binary…" >&2
    swift build -c release --product latchkey --scratch-path "$scratch" >/dev/null
    bin="$scratch/release/latchkey"
fi
if [ -z "$only" ]; then
    swift build -c release --package-path "$bench" --scratch-path "$scratch-bench" --product bcrypt-ceiling >/dev/null
    swift build -c release --package-path "$bench" --scratch-path "$scratch-bench" --product rotation-ceiling >/dev/null
    ceiling_bin="$scratch-bench/release/bcrypt-ceiling"
    rotation_ceiling_bin="$scratch-bench/release/rotation-ceiling"
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
json() { python3 -c "import json,sys; print(json.load(sys.stdin)[sys.argv[1]])" "$1"; }
# wrk helpers: requests/s and p99 in ms.
rps() { awk '/Requests\/sec/ {print $2}' "$1"; }
p99() { awk '$1=="99%" {v=$2; if (v ~ /us$/) {sub(/us$/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms$/,"",v)} else if (v ~ /s$/) {sub(/s$/,"",v); v*=1000}; printf "%.2f", v}' "$1"; }
errors() { awk '/Non-2xx/ {print $5} /Socket errors/ {print "socket:" $0}' "$1" | tr '\n' ' '; }
ratio() { python3 -c "print(f'{float($1)/float($2)*100:.0f}%')"; }
wait_healthy() { for _ in $(seq 300); do curl -sf "$1/health" >/dev/null && return 0; sleep 0.1; done; echo "server at $1 did not start" >&2; return 1; }
server=""; cleaning=""; base=""; defaults=""; scraper=""
trap 'kill $server $cleaning $base $defaults $scraper 2>/dev/null; wait 2>/dev/null; rm -rf "$data" "$data-cleaning" "$data-es256" "$data-base" "$data-defaults" "$out"' EXIT

if [ -z "$only" ]; then
port=$(free_port)
url="http://127.0.0.1:$port"
"$bin" serve --port "$port" --data-dir "$data" --autoconfirm --no-rate-limits --log-level error --cleanup-interval 0 &
server=$!
wait_healthy "$url"

signup() { curl -sf -X POST "$url/signup" -H 'Content-Type: application/json' -d "{\"email\":\"$1\",\"password\":\"benchmark password\"}"; }
access=$(signup bench@example.com | json access_token)
for i in $(seq 8); do signup "refresh$i@example.com" | json refresh_token; done > "$out/tokens"

echo "measuring (${duration}s each)…" >&2
wrk -t2 -c16 -d"${duration}s" --latency "$url/health" > "$out/health"
wrk -t2 -c16 -d"${duration}s" --latency -s "$bench/lua/user.lua" "$url/user" -- "$access" > "$out/user"
wrk -t8 -c8 -d"${duration}s" --latency -s "$bench/lua/refresh.lua" "$url" -- "$out/tokens" > "$out/refresh"
cores=$(nproc)
ceiling=$("$ceiling_bin" "$cores" "$duration" 10)
wrk -t2 -c8 -d"${duration}s" --latency -s "$bench/lua/signin.lua" "$url" -- bench@example.com "benchmark password" > "$out/signin"
# /user while a sign-in flood saturates the CPU.
wrk -t2 -c8 -d"$((duration + 4))s" -s "$bench/lua/signin.lua" "$url" -- bench@example.com "benchmark password" > "$out/flood" &
flood=$!
sleep 2
wrk -t1 -c2 -d"${duration}s" --latency -s "$bench/lua/user.lua" "$url/user" -- "$access" > "$out/user-flood"
wait $flood

# Rotation again on a second server whose cleanup task runs every second (the first runs none):
# what cleanup costs the refresh path. Both servers record metrics; /metrics itself is off.
kill $server; wait $server 2>/dev/null || true
# The raw-SQLite ceiling of the same rotations: the server's transaction run directly on its own
# (now stopped) database, one thread, nothing else.
rotation_ceiling=$("$rotation_ceiling_bin" "$data/latchkey.sqlite" "$duration")
"$bin" serve --port "$port" --data-dir "$data-cleaning" --autoconfirm --no-rate-limits --log-level error --cleanup-interval 1 --refresh-token-retention 10 &
cleaning=$!
wait_healthy "$url"
for i in $(seq 8); do signup "refresh$i@example.com" | json refresh_token; done > "$out/tokens-cleaning"
wrk -t8 -c8 -d"${duration}s" --latency -s "$bench/lua/refresh.lua" "$url" -- "$out/tokens-cleaning" > "$out/refresh-cleaning"

kill $cleaning; wait $cleaning 2>/dev/null || true
cleaning=""

# GET /user again on a server whose tokens are signed with an ES256 key (verified with P-256 on
# every request) rather than the HS256 secret.
echo "[$("$bin" keys generate --alg ES256)]" > "$out/jwt-keys.json"
"$bin" serve --port "$port" --data-dir "$data-es256" --autoconfirm --no-rate-limits --log-level error --cleanup-interval 0 \
    --jwt-keys-file "$out/jwt-keys.json" &
cleaning=$!
wait_healthy "$url"
access_es256=$(signup bench@example.com | json access_token)
wrk -t2 -c16 -d"${duration}s" --latency "$url/health" > "$out/health-es256"
wrk -t2 -c16 -d"${duration}s" --latency -s "$bench/lua/user.lua" "$url/user" -- "$access_es256" > "$out/user-es256"
kill $cleaning; wait $cleaning 2>/dev/null || true
cleaning=""
cat <<TABLE
Measured $(date -u +%Y-%m-%d) on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), release build, SQLite, rate limits off, ${duration}s per measurement.

| measurement | requests/s | p99 | ratio | goal |
|---|---:|---:|---:|---|
| GET /health | $(rps "$out/health") | $(p99 "$out/health") ms | 100% | baseline |
| GET /user | $(rps "$out/user") | $(p99 "$out/user") ms | $(ratio "$(rps "$out/user")" "$(rps "$out/health")") of /health | ≥ 50% |
| GET /user, ES256 tokens | $(rps "$out/user-es256") | $(p99 "$out/user-es256") ms | $(ratio "$(rps "$out/user-es256")" "$(rps "$out/health-es256")") of /health | ≥ 50% |
| refresh-token rotation | $(rps "$out/refresh") | $(p99 "$out/refresh") ms | $(ratio "$(rps "$out/refresh")" "$(rps "$out/health")") of /health | ≥ 2,000/s |
| raw-SQLite rotation ceiling (1 thread) | $rotation_ceiling | | 100% | ceiling |
| refresh-token rotation against the ceiling | | | $(ratio "$(rps "$out/refresh")" "$rotation_ceiling") of ceiling | ≥ 50% |
| rotation, cleanup every second | $(rps "$out/refresh-cleaning") | $(p99 "$out/refresh-cleaning") ms | $(ratio "$(rps "$out/refresh-cleaning")" "$(rps "$out/refresh")") of rotation | ≥ 95% |
| raw bcrypt ceiling (cost 10, $cores threads) | $ceiling | | 100% | ceiling |
| password sign-in | $(rps "$out/signin") | $(p99 "$out/signin") ms | $(ratio "$(rps "$out/signin")" "$ceiling") of ceiling | ≥ 80% |
| GET /user during a sign-in flood | $(rps "$out/user-flood") | $(p99 "$out/user-flood") ms | | p99 < 20 ms |
TABLE
for f in health user user-es256 refresh refresh-cleaning signin user-flood; do
    e=$(errors "$out/$f"); [ -n "$e" ] && echo "warning: $f had errors: $e" >&2
done
fi

# Production defaults against a bare baseline, interleaved: A (metrics off, cleanup off) and B
# (the defaults: metrics on, cleanup every 300 s; the first run comes a few seconds after the
# start, so it falls inside the measurement) run side by side; each round measures A, then B,
# each with fresh sessions. /metrics of B is scraped every second while B is measured. Both log
# at error level, so that the access log (the same on both) does not dilute the difference.
metrics_token=bench-metrics-token-0123456789
port_a=$(free_port); port_b=$(free_port)
"$bin" serve --port "$port_a" --data-dir "$data-base" --autoconfirm --no-rate-limits --log-level error \
    --cleanup-interval 0 --metrics-enabled false &
base=$!
"$bin" serve --port "$port_b" --data-dir "$data-defaults" --autoconfirm --no-rate-limits --log-level error \
    --metrics-token "$metrics_token" &
defaults=$!
wait_healthy "http://127.0.0.1:$port_a"; wait_healthy "http://127.0.0.1:$port_b"
for port in "$port_a" "$port_b"; do
    for i in $(seq 8); do
        curl -sf -X POST "http://127.0.0.1:$port/signup" -H 'Content-Type: application/json' \
            -d "{\"email\":\"rotate$i@example.com\",\"password\":\"benchmark password\"}" >/dev/null
    done
done
# Eight fresh sessions on a server (one per wrk connection): a run starts from live tokens.
sessions() {
    for i in $(seq 8); do
        curl -sf -X POST "http://127.0.0.1:$1/token?grant_type=password" -H 'Content-Type: application/json' \
            -d "{\"email\":\"rotate$i@example.com\",\"password\":\"benchmark password\"}" | json refresh_token
    done > "$2"
}
echo "interleaved refresh rounds: $rounds × (baseline, defaults), ${duration}s each…" >&2
for round in $(seq "$rounds"); do
    sessions "$port_a" "$out/tokens-a"
    wrk -t8 -c8 -d"${duration}s" --latency -s "$bench/lua/refresh.lua" "http://127.0.0.1:$port_a" -- "$out/tokens-a" > "$out/round-$round-a"
    sessions "$port_b" "$out/tokens-b"
    ( while true; do curl -sf -H "Authorization: Bearer $metrics_token" "http://127.0.0.1:$port_b/metrics" >/dev/null; sleep 1; done ) &
    scraper=$!
    wrk -t8 -c8 -d"${duration}s" --latency -s "$bench/lua/refresh.lua" "http://127.0.0.1:$port_b" -- "$out/tokens-b" > "$out/round-$round-b"
    kill $scraper; wait $scraper 2>/dev/null || true
    scraper=""
    for side in a b; do
        e=$(errors "$out/round-$round-$side"); [ -n "$e" ] && echo "warning: round $round $side had errors: $e" >&2
    done
    echo "round $round: baseline $(rps "$out/round-$round-a")/s, defaults $(rps "$out/round-$round-b")/s" >&2
done
python3 - "$out" "$rounds" "$duration" <<'PY'
import re, sys
out, rounds, duration = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def rps(path):
    return float(re.search(r"Requests/sec:\s+([\d.]+)", open(path).read()).group(1))
a = [rps(f"{out}/round-{r}-a") for r in range(1, rounds + 1)]
b = [rps(f"{out}/round-{r}-b") for r in range(1, rounds + 1)]
per_round = [y / x for x, y in zip(a, b)]
overall = sum(b) / sum(a)
print()
print(f"Refresh-token rotation, production defaults against a bare baseline, {rounds} interleaved rounds of {duration}s:")
print()
print("| server | requests/s (mean of rounds) | per round |")
print("|---|---:|---|")
print(f"| A: metrics off, cleanup off | {sum(a)/len(a):.0f} | {', '.join(f'{x:.0f}' for x in a)} |")
print(f"| B: metrics on (scraped every second), cleanup every 300 s | {sum(b)/len(b):.0f} | {', '.join(f'{x:.0f}' for x in b)} |")
print()
print(f"B/A = {overall*100:.1f}% (per round {', '.join(f'{r*100:.0f}%' for r in per_round)}); "
      f"the goal is a cost under 5%, B/A ≥ 95%: {'met' if overall >= 0.95 else 'NOT met'}")
PY
true
