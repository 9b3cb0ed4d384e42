#!/usr/bin/env bash
# The test command (README): runs every test of the package.
#
# When PostgreSQL's server binaries are installed it starts a throwaway cluster so that the
# PostgreSQL tests run against a real server; when gnome-keyring and dbus are installed it runs
# the tests inside a private D-Bus session with an unlocked keyring so the Linux desktop keyring
# tests run for real. Without them those tests are skipped, and the output says so.
set -euo pipefail
cd "$(dirname "$0")/.."

# --- Apple-platform portability (what a Linux build cannot see) -----------------------------
scripts/check-portability.sh
scripts/check-portability-selftest.sh | tail -n 1

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
    echo "test.sh: PostgreSQL not available: the PostgreSQL tests are SKIPPED (apt-get install postgresql to run them)"
fi

# --- SMTP server (optional) ---------------------------------------------------------------
if /usr/bin/python3 -c 'import aiosmtpd' >/dev/null 2>&1 || python3 -c 'import aiosmtpd' >/dev/null 2>&1; then
    echo "test.sh: the SMTP tests run against aiosmtpd (python3-aiosmtpd)"
else
    echo "test.sh: python3-aiosmtpd not installed: the SMTP tests against a real server are SKIPPED (apt-get install python3-aiosmtpd)"
fi

# --- Supabase client interop (optional; runs after swift test) -----------------------------
if command -v python3 >/dev/null 2>&1 && python3 -c 'import supabase_auth, pytest' >/dev/null 2>&1; then
    interop=1
    echo "test.sh: Supabase client interop runs after swift test (supabase-auth $(python3 -c 'import importlib.metadata as m; print(m.version("supabase-auth"))'), Tests/Interop)"
else
    interop=0
    echo "test.sh: python3 with supabase_auth and pytest not available: the Supabase client interop tests are SKIPPED (pip install supabase-auth pytest to run them)"
fi

# --- Hosted pages in a real browser (optional; runs after swift test) ----------------------------
if command -v python3 >/dev/null 2>&1 && python3 -c 'import selenium, pytest' >/dev/null 2>&1 \
    && command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    browser=1
    echo "test.sh: the hosted pages' browser tests run after swift test (headless Chromium, Selenium $(python3 -c 'import selenium; print(selenium.__version__)'), Tests/Browser)"
else
    browser=0
    echo "test.sh: chromium, chromedriver or python3 with selenium and pytest not available: the browser tests of the hosted pages are SKIPPED (apt-get install chromium chromium-driver; pip install selenium pytest)"
fi

# --- Linux desktop keyring (optional) -----------------------------------------------------
if command -v dbus-run-session >/dev/null 2>&1 && command -v gnome-keyring-daemon >/dev/null 2>&1; then
    echo "test.sh: running inside a private D-Bus session with an unlocked gnome-keyring"
    # The daemon keeps its keyrings in a fresh folder, so a keyring left on this machine with
    # another password (or locked) cannot change what the tests see.
    keyring_home=$(mktemp -d)
    cleanup_steps+=("rm -rf '$keyring_home'")
    export LATCHKEY_TEST_KEYRING_HOME="$keyring_home"
    exec_wrapper=(dbus-run-session -- bash -c 'echo -n "latchkey-test" | XDG_DATA_HOME="$LATCHKEY_TEST_KEYRING_HOME" gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; export LATCHKEY_TEST_KEYRING=1; swift test "$@"' bash)
    "${exec_wrapper[@]}" "$@"
else
    echo "test.sh: no dbus-run-session/gnome-keyring-daemon: the desktop keyring tests are SKIPPED"
    swift test "$@"
fi

# --- The Python suites run the latchkey binary -------------------------------------------------
if [ "$interop" = 1 ] || [ "$browser" = 1 ]; then
    if ! build_log=$(swift build --product latchkey 2>&1); then
        echo "$build_log" | tail -n 30
        exit 1
    fi
fi

# --- Supabase client interop: the real Python client against `latchkey serve` ----------------
if [ "$interop" = 1 ]; then
    echo "test.sh: interop: the Supabase Python client against .build/debug/latchkey"
    LATCHKEY_BIN="$PWD/.build/debug/latchkey" python3 -m pytest Tests/Interop -q -p no:cacheprovider
fi

# --- Hosted pages: Chromium follows the mailed links of a standalone `latchkey serve` ----------
if [ "$browser" = 1 ]; then
    echo "test.sh: browser: headless Chromium against .build/debug/latchkey (screenshots in .build/browser-screenshots)"
    LATCHKEY_BIN="$PWD/.build/debug/latchkey" LATCHKEY_SCREENSHOTS="$PWD/.build/browser-screenshots" \
        python3 -m pytest Tests/Browser -q -p no:cacheprovider
fi
