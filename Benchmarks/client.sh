#!/usr/bin/env bash
# Client benchmark (issue 3): restore() p50/p99 with a valid stored session (no network) and
# with an expired access token (one loopback refresh to the in-process server), and how many
# refresh requests reach the server for 1,000 concurrent session(minTTL:) callers.
#
# Usage: Benchmarks/client.sh [iterations]        (default 1000; the expired case runs n/4)
# Environment: LATCHKEY_BENCH_CONFIGURATION=debug to skip the release build (faster, slower code).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
configuration=${LATCHKEY_BENCH_CONFIGURATION:-release}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
flags=()
if [ "$configuration" = release ]; then
    # The test target uses @testable imports, which a release build allows only with this flag.
    flags=(-c release -Xswiftc -enable-testing --scratch-path "${LATCHKEY_BENCH_SCRATCH:-$root/.build-release-tests}")
fi
cd "$root"
LATCHKEY_BENCHMARK=1 LATCHKEY_BENCHMARK_ITERATIONS="${1:-1000}" LATCHKEY_BENCHMARK_OUTPUT="$out" \
    swift test "${flags[@]}" --filter ClientBenchmarks >/dev/null 2>&1 || {
        echo "benchmark run failed; rerun: LATCHKEY_BENCHMARK=1 swift test --filter ClientBenchmarks" >&2
        exit 1
    }
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //'), $configuration build"
cat "$out"
