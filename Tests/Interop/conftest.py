"""Fixtures for the interop suite: real `latchkey serve` processes and the real Supabase client.

The suite builds nothing. It runs the binary named by LATCHKEY_BIN (scripts/test.sh sets it to
.build/debug/latchkey after `swift build`), falling back to that path when the variable is unset.

Two servers run for the whole session, each on its own free port and temporary data directory:
`autoconfirm` (sign-ups get a session at once) and `confirming` (sign-ups get a confirmation
email, written as an .eml file into <data-dir>/outbox/). Everything waits on conditions (the
/health answer, a mail file appearing), never on fixed sleeps, with generous deadlines so a
loaded CI machine does not make the suite flaky.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from supabase_auth import SyncGoTrueClient

# The helpers shared with Tests/Browser: `latchkey serve` processes and their mail outbox.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
from latchkey_process import (  # noqa: E402
    REPO_ROOT,
    Mail,
    Outbox,
    free_port,
    latchkey_binary,
    start_latchkey,
    unique_email,
)

__all__ = ["Mail", "Outbox", "REPO_ROOT", "free_port", "unique_email"]

HTTP_TIMEOUT = 60.0  # seconds per request (bcrypt on a loaded machine)
PASSWORD = "correct horse battery staple"
# The servers here stand for a Supabase project with an app: links land on the app's site URL
# with the session in the fragment (without a site URL, a standalone server shows its own pages).
SITE_URL = "http://localhost:3000"


def _latchkey_binary() -> Path:
    path = latchkey_binary()
    if path is None:
        pytest.exit(
            f"latchkey binary not found at {os.environ.get('LATCHKEY_BIN') or REPO_ROOT / '.build/debug/latchkey'}: "
            "build it (swift build --product latchkey) and set LATCHKEY_BIN",
            returncode=2,
        )
    return path


@dataclass
class Server:
    url: str
    data_dir: Path
    anon_key: str
    service_role_key: str
    outbox: Outbox
    autoconfirm: bool
    process: subprocess.Popen
    log_path: Path

    @property
    def auth_url(self) -> str:
        """What supabase-py hands the auth client: the project URL plus /auth/v1."""
        return f"{self.url}/auth/v1"

    @property
    def jwt_secret(self) -> str:
        return (self.data_dir / "jwt-secret").read_text().strip()

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def _start_server(
    binary: Path, root: Path, *, autoconfirm: bool, name: str | None = None, extra_args: tuple[str, ...] = (),
    extra_env: dict[str, str] | None = None,
) -> Server:
    name = name or ("autoconfirm" if autoconfirm else "confirming")
    # One client IP makes every request here: lift the per-IP sign-in, verification and MFA
    # limits so the suite's ~100 sign-ins, ~30 verifications and MFA calls cannot trip them.
    # The per-address email limit stays at its default (one test checks it).
    args = [
        "--rate-limit-signin", "100000", "--rate-limit-verify", "100000", "--rate-limit-mfa", "100000",
        "--enable-anonymous-users", "--site-url", SITE_URL,
    ]
    if autoconfirm:
        args.append("--autoconfirm")
    args.extend(extra_args)
    started = start_latchkey(binary, root, name, args, extra_env)
    env = {k: v for k, v in os.environ.items() if k != "LATCHKEY_JWT_SECRET"}
    keys = subprocess.run(
        [str(binary), "keys", "--data-dir", str(started.data_dir), "--external-url", started.url],
        capture_output=True, text=True, timeout=120, env=env, check=True,
    ).stdout
    anon = re.search(r"^anon key:\s+(\S+)", keys, re.M)
    service = re.search(r"^service_role key:\s+(\S+)", keys, re.M)
    assert anon and service, f"unexpected `latchkey keys` output:\n{keys}"
    return Server(
        url=started.url, data_dir=started.data_dir, anon_key=anon.group(1), service_role_key=service.group(1),
        outbox=Outbox(started.data_dir / "outbox"), autoconfirm=autoconfirm, process=started.process, log_path=started.log_path,
    )


def _stop_server(server: Server) -> None:
    if server.process.poll() is None:
        server.process.terminate()
        try:
            server.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait(timeout=30)


@pytest.fixture(scope="session")
def latchkey_bin() -> Path:
    return _latchkey_binary()


@pytest.fixture(scope="session")
def _server_root() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="latchkey-interop-"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def autoconfirm_server(latchkey_bin: Path, _server_root: Path) -> Iterator[Server]:
    server = _start_server(latchkey_bin, _server_root, autoconfirm=True)
    yield server
    _stop_server(server)


@pytest.fixture(scope="session")
def confirming_server(latchkey_bin: Path, _server_root: Path) -> Iterator[Server]:
    server = _start_server(latchkey_bin, _server_root, autoconfirm=False)
    yield server
    _stop_server(server)


@dataclass
class KeyedServer:
    """A server signing with an asymmetric key (`--jwt-keys-file`), and that key's public part."""

    server: Server
    kid: str
    jwk: dict


@pytest.fixture(scope="session")
def es256_server(latchkey_bin: Path, _server_root: Path) -> Iterator[KeyedServer]:
    """An autoconfirm server whose access tokens are signed with a new ES256 key made by
    `latchkey keys generate` (its legacy secret still signs the API keys)."""
    generated = subprocess.run(
        [str(latchkey_bin), "keys", "generate", "--alg", "ES256"], capture_output=True, text=True, timeout=120, check=True
    ).stdout.strip()
    jwk = json.loads(generated)
    keys_file = _server_root / "es256-jwt-keys.json"
    keys_file.write_text(f"[{generated}]")
    keys_file.chmod(0o600)
    server = _start_server(latchkey_bin, _server_root, autoconfirm=True, name="es256", extra_args=("--jwt-keys-file", str(keys_file)))
    public = {k: v for k, v in jwk.items() if k not in ("d",)}
    yield KeyedServer(server=server, kid=jwk["kid"], jwk=public)
    _stop_server(server)


@pytest.fixture(scope="session")
def rules_server(latchkey_bin: Path, _server_root: Path) -> Iterator[Server]:
    """An autoconfirm server whose new passwords need a lowercase letter, a capital and a digit
    (GoTrue's GOTRUE_PASSWORD_REQUIRED_CHARACTERS, given as GoTrue's environment)."""
    server = _start_server(
        latchkey_bin, _server_root, autoconfirm=True, name="password-rules",
        extra_env={"GOTRUE_PASSWORD_REQUIRED_CHARACTERS": "abcdefghijklmnopqrstuvwxyz:ABCDEFGHIJKLMNOPQRSTUVWXYZ:0123456789"},
    )
    yield server
    _stop_server(server)


class ClientFactory:
    """Makes SyncGoTrueClient instances the way supabase-py's create_client does.

    supabase-py passes `{project}/auth/v1`, the headers `apiKey` and `Authorization: Bearer
    <key>`, and its ClientOptions (here: auto_refresh_token off, so no background timers, and
    an httpx client with the auth client's own settings but a longer timeout for loaded CI
    machines — supabase-py's `ClientOptions.httpx_client` is the same hook). Everything else is
    the client's default: persisted in-memory storage, implicit flow unless asked for PKCE.
    """

    def __init__(self) -> None:
        self._made: list[SyncGoTrueClient] = []

    def __call__(self, server: Server, *, key: str | None = None, flow_type: str = "implicit") -> SyncGoTrueClient:
        api_key = key or server.anon_key
        client = SyncGoTrueClient(
            url=server.auth_url,
            headers={"apiKey": api_key, "Authorization": f"Bearer {api_key}"},
            auto_refresh_token=False,
            flow_type=flow_type,  # type: ignore[arg-type]
            http_client=httpx.Client(follow_redirects=True, http2=True, timeout=HTTP_TIMEOUT),
        )
        self._made.append(client)
        return client

    def close(self) -> None:
        for client in self._made:
            client.close()


@pytest.fixture
def make_client() -> Iterator[ClientFactory]:
    factory = ClientFactory()
    yield factory
    factory.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """On a failure, show the end of the servers' logs next to the assertion."""
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed and not hasattr(report, "wasxfail"):
        for name in ("autoconfirm_server", "confirming_server", "es256_server", "passkey_server"):
            server = item.funcargs.get(name)
            if isinstance(server, KeyedServer):
                server = server.server
            if isinstance(server, Server):
                report.sections.append((f"{name} log (tail)", server.log_tail()))
