#!/usr/bin/env bash
# The test command (README): runs every test of the package, then the real clients and the README.
#
# 0. Checks that need no build: scripts/check-portability.sh (what a Linux build cannot see of
#    the Apple platforms), scripts/check-tests.sh (no test asserts on elapsed time, binds a
#    fixed or re-bound port, or sleeps before an assertion), and scripts/check-format.sh (swift
#    format lint --strict, .swift-format).
# 1. `swift test`: every Swift test, the main suite in parallel (the server's side, the client
#    library and app flow, the command: one after the other), then the load tests (`*LoadTests`)
#    one at a time. With PostgreSQL's server binaries installed it first starts a
#    throwaway cluster, so the PostgreSQL tests run against a real server; with python3-aiosmtpd the
#    SMTP tests use a real mail server; with gnome-keyring and dbus the tests run inside a private
#    D-Bus session with an unlocked keyring, so the Linux desktop keyring tests run for real.
# 2. Tests/Interop: the real Supabase Python client (pip supabase-auth) against `latchkey serve`.
# 3. Tests/Browser: headless Chromium through the hosted pages of a standalone server.
# 4. Tests/Upstream: the Supabase clients' own suites, unmodified (each run.sh says what it needs).
# 5. scripts/run-readme.py: the README's shell blocks, in order, as a reader runs them.
# Whatever cannot run here is named at the start and again in the summary at the end, with the
# command that installs what it needs. Extra arguments go to `swift test` (one run, as given,
# instead of the main suite and the load tests). LATCHKEY_TEST_SWIFT_ONLY=1 stops after step 1
# (scripts/soak-tests.sh --swift-only). LATCHKEY_TEST_KEEP_GOING=1 runs every phase even after
# one failed, and fails at the end (scripts/soak-tests.sh: every phase is soaked in every run).
set -euo pipefail
cd "$(dirname "$0")/.."

skipped=()
ran=()
note_skip() { skipped+=("$1"); echo "test.sh: SKIPPED: $1"; }

# How long each phase took, for the summary (a phase that grows slow is seen before it flakes).
phases=()
phase_started=$SECONDS
phase_done() { phases+=("$(printf '%5ds  %s' $((SECONDS - phase_started)) "$1")"); phase_started=$SECONDS; }
# Runs one phase's command: a failure ends the run, or with LATCHKEY_TEST_KEEP_GOING=1 is
# recorded and the next phase runs.
failed_phases=()
run_phase() {
    local label=$1 status=0
    shift
    "$@" || status=$?
    [ "$status" = 0 ] && return 0
    if [ "${LATCHKEY_TEST_KEEP_GOING:-0}" = 1 ]; then
        echo "test.sh: FAILED: $label (exit $status); LATCHKEY_TEST_KEEP_GOING=1: the next phase runs"
        failed_phases+=("$label")
        return 0
    fi
    exit "$status"
}
# swift test's output is kept here for the ten slowest tests in the summary.
mkdir -p .build
swift_test_log=.build/swift-test.log

# --- Apple-platform portability (what a Linux build cannot see) -----------------------------
scripts/check-portability.sh
scripts/check-portability-selftest.sh | tail -n 1

# --- Tests that stay green on a loaded machine: no elapsed-time assertion, no fixed or ---------
# --- re-bound port, no sleep before an assertion (scripts/check-tests.allow lists the few) -------
scripts/check-tests.sh
scripts/check-tests-selftest.sh | tail -n 1

# --- Format: swift format lint --strict with .swift-format (Hummingbird's gate) --------------
scripts/check-format.sh

cleanup_steps=()
cleanup() { for step in "${cleanup_steps[@]}"; do eval "$step" || true; done; }
trap cleanup EXIT

# --- PostgreSQL (optional) ---------------------------------------------------------------
if [ -z "${LATCHKEY_TEST_POSTGRES_URL:-}" ] && [ -f scripts/postgres-test-cluster.sh ]; then
    # shellcheck source=/dev/null
    source scripts/postgres-test-cluster.sh
fi
if [ -n "${LATCHKEY_TEST_POSTGRES_URL:-}" ]; then
    echo "test.sh: PostgreSQL tests run against ${LATCHKEY_TEST_POSTGRES_URL%%@*}@…"
else
    note_skip "the PostgreSQL tests (no PostgreSQL server binaries: apt-get install postgresql)"
fi

# --- SMTP server (optional) ---------------------------------------------------------------
if /usr/bin/python3 -c 'import aiosmtpd' >/dev/null 2>&1 || python3 -c 'import aiosmtpd' >/dev/null 2>&1; then
    echo "test.sh: the SMTP tests run against aiosmtpd (python3-aiosmtpd)"
else
    note_skip "the SMTP tests against a real mail server (apt-get install python3-aiosmtpd)"
fi

# --- QR codes checked by an independent decoder and encoder (optional) -----------------------
if command -v python3 >/dev/null 2>&1 && python3 -c 'import zxingcpp, segno' >/dev/null 2>&1; then
    echo "test.sh: the QR code round trip reads codes back with zxing-cpp and compares with segno (Tests/LatchkeyQRCodeTests)"
else
    note_skip "the QR code round trip through an independent decoder and encoder (pip install zxing-cpp==3.1.1 segno==1.6.6)"
fi

# --- Firebase scrypt hashes made by an independent implementation (optional) ----------------------
if command -v python3 >/dev/null 2>&1 && python3 -c 'import firebase_scrypt' >/dev/null 2>&1; then
    echo "test.sh: imported Firebase users sign in with passwords hashed by PyPI's firebase-scrypt"
else
    note_skip "the Firebase import tests against an independent scrypt (pip install firebase-scrypt==0.1.0)"
fi

# --- Supabase import from a GoTrue-shaped database, bcrypt hashes made by PyPI's bcrypt (optional) --
if command -v python3 >/dev/null 2>&1 && python3 -c 'import bcrypt' >/dev/null 2>&1; then
    echo "test.sh: imported Supabase users sign in with passwords hashed by PyPI's bcrypt (needs the PostgreSQL cluster)"
else
    note_skip "the Supabase import tests with independent bcrypt hashes (pip install bcrypt==5.0.0)"
fi

# --- WebAuthn responses made and checked by independent implementations (optional) ----------------
webauthn_python="${LATCHKEY_WEBAUTHN_PYTHON:-/opt/latchkey-peers/webauthn/bin/python3}"
if [ -x "$webauthn_python" ] && "$webauthn_python" -c 'import soft_webauthn, webauthn' >/dev/null 2>&1; then
    echo "test.sh: the WebAuthn core verifies PyPI soft-webauthn's credentials and agrees with py_webauthn (venv $webauthn_python)"
else
    note_skip "the WebAuthn peer tests (python3 -m venv /opt/latchkey-peers/webauthn; its pip install soft-webauthn==0.1.4 webauthn==2.7.1)"
fi

# --- An AI agent signing in with the MCP Python SDK's OAuth client (optional, in Tests/Interop) ----
mcp_python="${LATCHKEY_MCP_PYTHON:-/opt/latchkey-peers/mcp/bin/python3}"
if [ -x "$mcp_python" ] && "$mcp_python" -c 'import mcp.client.auth' >/dev/null 2>&1; then
    echo "test.sh: the MCP Python SDK's OAuth client signs an agent in through the OAuth 2.1 server (venv $mcp_python)"
else
    note_skip "the MCP agent interop test (python3 -m venv /opt/latchkey-peers/mcp; its pip install mcp==2.3.0)"
fi

# --- Supabase client interop (optional; runs after swift test) -----------------------------
if command -v python3 >/dev/null 2>&1 && python3 -c 'import supabase_auth, pytest' >/dev/null 2>&1; then
    interop=1
    echo "test.sh: Supabase client interop runs after swift test (supabase-auth $(python3 -c 'import importlib.metadata as m; print(m.version("supabase-auth"))'), Tests/Interop)"
    if ! python3 -c 'import oidc_provider_mock' >/dev/null 2>&1; then
        note_skip "sign-in with an OpenID provider in the interop tests (pip install oidc-provider-mock==0.3.4)"
    fi
else
    interop=0
    note_skip "the Supabase client interop tests (pip install supabase-auth pytest)"
fi

# --- Hosted pages in a real browser (optional; runs after swift test) ----------------------------
if command -v python3 >/dev/null 2>&1 && python3 -c 'import selenium, pytest' >/dev/null 2>&1 \
    && command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    browser=1
    echo "test.sh: the hosted pages' browser tests run after swift test (headless Chromium, Selenium $(python3 -c 'import selenium; print(selenium.__version__)'), Tests/Browser)"
else
    browser=0
    note_skip "the hosted pages' browser tests (apt-get install chromium chromium-driver; pip install selenium pytest)"
fi

# --- Build (its own phase, so the summary tells building from testing) ----------------------
phase_done "set-up (portability and test checks, PostgreSQL cluster)"
if ! swift build --build-tests > .build/build-tests.log 2>&1; then
    grep -E 'error:' .build/build-tests.log | head -n 40 || true
    tail -n 40 .build/build-tests.log
    exit 1
fi
tail -n 1 .build/build-tests.log
phase_done "swift build --build-tests"

# --- swift test: the main suite in parallel, then the load tests one at a time -------------------
# Suites whose names end in `LoadTests` hold many sockets, make thousands of requests or run for
# a minute; they run after the main suite, serialized, so they never starve the tests beside
# them. Every other test runs in parallel (Swift Testing's default) and must pass whatever runs
# beside it: no test waits on a fixed time, each has its own ports, folders and databases.
# XCTest's per-suite lines ("Executed 0 tests", one per empty XCTest bundle) say nothing here:
# every test is a Swift Testing test, whose own results and summary are kept.
quiet_xctest() { grep --line-buffered -v -E "^(Test Suite '.*' (started|passed|failed) at|	 Executed 0 tests, with 0 failures)" || true; }
load_tests='LoadTests'
: > "$swift_test_log"
# A `swift test` run that goes past its limit is stuck, not slow (each part takes one to three
# minutes): the watchdog prints its threads' stacks (with gdb, when installed) and ends it, so a
# deadlock fails the run in minutes, with the evidence, instead of at CI's time limit.
part_limit=${LATCHKEY_TEST_PART_LIMIT:-900}
watchdog_flag=.build/watchdog-fired
start_watchdog() {
    rm -f "$watchdog_flag"
    (
        deadline=$(($(date +%s) + part_limit))
        while [ "$(date +%s)" -lt "$deadline" ]; do sleep 2; done
        touch "$watchdog_flag"
        # Until the run is over (stop_watchdog): swift test starts the test binary once for
        # XCTest and once for Swift Testing, so each process it starts now is ended too.
        while true; do
            for pid in $(pgrep -f "$PWD/.build/.*/LatchkeyPackageTests.xctest" || true); do
                echo "test.sh: WATCHDOG: swift test ran past ${part_limit}s; the threads of process $pid:"
                if command -v gdb >/dev/null 2>&1; then
                    gdb -batch -ex 'thread apply all bt' -p "$pid" 2>/dev/null | grep -E '^(Thread |#[0-9])' | head -n 600 || true
                fi
                kill -KILL "$pid" 2>/dev/null || true
            done
            sleep 1
        done
    ) &
    watchdog_pid=$!
}
stop_watchdog() {
    [ -n "${watchdog_pid:-}" ] || return 0
    kill "$watchdog_pid" 2>/dev/null || true
    wait "$watchdog_pid" 2>/dev/null || true
    watchdog_pid=
}
cleanup_steps+=("stop_watchdog")
swift_test() {
    start_watchdog
    local status=0
    swift_test_unwatched "$@" || status=$?
    stop_watchdog
    if [ -f "$watchdog_flag" ]; then
        echo "test.sh: FAILED: swift test $* was stopped after ${part_limit}s (LATCHKEY_TEST_PART_LIMIT); its threads are above"
        return 1
    fi
    return $status
}
swift_test_unwatched() {
    if [ "${keyring:-0}" = 1 ]; then
        # Inside a private D-Bus session with an unlocked keyring, kept in a fresh folder so a
        # keyring left on this machine with another password (or locked) cannot change what the
        # tests see.
        dbus-run-session -- bash -c 'echo -n "latchkey-test" | XDG_DATA_HOME="$LATCHKEY_TEST_KEYRING_HOME" gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; export LATCHKEY_TEST_KEYRING=1; swift test "$@"' bash "$@"
    else
        swift test "$@"
    fi 2>&1 | quiet_xctest | tee -a "$swift_test_log"
}
if command -v dbus-run-session >/dev/null 2>&1 && command -v gnome-keyring-daemon >/dev/null 2>&1; then
    echo "test.sh: swift test runs inside a private D-Bus session with an unlocked gnome-keyring"
    keyring=1
    keyring_home=$(mktemp -d)
    cleanup_steps+=("rm -rf '$keyring_home'")
    export LATCHKEY_TEST_KEYRING_HOME="$keyring_home"
else
    keyring=0
    note_skip "the desktop keyring tests (apt-get install gnome-keyring dbus dbus-x11 libsecret-1-0)"
fi
if [ $# -gt 0 ]; then
    # Arguments (a --filter, say) go to one swift test run as given.
    swift_test "$@"
    ran+=("swift test $*")
    phase_done "swift test $*"
else
    # The main suite in three parts, each in parallel: the server's side (dozens of servers,
    # PostgreSQL pools, SMTP and identity-provider peers), the client library and app-flow
    # models, and the `latchkey` command (every test spawns processes). All together in one
    # process on two cores they starved each other past every timeout.
    parts=(
        "server side|^(LatchkeyServerTests|LatchkeyWireTests|LatchkeyQRCodeTests|LatchkeyTestingTests)\\."
        "client library and app flow|^(LatchkeyTests|LatchkeyAppFlowTests)\\."
        "the latchkey command|^LatchkeyCommandTests\\."
    )
    for part in "${parts[@]}"; do
        echo "test.sh: swift test: the main suite, ${part%%|*}, in parallel (every suite but *$load_tests)"
        run_phase "swift test: main suite, ${part%%|*}" swift_test --filter "${part#*|}" --skip "$load_tests"
        phase_done "swift test: main suite, ${part%%|*} (parallel)"
    done
    echo "test.sh: swift test: the load tests, one at a time (*$load_tests)"
    run_phase "swift test: load tests" swift_test --no-parallel --filter "$load_tests"
    phase_done "swift test: load tests (serialized)"
    ran+=("swift test (main suite in parallel, in three parts; then the load tests)")
fi
if [ "${LATCHKEY_TEST_SWIFT_ONLY:-0}" = 1 ]; then interop=0; browser=0; fi

# --- The Python suites and the README run the latchkey binary --------------------------------
if ! build_log=$(swift build --product latchkey 2>&1); then
    echo "$build_log" | tail -n 30
    exit 1
fi
export LATCHKEY_BIN="$PWD/.build/debug/latchkey"

# --- Supabase client interop: the real Python client against `latchkey serve` ----------------
if [ "$interop" = 1 ]; then
    echo "test.sh: interop: the Supabase Python client against .build/debug/latchkey"
    run_phase "Tests/Interop" python3 -m pytest Tests/Interop -q -p no:cacheprovider
    ran+=("Tests/Interop (supabase-auth)")
    phase_done "Tests/Interop"
fi

# --- Hosted pages: Chromium follows the mailed links of a standalone `latchkey serve` ----------
if [ "$browser" = 1 ]; then
    echo "test.sh: browser: headless Chromium against .build/debug/latchkey (screenshots in .build/browser-screenshots)"
    run_phase "Tests/Browser" env LATCHKEY_SCREENSHOTS="$PWD/.build/browser-screenshots" python3 -m pytest Tests/Browser -q -p no:cacheprovider
    ran+=("Tests/Browser (Chromium)")
    phase_done "Tests/Browser"
fi

# --- The Supabase clients' own test suites, unmodified, against `latchkey serve` --------------
# Each Tests/Upstream/<suite>/run.sh runs one upstream suite from its source checkout (a
# directory it names) in a private network namespace, so the suite's fixed ports are its own.
# A run.sh that cannot run here exits 77 after printing why on its last line (a skip, named in the
# summary); any other non-zero exit is a failure.
for upstream_run in Tests/Upstream/*/run.sh; do
    [ -f "$upstream_run" ] || continue
    upstream_suite=$(basename "$(dirname "$upstream_run")")
    echo "test.sh: upstream: $upstream_suite's own suite against .build/debug/latchkey ($upstream_run)"
    upstream_status=0
    bash "$upstream_run" 2>&1 | tee ".build/upstream-$upstream_suite.log" || upstream_status=$?
    if [ "$upstream_status" = 77 ]; then
        note_skip "$upstream_suite's own suite: $(tail -n 1 ".build/upstream-$upstream_suite.log")"
    else
        run_phase "Tests/Upstream/$upstream_suite" test "$upstream_status" = 0
        ran+=("Tests/Upstream/$upstream_suite ($upstream_suite's own suite)")
    fi
    phase_done "Tests/Upstream/$upstream_suite"
done

# --- The README's shell blocks, in reading order --------------------------------------------
if [ "${LATCHKEY_TEST_SWIFT_ONLY:-0}" = 1 ]; then
    echo "test.sh: LATCHKEY_TEST_SWIFT_ONLY=1: the Python suites and the README are not run"
elif command -v python3 >/dev/null 2>&1 && command -v curl >/dev/null 2>&1; then
    echo "test.sh: README: running its shell blocks in order (scripts/run-readme.py)"
    run_phase "README.md's shell blocks" python3 scripts/run-readme.py
    ran+=("README.md's shell blocks")
    phase_done "README.md's shell blocks"
else
    note_skip "running the README's shell blocks (needs python3 and curl)"
fi

echo
echo "test.sh: time per phase:"
printf '  %s\n' "${phases[@]}"
echo "test.sh: the ten slowest Swift tests (swift test's own timings; in the parallel phase they include time spent waiting for a core):"
# Swift Testing prints `✔ Test "name" passed after 1.234 seconds.` for each test (suites too,
# which are left out: their time is their tests').
grep -E '^[^ ]+ Test .* (passed|failed) after [0-9.]+ seconds' "$swift_test_log" | grep -v -E '^[^ ]+ Test run with ' \
    | sed -E 's/^[^ ]+ Test (.*) (passed|failed) after ([0-9.]+) seconds.*/\3\t\1/' \
    | sort -t "$(printf '\t')" -k1,1 -rn | head -n 10 \
    | awk -F '\t' '{ printf "  %8.1fs  %s\n", $1, $2 }' || true
echo "test.sh: $([ ${#failed_phases[@]} -gt 0 ] && echo "ran (see FAILED phases below)" || echo passed): $(IFS=,; echo "${ran[*]}" | sed 's/,/, /g')"
if [ ${#skipped[@]} -gt 0 ]; then
    echo "test.sh: skipped, because this machine lacks what they need:"
    for item in "${skipped[@]}"; do echo "  - $item"; done
else
    echo "test.sh: nothing skipped"
fi
if [ ${#failed_phases[@]} -gt 0 ]; then
    echo "test.sh: FAILED phases:"
    printf '  - %s\n' "${failed_phases[@]}"
    exit 1
fi
