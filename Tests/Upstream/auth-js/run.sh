#!/usr/bin/env bash
# auth-js's own test suite (supabase/supabase-js, packages/core/auth-js/test), unmodified, against
# `latchkey serve` configured as the suite's servers (its Supabase CLI project and compose file),
# in a private network namespace (in-namespace.sh). See README.md beside this file. Exit 0: passed; 77: cannot run here (why: the last line);
# anything else: failed.
#   LATCHKEY_BIN            the latchkey binary (default: .build/debug/latchkey)
#   LATCHKEY_AUTHJS_MIRROR  a git directory holding supabase-js's commit below
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${LATCHKEY_BIN:-$PWD/.build/debug/latchkey}
mirror=${LATCHKEY_AUTHJS_MIRROR:-/work/.mirror/supabase+supabase-js/repo}
# supabase-js at the commit the suite was last run with.
commit=381bded5ced48c4621830576bf8cbecc34edc85c

cannot_run() { echo "auth-js: cannot run here: $*"; exit 77; }

[ -x "$bin" ] || cannot_run "no latchkey binary at $bin (swift build --product latchkey)"
git -C "$mirror" cat-file -e "$commit^{commit}" 2>/dev/null \
    || cannot_run "no supabase-js checkout holding commit $commit (LATCHKEY_AUTHJS_MIRROR=$mirror)"
command -v node >/dev/null || cannot_run "no node (nodejs)"
[ -f /usr/share/nodejs/jest/bin/jest.js ] || cannot_run "no Debian jest (apt-get install jest; see .ci/run)"
command -v esbuild >/dev/null || cannot_run "no esbuild (apt-get install esbuild)"
command -v unshare >/dev/null && command -v ip >/dev/null || cannot_run "no unshare or ip (util-linux, iproute2)"
unshare -rn true 2>/dev/null || cannot_run "unshare -rn (a private network namespace) is not permitted here"

work=$(mktemp -d "${TMPDIR:-/tmp}/latchkey-auth-js.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The suite and auth-js's sources as committed, untouched.
git -C "$mirror" archive "$commit" packages/core/auth-js | tar -x -C "$work"
suite="$work/packages/core/auth-js"
# The test signing key, made as upstream's CI makes it (test:generate-keys): an RSA key the
# suite's clients sign their API keys with and the server verifies (GOTRUE_JWT_KEYS).
(cd "$suite" && node test/generate-signing-keys.js >/dev/null)
# The two test-data helpers the suite imports that Debian does not package: stand-ins (README.md).
mkdir -p "$suite/node_modules"
cp -R "$here/stand-ins/." "$suite/node_modules/"
# Tests written for Latchkey with auth-js's client (README.md), beside the suite's test/.
cp -R "$here/latchkey-tests" "$suite/latchkey-tests"

export LATCHKEY_BIN="$bin" LATCHKEY_AUTHJS_DIR="$suite" LATCHKEY_AUTHJS_WORK="$work"
status=0
unshare -rn bash "$here/in-namespace.sh" "$@" || status=$?
exit "$status"
