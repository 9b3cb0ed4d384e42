"""Runs supabase-py's own auth suite against `latchkey serve`, inside a private network namespace.

run.sh starts this with the suite's venv Python under `unshare -rn`, after bringing `lo` up, so
the fixed ports the suite talks to (9999, 9998, 9997, 9996) are this namespace's own and no other
test on the machine can take them, nor can the suite reach anything outside.

Each GoTrue service of the checkout's own src/auth/infra/docker-compose.yml becomes one
`latchkey serve` with that service's environment as written there (so what the suite was written
against is read from the same commit as the suite), except for OVERRIDES, GOTRUE_DEFAULTS and
LATCHKEY_SETTINGS below, each with its reason (printed at the start). The servers are stopped
when this ends, however it ends.

Usage: harness.py AUTH_DIR LATCHKEY_BIN WORK_DIR [pytest arguments...]
AUTH_DIR is the exported src/auth; its tests run against its own client code (src/auth/src).
"""

from __future__ import annotations

import ctypes
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import yaml

# How long one server may take to answer /health. Generous: this runs on loaded CI machines,
# and nothing here waits longer than it must (the wait ends as soon as /health answers).
HEALTH_DEADLINE_SECONDS = 300

# The compose file's environment, changed only where the namespace has no such service.
# Each entry: variable -> (replacement or None to drop it, reason).
OVERRIDES: dict[str, tuple[str | None, str]] = {
    # The compose file's `db` service (PostgreSQL) is not started: every server gets its own
    # temporary SQLite database instead (passed as --database, which wins over DATABASE_URL).
    "DATABASE_URL": (None, "each server gets a temporary SQLite database (--database)"),
    # The compose file's `mail` service (inbucket) is not started. No test in src/auth/tests
    # reads mail (nothing talks to inbucket's API on 9000); the mail the servers send goes to
    # each server's outbox folder (<data dir>/outbox) instead of SMTP host `mail`, which does
    # not resolve in the namespace.
    "GOTRUE_SMTP_HOST": (None, "mail goes to the server's outbox folder (no test reads mail)"),
    "GOTRUE_SMTP_PORT": (None, "mail goes to the server's outbox folder"),
    "GOTRUE_SMTP_USER": (None, "mail goes to the server's outbox folder"),
    "GOTRUE_SMTP_PASS": (None, "mail goes to the server's outbox folder"),
}

# GoTrue defaults the compose file relies on where Latchkey's default differs, set explicitly
# (only where the compose file leaves the variable unset). Each: variable -> (value, reason).
GOTRUE_DEFAULTS: dict[str, tuple[str, str]] = {
    # GoTrue's minimum password length is 6 unless set; Latchkey's is 8. test_update_user sets
    # a 6-character password.
    "GOTRUE_PASSWORD_MIN_LENGTH": ("6", "GoTrue's default (Latchkey's is 8)"),
}


# Latchkey's own settings for this run, which change nothing the suite sees on the wire.
LATCHKEY_SETTINGS: dict[str, tuple[str, str]] = {
    # The hashing threads run at nice 10 so that requests stay responsive; next to a build at
    # nice 0 a cost-10 bcrypt hash then takes seconds, and PUT /user (two hashes) can outlast
    # the client's 5 s timeout. Cost 4 (the lowest) is 64 times less work; hashes are still
    # bcrypt, checked the same way.
    "LATCHKEY_BCRYPT_COST": ("4", "password hashing cannot outlast the client's timeout on a loaded machine"),
}


def die_with_parent() -> None:
    """Makes the child get SIGTERM when this process dies, even by SIGKILL (Linux)."""
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_pdeathsig = 1
    libc.prctl(pr_set_pdeathsig, signal.SIGTERM)


def compose_value(value: object) -> str:
    """A compose environment value as the container sees it (${VAR} from this environment)."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    else:
        text = str(value)
    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", lambda m: os.environ.get(m.group(1), ""), text)


def gotrue_services(compose_file: Path) -> dict[str, dict[str, str]]:
    """The compose file's supabase/auth services and their environments, by service name."""
    compose = yaml.safe_load(compose_file.read_text())
    services = {}
    for name, service in compose["services"].items():
        if not str(service.get("image", "")).startswith("supabase/auth:"):
            continue
        environment = service.get("environment") or {}
        if isinstance(environment, list):
            environment = dict(item.split("=", 1) for item in environment)
        services[name] = {key: compose_value(value) for key, value in environment.items()}
    return services


def wait_for_health(name: str, port: int, process: subprocess.Popen, log: Path) -> None:
    """Polls GET /health until it answers 200; fails if the server exits or the deadline passes."""
    deadline = time.monotonic() + HEALTH_DEADLINE_SECONDS
    url = f"http://127.0.0.1:{port}/health"
    while True:
        if process.poll() is not None:
            sys.stderr.write(log.read_text(errors="replace")[-4000:])
            raise SystemExit(f"harness: {name} (port {port}) exited with {process.returncode} before answering /health")
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            pass
        if time.monotonic() > deadline:
            sys.stderr.write(log.read_text(errors="replace")[-4000:])
            raise SystemExit(f"harness: {name} (port {port}) did not answer /health within {HEALTH_DEADLINE_SECONDS} s")
        time.sleep(0.2)


def main() -> int:
    auth_dir, latchkey, work = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    pytest_args = sys.argv[4:]
    services = gotrue_services(auth_dir / "infra" / "docker-compose.yml")
    if not services:
        raise SystemExit("harness: no supabase/auth service in the compose file")

    for table in (OVERRIDES, GOTRUE_DEFAULTS, LATCHKEY_SETTINGS):
        for key, (value, reason) in table.items():
            print(f"harness: {key}: {'dropped' if value is None else value} ({reason})", flush=True)

    servers: list[tuple[str, int, subprocess.Popen, Path]] = []
    try:
        for name, compose_env in services.items():
            port = int(compose_env["PORT"])
            env = {key: os.environ[key] for key in ("PATH", "HOME", "TMPDIR", "LANG") if key in os.environ}
            for key, value in compose_env.items():
                replacement, _reason = OVERRIDES.get(key, (value, ""))
                if replacement is not None:
                    env[key] = replacement
            for key, (value, _reason) in GOTRUE_DEFAULTS.items():
                env.setdefault(key, value)
            for key, (value, _reason) in LATCHKEY_SETTINGS.items():
                env[key] = value
            data_dir = work / name
            data_dir.mkdir(parents=True)
            log = work / f"{name}.log"
            command = [latchkey, "serve", "--data-dir", str(data_dir), "--database", f"sqlite://{data_dir}/latchkey.sqlite"]
            print(f"harness: {name}: latchkey serve on port {port} (log {log})", flush=True)
            with log.open("wb") as log_file:
                process = subprocess.Popen(command, env=env, stdout=log_file, stderr=subprocess.STDOUT, preexec_fn=die_with_parent)
            servers.append((name, port, process, log))
        for name, port, process, log in servers:
            wait_for_health(name, port, process, log)
        print("harness: every server answers /health; running pytest", flush=True)

        pytest_env = dict(os.environ)
        # The suite tests the client code of its own commit, not an installed release.
        # exact_deselect (beside this file) deselects LATCHKEY_UPSTREAM_DESELECT's ids exactly.
        pytest_env["PYTHONPATH"] = os.pathsep.join([str(auth_dir / "src"), str(Path(__file__).resolve().parent)])
        pytest_env["PYTHONDONTWRITEBYTECODE"] = "1"
        status = subprocess.call([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "exact_deselect", *pytest_args], cwd=auth_dir, env=pytest_env)
        for name, port, process, log in servers:
            if process.poll() is not None:
                print(f"harness: {name} (port {port}) exited with {process.returncode} during the run; its log's end:")
                print(log.read_text(errors="replace")[-4000:])
                status = status or 1
        return status
    finally:
        for _name, _port, process, _log in servers:
            if process.poll() is None:
                process.terminate()
        for _name, _port, process, _log in servers:
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


if __name__ == "__main__":
    sys.exit(main())
