#!/usr/bin/env bash
# Server benchmark (issue 2): throughput and p99 of GET /user and of refresh-token rotation as
# ratios to GET /health, password sign-ins/s against the machine's raw bcrypt ceiling, and
# GET /user p99 while sign-ins saturate the CPU — all in one run, against a release build of
# `latchkey serve` with rate limits off on a temporary SQLite database.
#
# Usage: Benchmarks/server.sh [seconds-per-measurement]   (needs wrk: apt-get install wrk)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench="$root/Benchmarks"
duration=${1:-10}
scratch=${LATCHKEY_BENCH_SCRATCH:-$root/.build-release}
out=$(mktemp -d)
data=$(mktemp -d)

echo "building release binaries…" >&2
swift build -c release --product latchkey --scratch-path "$scratch" >/dev/null
swift build -c release --package-path "$bench" --scratch-path "$scratch-bench" --product bcrypt-ceiling >/dev/null
bin="$scratch/release/latchkey"
ceiling_bin="$scratch-bench/release/bcrypt-ceiling"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
url="http://127.0.0.1:$port"
"$bin" serve --port "$port" --data-dir "$data" --autoconfirm --no-rate-limits --log-level error --cleanup-interval 0 &
server=$!
cleaning=""
trap 'kill $server $cleaning 2>/dev/null; wait $server 2>/dev/null; rm -rf "$data" "$data-cleaning" "$out"' EXIT
for _ in $(seq 100); do curl -sf "$url/health" >/dev/null && break; sleep 0.1; done

json() { python3 -c "import json,sys; print(json.load(sys.stdin)[sys.argv[1]])" "$1"; }
signup() { curl -sf -X POST "$url/signup" -H 'Content-Type: application/json' -d "{\"email\":\"$1\",\"password\":\"benchmark password\"}"; }
access=$(signup bench@example.com | json access_token)
for i in $(seq 8); do signup "refresh$i@example.com" | json refresh_token; done > "$out/tokens"

# wrk helpers: requests/s and p99 in ms.
rps() { awk '/Requests\/sec/ {print $2}' "$1"; }
p99() { awk '$1=="99%" {v=$2; if (v ~ /us$/) {sub(/us$/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms$/,"",v)} else if (v ~ /s$/) {sub(/s$/,"",v); v*=1000}; printf "%.2f", v}' "$1"; }
errors() { awk '/Non-2xx/ {print $5} /Socket errors/ {print "socket:" $0}' "$1" | tr '\n' ' '; }

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
"$bin" serve --port "$port" --data-dir "$data-cleaning" --autoconfirm --no-rate-limits --log-level error --cleanup-interval 1 --refresh-token-retention 10 &
cleaning=$!
for _ in $(seq 100); do curl -sf "$url/health" >/dev/null && break; sleep 0.1; done
for i in $(seq 8); do signup "refresh$i@example.com" | json refresh_token; done > "$out/tokens-cleaning"
wrk -t8 -c8 -d"${duration}s" --latency -s "$bench/lua/refresh.lua" "$url" -- "$out/tokens-cleaning" > "$out/refresh-cleaning"

ratio() { python3 -c "print(f'{float($1)/float($2)*100:.0f}%')"; }
cat <<TABLE
Measured $(date -u +%Y-%m-%d) on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), release build, SQLite, rate limits off, ${duration}s per measurement.

| measurement | requests/s | p99 | ratio | goal |
|---|---:|---:|---:|---|
| GET /health | $(rps "$out/health") | $(p99 "$out/health") ms | 100% | baseline |
| GET /user | $(rps "$out/user") | $(p99 "$out/user") ms | $(ratio "$(rps "$out/user")" "$(rps "$out/health")") of /health | ≥ 50% |
| refresh-token rotation | $(rps "$out/refresh") | $(p99 "$out/refresh") ms | $(ratio "$(rps "$out/refresh")" "$(rps "$out/health")") of /health | ≥ 2,000/s |
| rotation, cleanup every second | $(rps "$out/refresh-cleaning") | $(p99 "$out/refresh-cleaning") ms | $(ratio "$(rps "$out/refresh-cleaning")" "$(rps "$out/refresh")") of rotation | ≥ 95% |
| raw bcrypt ceiling (cost 10, $cores threads) | $ceiling | | 100% | ceiling |
| password sign-in | $(rps "$out/signin") | $(p99 "$out/signin") ms | $(ratio "$(rps "$out/signin")" "$ceiling") of ceiling | ≥ 80% |
| GET /user during a sign-in flood | $(rps "$out/user-flood") | $(p99 "$out/user-flood") ms | | p99 < 20 ms |
TABLE
for f in health user refresh refresh-cleaning signin user-flood; do
    e=$(errors "$out/$f"); [ -n "$e" ] && echo "warning: $f had errors: $e" >&2
done
true
