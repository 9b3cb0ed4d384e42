#!/usr/bin/env bash
# supabase-py's own auth tests (src/auth/tests, _async and _sync), unmodified, against
# `latchkey serve` ($LATCHKEY_BIN, default .build/debug/latchkey), in a private network
# namespace (`unshare -rn`) where the suite's fixed ports (9999, 9998, 9997, 9996) are its own.
#
# Source: src/auth of supabase/supabase-py at $pinned, exported with `git archive` from
# $LATCHKEY_SUPABASE_PY_CHECKOUT (a clone or bare git directory) or this machine's mirror.
# Python: the venv $LATCHKEY_SUPABASE_PY_VENV (default /opt/latchkey-peers/supabase-py, made by
# .ci/run). The tests import the client code of the same commit (src/auth/src), not a release.
# Exit: pytest's status; 77 (with the reason on the last line) when this machine lacks a piece.
# Extra arguments go to pytest (e.g. `-k oauth`). See README.md beside this file.
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=Tests/Upstream/supabase-py
pinned=602765fbdf9e471a3241f44a479c1cfff1a8fe65
mirror=/work/.mirror/supabase+supabase-py/repo
venv=${LATCHKEY_SUPABASE_PY_VENV:-/opt/latchkey-peers/supabase-py}
latchkey=${LATCHKEY_BIN:-$PWD/.build/debug/latchkey}

cannot_run() { echo "$here/run.sh: cannot run here: $*"; exit 77; }

# Tests left out, each with the reason (everything else in src/auth/tests runs).
deselect=(
    # Signs up on the 9999 server, then confirms the address through the 9998 server's admin
    # API: the compose file's four servers share one PostgreSQL database, here each server has
    # its own SQLite database, so 9998 answers 404 user_not_found.
    tests/_async/test_gotrue_admin_api.py::test_modify_confirm_email_using_update_user_by_id
    tests/_sync/test_gotrue_admin_api.py::test_modify_confirm_email_using_update_user_by_id
    # Resends a code to +112345678, which has no account, as tests/_async's copy did shortly
    # before: Latchkey limits resends to a number without an account as it limits them to one
    # with an account (one a minute, so the 429 tells no one which numbers have accounts);
    # GoTrue answers 200 for a number without an account every time. The _async copy runs.
    tests/_sync/test_gotrue_admin_api.py::test_resend
)

# --- The suite's source, at the pinned commit --------------------------------------------------
source_git=""
for candidate in "${LATCHKEY_SUPABASE_PY_CHECKOUT:-}" "$mirror"; do
    [ -n "$candidate" ] && [ -e "$candidate" ] || continue
    if git -C "$candidate" cat-file -e "$pinned^{commit}" 2>/dev/null; then
        source_git=$candidate
        break
    fi
    echo "$here/run.sh: $candidate has no commit $pinned"
done
[ -n "$source_git" ] || cannot_run "no supabase-py checkout with commit ${pinned:0:7} (set LATCHKEY_SUPABASE_PY_CHECKOUT to a clone of github.com/supabase/supabase-py)"

# --- Python with what the suite imports -------------------------------------------------------
python=$venv/bin/python
if ! "$python" -c 'import pytest, pytest_asyncio, pytest_mock, faker, respx, pyotp, jwt, httpx, h2, pydantic, yaml' 2>/dev/null; then
    cannot_run "no venv with the suite's packages at $venv (.ci/run makes it; or set LATCHKEY_SUPABASE_PY_VENV)"
fi

# --- A private network namespace ---------------------------------------------------------------
command -v unshare >/dev/null 2>&1 && command -v ip >/dev/null 2>&1 \
    || cannot_run "needs unshare (util-linux) and ip (iproute2)"
unshare -rn sh -c 'ip link set lo up' 2>/dev/null \
    || cannot_run "unshare -rn is refused (unprivileged user and network namespaces are off)"

if [ ! -x "$latchkey" ]; then
    echo "$here/run.sh: no latchkey binary at $latchkey (swift build --product latchkey, or set LATCHKEY_BIN)" >&2
    exit 2
fi
latchkey=$(cd "$(dirname "$latchkey")" && pwd)/$(basename "$latchkey")

work=$(mktemp -d "${TMPDIR:-/tmp}/latchkey-supabase-py.XXXXXX")
trap 'rm -rf "$work"' EXIT
git -C "$source_git" archive "$pinned" src/auth | tar -x -C "$work"
mkdir "$work/servers"

echo "$here/run.sh: supabase-py src/auth/tests at ${pinned:0:7} (from $source_git) against $latchkey; ${#deselect[@]} tests deselected (reasons in $here/run.sh)"
# Exact ids (pytest's own --deselect takes prefixes): see exact_deselect.py.
LATCHKEY_UPSTREAM_DESELECT=$(printf '%s\n' "${deselect[@]}")
export LATCHKEY_UPSTREAM_DESELECT
status=0
unshare -rn sh -c 'ip link set lo up && exec "$@"' sh \
    "$python" "$PWD/$here/harness.py" "$work/src/auth" "$latchkey" "$work/servers" tests -q -rfE "$@" || status=$?
exit "$status"
