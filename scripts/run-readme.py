#!/usr/bin/env python3
"""Runs the README's shell blocks, in reading order, as a reader would: so the README cannot drift.

Every ```sh block of README.md runs in one bash session (variables carry from block to block),
in a fresh temporary folder that holds the repository's `scripts/` (a reader runs them from the
clone's root), with `swift run [-q] latchkey …` standing for the already built
`latchkey` binary (LATCHKEY_BIN; the reader's `swift run` would build it first). An HTML comment
on the line before a block says how to run it:

    <!-- readme: terminal -->   the block stays in the foreground in a terminal of its own (a
                                server): it is started in the background here, and the next
                                block runs once http://127.0.0.1:9999/health answers
    <!-- readme: terminal PORT --> the same, for a server on another port
    <!-- readme: terminal PORT PATH --> the same, ready when PATH answers (a server with no /health)
    <!-- readme: skip REASON --> not run here (the test command itself, say), with the reason

A block fails the run when any command in it fails (`set -e`, `pipefail`). Servers started by
`terminal` blocks are stopped at the end. Prints one line per block and, on failure, the block's
output.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEALTH = "http://127.0.0.1:{port}{path}"


def blocks(text: str):
    """(line, directive, code) for each sh block."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].strip() in ("```sh", "```bash", "```shell"):
            directive = ""
            j = i - 1
            while j >= 0 and not lines[j].strip():
                j -= 1
            if j >= 0:
                m = re.match(r"\s*<!--\s*readme:\s*(.*?)\s*-->\s*$", lines[j])
                if m:
                    directive = m.group(1)
            start = i + 1
            end = start
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            yield start, directive, "\n".join(lines[start:end])
            i = end + 1
        else:
            i += 1


def wait_for_health(deadline: float, port: int, path: str = "/health") -> bool:
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(HEALTH.format(port=port, path=path), timeout=2) as response:
                if response.status == 200:
                    return True
        except OSError:
            time.sleep(0.2)
    return False


def main() -> int:
    binary = os.environ.get("LATCHKEY_BIN") or str(ROOT / ".build" / "debug" / "latchkey")
    if not os.access(binary, os.X_OK):
        print(f"run-readme: no latchkey binary at {binary}: build it first (swift build --product latchkey)")
        return 1
    readme = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "README.md"
    work = Path(tempfile.mkdtemp(prefix="readme-run-"))
    home = work / "home"
    home.mkdir()
    (work / "scripts").symlink_to(ROOT / "scripts")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LATCHKEY_", "GOTRUE_"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_STATE_HOME=str(home / ".local/state"),
               XDG_DATA_HOME=str(home / ".local/share"), LATCHKEY_BIN=binary)
    prelude = f"""set -euo pipefail
swift() {{
    if [ "${{1:-}}" = run ] && [ "${{2:-}}" = -q ]; then set -- run "${{@:3}}"; fi
    if [ "${{1:-}}" = run ] && [ "${{2:-}}" = latchkey ]; then shift 2; "$LATCHKEY_BIN" "$@"
    else echo "run-readme: only 'swift run latchkey …' runs here; '$*' is not" >&2; return 1; fi
}}
"""
    servers: list[subprocess.Popen] = []
    state = work / "state.sh"
    state.write_text("")
    try:
        for line, directive, code in blocks(readme.read_text()):
            label = f"README.md:{line}"
            if directive.startswith("skip"):
                print(f"run-readme: {label} skipped ({directive[4:].strip() or 'marked skip'})")
                continue
            if directive.split()[:1] == ["terminal"]:
                port = int(directive.split()[1]) if len(directive.split()) > 1 else 9999
                path = directive.split()[2] if len(directive.split()) > 2 else "/health"
                log = open(work / f"terminal-{line}.log", "wb")
                server = subprocess.Popen(["bash", "-c", prelude + code], cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT,
                                          start_new_session=True)
                servers.append(server)
                if not wait_for_health(time.time() + 120, port, path):
                    print(f"run-readme: {label} FAILED: the server never answered {HEALTH.format(port=port, path=path)}")
                    print((work / f"terminal-{line}.log").read_text(errors="replace")[-3000:])
                    return 1
                print(f"run-readme: {label} ok (in its own terminal: running)")
                continue
            # Blocks share one session: each runs after the previous block's variables are loaded,
            # and leaves its own for the next.
            script = prelude + f"source {state}\n" + code + f"\ndeclare -p > {state}.new 2>/dev/null || true\n"
            try:
                result = subprocess.run(["bash", "-c", script], cwd=work, env=env, capture_output=True, text=True, timeout=300)
            except subprocess.TimeoutExpired:
                print(f"run-readme: {label} FAILED: still running after 300 s (does it need a terminal of its own?)")
                return 1
            if result.returncode != 0:
                print(f"run-readme: {label} FAILED (exit {result.returncode})")
                print(result.stdout[-3000:] + result.stderr[-3000:])
                for log in sorted(work.glob("terminal-*.log")):
                    print(f"run-readme: the end of {log.name}, the server's own terminal:")
                    print(log.read_text(errors="replace")[-3000:])
                return 1
            new_state = Path(f"{state}.new")
            if new_state.exists():
                # Keep plain variables only (readonly and special ones cannot be re-declared).
                kept = [l for l in new_state.read_text().splitlines()
                        if re.match(r"declare -[-x]+ [A-Za-z_][A-Za-z0-9_]*=", l)
                        and not re.match(r"declare -[-x]+ (BASH|SHELL|PWD|OLDPWD|SHLVL|_|HOME|PATH|UID|EUID|PPID|HOSTNAME|TERM|IFS)[=_A-Z]*", l)]
                state.write_text("\n".join(kept) + "\n")
            print(f"run-readme: {label} ok")
        return 0
    finally:
        for server in servers:
            try:
                os.killpg(server.pid, signal.SIGTERM)
                server.wait(timeout=30)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(server.pid, signal.SIGKILL)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
