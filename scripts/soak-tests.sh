#!/usr/bin/env bash
# Runs the whole test command N times in one fresh clone and prints each run's failures: the proof
# that the suite is green every time, not once.
#
#   scripts/soak-tests.sh [N] [--swift-only] [--load] [--keep]
#
# N             runs (default 5). The clone is built once; every run then runs the test command.
# --swift-only  each run is the `swift test` part of the test command only (the main suite in
#               parallel, then the load tests), not the Python suites and the README.
# --load        keeps one core busy with a second build of the package (in its own scratch
#               folder, rebuilt from clean in a loop) for as long as the runs last, as a shared
#               CI machine would be.
# --keep        keeps the clone and the logs (in /tmp/latchkey-soak-*) instead of removing the
#               clone at the end.
#
# Every phase of the test command runs in every run, also after one failed
# (LATCHKEY_TEST_KEEP_GOING=1), so a failure early in a run does not hide the later phases.
# The clone is of the committed HEAD (uncommitted changes are not soaked). No run is retried: a
# test that fails once is a failure. Exits non-zero when any run failed.
set -uo pipefail
cd "$(dirname "$0")/.."

runs=5
swift_only=0
load=0
keep=0
for argument in "$@"; do
    case "$argument" in
        --swift-only) swift_only=1 ;;
        --load) load=1 ;;
        --keep) keep=1 ;;
        ''|*[!0-9]*) echo "usage: scripts/soak-tests.sh [N] [--swift-only] [--load] [--keep]" >&2; exit 2 ;;
        *) runs=$argument ;;
    esac
done

work=$(mktemp -d /tmp/latchkey-soak-XXXXXX)
clone="$work/clone"
git clone -q . "$clone" || exit 1
echo "soak: $runs run(s) of $( [ $swift_only = 1 ] && echo 'scripts/test.sh (swift test only)' || echo 'scripts/test.sh' ) in $clone ($(git -C "$clone" log -1 --format='%h %s' | cut -c1-72))"

load_pid=
stop_load() {
    if [ -n "$load_pid" ]; then
        kill -- -"$load_pid" 2>/dev/null || kill "$load_pid" 2>/dev/null
        wait "$load_pid" 2>/dev/null
        load_pid=
    fi
}
finish() {
    stop_load
    if [ "$keep" = 0 ]; then rm -rf "$clone" "$work/load"; fi
}
trap finish EXIT

if ! (cd "$clone" && swift build --build-tests > "$work/build.log" 2>&1); then
    echo "soak: the build failed:"
    tail -n 40 "$work/build.log"
    exit 1
fi
echo "soak: built"

if [ "$load" = 1 ]; then
    # A second build of the same package from clean, over and over, on one core.
    git clone -q . "$work/load"
    set -m
    (cd "$work/load" && while true; do rm -rf .build-soak-load; swift build -j 1 --scratch-path .build-soak-load >/dev/null 2>&1; done) &
    load_pid=$!
    set +m
    echo "soak: loading the machine with a second build (pid $load_pid)"
fi

failed_runs=0
summary=()
for run in $(seq 1 "$runs"); do
    log="$work/run-$run.log"
    started=$SECONDS
    if [ "$swift_only" = 1 ]; then
        (cd "$clone" && LATCHKEY_TEST_KEEP_GOING=1 LATCHKEY_TEST_SWIFT_ONLY=1 scripts/test.sh) > "$log" 2>&1
    else
        (cd "$clone" && LATCHKEY_TEST_KEEP_GOING=1 scripts/test.sh) > "$log" 2>&1
    fi
    status=$?
    took=$((SECONDS - started))
    # Swift Testing's failed tests and issues, XCTest's, pytest's, and the README runner's.
    # (Swift Testing marks a failed test or issue with ✘; a test's name may say "failed".)
    failures=$(grep -E '^✘ Test .*(failed after|recorded an issue)|error: .*XCTAssert|^FAILED |^ERROR |run-readme: .*(FAILED|failed)' "$log" | sort -u)
    if [ "$status" = 0 ] && [ -z "$failures" ]; then
        summary+=("run $run: passed in ${took}s")
    else
        failed_runs=$((failed_runs + 1))
        summary+=("run $run: FAILED (exit $status) in ${took}s — log: $log")
        keep=1
    fi
    echo "soak: ${summary[-1]}"
    if [ -n "$failures" ]; then echo "$failures" | head -n 30 | sed 's/^/    /'; fi
done
stop_load

echo
echo "soak: $((runs - failed_runs)) of $runs run(s) passed"
printf '  %s\n' "${summary[@]}"
if [ "$keep" = 1 ]; then echo "soak: logs and clone kept in $work"; fi
[ "$failed_runs" = 0 ]
