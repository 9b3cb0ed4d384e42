#!/usr/bin/env bash
# Two builds of `latchkey serve` side by side: `/health`, `GET /user` and refresh-token rotation
# on each, in interleaved rounds (A B A B …) so that whatever else loads the machine hits both,
# and each measurement of B as a percentage of A (medians of the rounds), then the server's CPU
# time per request (its user and system time over the requests served), which holds better than
# requests per second when other work shares the machine. For a change on a hot path: build the
# commit before it and after it in release mode, then compare.
#
# Usage: Benchmarks/compare.sh BIN_A BIN_B [seconds-per-measurement] [rounds]   (needs wrk)
set -euo pipefail
command -v wrk >/dev/null || { echo "needs wrk: apt-get install wrk" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
bench="$root/Benchmarks"
bin_a=$1; bin_b=$2
duration=${3:-8}
rounds=${4:-3}
out=$(mktemp -d)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
json() { python3 -c "import json,sys; print(json.load(sys.stdin)[sys.argv[1]])" "$1"; }
rps() { awk '/Requests\/sec/ {print $2}' "$1"; }
requests() { awk '/requests in/ {print $1}' "$1"; }
# The process's user + system time in clock ticks (fields 14 and 15 of /proc/PID/stat).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# Runs wrk with the remaining arguments into OUT, and the server's CPU ticks spent into OUT.cpu.
measure() {
    local pid=$1 file=$2; shift 2
    local before; before=$(cpu_ticks "$pid")
    wrk "$@" > "$file"
    echo $(( $(cpu_ticks "$pid") - before )) > "$file.cpu"
}
wait_healthy() { for _ in $(seq 300); do curl -sf "$1/health" >/dev/null && return 0; sleep 0.1; done; echo "server at $1 did not start" >&2; return 1; }
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$out"' EXIT

declare -A port pid
for side in a b; do
    port[$side]=$(free_port)
    bin=$([ "$side" = a ] && echo "$bin_a" || echo "$bin_b")
    "$bin" serve --port "${port[$side]}" --data-dir "$out/data-$side" --autoconfirm --no-rate-limits --log-level error --cleanup-interval 0 &
    pids+=($!)
    pid[$side]=$!
done
for side in a b; do
    url="http://127.0.0.1:${port[$side]}"
    wait_healthy "$url"
    curl -sf -X POST "$url/signup" -H 'Content-Type: application/json' \
        -d '{"email":"bench@example.com","password":"benchmark password"}' | json access_token > "$out/access-$side"
    for i in $(seq 8); do
        curl -sf -X POST "$url/signup" -H 'Content-Type: application/json' \
            -d "{\"email\":\"rotate$i@example.com\",\"password\":\"benchmark password\"}" >/dev/null
    done
done
sessions() {
    for i in $(seq 8); do
        curl -sf -X POST "http://127.0.0.1:$1/token?grant_type=password" -H 'Content-Type: application/json' \
            -d "{\"email\":\"rotate$i@example.com\",\"password\":\"benchmark password\"}" | json refresh_token
    done > "$2"
}
echo "interleaved rounds: $rounds × (A, B) of /health, /user and rotation, ${duration}s each…" >&2
for round in $(seq "$rounds"); do
    for side in a b; do
        url="http://127.0.0.1:${port[$side]}"
        measure "${pid[$side]}" "$out/health-$round-$side" -t2 -c16 -d"${duration}s" "$url/health"
        measure "${pid[$side]}" "$out/user-$round-$side" -t2 -c16 -d"${duration}s" -s "$bench/lua/user.lua" "$url/user" -- \
            "$(cat "$out/access-$side")"
        sessions "${port[$side]}" "$out/tokens-$side"
        measure "${pid[$side]}" "$out/refresh-$round-$side" -t8 -c8 -d"${duration}s" -s "$bench/lua/refresh.lua" "$url" -- "$out/tokens-$side"
    done
done
median() { python3 -c 'import statistics,sys; print(f"{statistics.median(float(v) for v in sys.argv[1:]):.0f}")' "$@"; }
# CPU microseconds per request: ticks × 10⁶ / CLK_TCK / requests.
tick=$(getconf CLK_TCK)
per_request() { python3 -c "print(f'{int(open(\"$1.cpu\").read()) * 1e6 / $tick / int(\"$(requests "$1")\"):.0f}')"; }
# One row per measurement of the figures FIGURE (rps or per_request) reads from each round's output.
table() {
    local figure=$1 what a b ma mb label
    for what in health user refresh; do
        a=(); b=()
        for round in $(seq "$rounds"); do a+=("$("$figure" "$out/$what-$round-a")"); b+=("$("$figure" "$out/$what-$round-b")"); done
        ma=$(median "${a[@]}"); mb=$(median "${b[@]}")
        label=$([ "$what" = refresh ] && echo "refresh-token rotation" || echo "GET /$what")
        printf '| %s | %s | %s | %s%% | %s | %s |\n' "$label" "$ma" "$mb" "$(python3 -c "print(f'{$mb/$ma*100:.1f}')")" \
            "$(printf '%.0f ' "${a[@]}")" "$(printf '%.0f ' "${b[@]}")"
    done
}
echo "| measurement | A (median req/s) | B (median req/s) | B / A | per round A | per round B |"
echo "|---|---:|---:|---:|---|---|"
table rps
echo
echo "| server CPU per request | A (median µs) | B (median µs) | B / A | per round A | per round B |"
echo "|---|---:|---:|---:|---|---|"
table per_request
