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

import email
import email.policy
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.parse
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from supabase_auth import SyncGoTrueClient

REPO_ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 120.0  # seconds for a server to answer /health (a cold, loaded machine)
MAIL_TIMEOUT = 30.0  # seconds for an email to appear in the outbox
HTTP_TIMEOUT = 60.0  # seconds per request (bcrypt on a loaded machine)
PASSWORD = "correct horse battery staple"


def _latchkey_binary() -> Path:
    configured = os.environ.get("LATCHKEY_BIN")
    path = Path(configured) if configured else REPO_ROOT / ".build" / "debug" / "latchkey"
    if not path.is_file() or not os.access(path, os.X_OK):
        pytest.exit(
            f"latchkey binary not found at {path}: build it (swift build --product latchkey) "
            "and set LATCHKEY_BIN",
            returncode=2,
        )
    return path


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def unique_email(prefix: str = "user") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}@example.com"


@dataclass
class Mail:
    to: str
    subject: str
    body: str

    @property
    def links(self) -> list[str]:
        return re.findall(r"https?://\S+", self.body)

    @property
    def verify_link(self) -> str:
        for link in self.links:
            if "/verify?" in link:
                return link
        raise AssertionError(f"no /verify link in mail {self.subject!r}:\n{self.body}")

    @property
    def link_params(self) -> dict[str, str]:
        query = urllib.parse.urlsplit(self.verify_link).query
        return {key: values[0] for key, values in urllib.parse.parse_qs(query).items()}

    @property
    def link_token(self) -> str:
        return self.link_params["token"]

    @property
    def code(self) -> str:
        """The six-digit one-time code in the mail (GoTrue's {{ .Token }})."""
        match = re.search(r"(?<![\w-])(\d{6})(?![\w-])", self.body)
        if not match:
            raise AssertionError(f"no six-digit code in mail {self.subject!r}:\n{self.body}")
        return match.group(1)


@dataclass
class Outbox:
    directory: Path
    _taken: set[str] = field(default_factory=set)

    def _read(self, path: Path) -> Mail:
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        return Mail(
            to=str(message["To"]).strip(),
            subject=str(message["Subject"]).strip(),
            body=message.get_content(),
        )

    def mails_to(self, address: str) -> list[Mail]:
        """Every mail to `address` so far, oldest first (names start with a ms timestamp)."""
        if not self.directory.is_dir():
            return []
        found = []
        for path in sorted(self.directory.glob("*.eml")):
            mail = self._read(path)
            if mail.to.lower() == address.lower():
                found.append(mail)
        return found

    def next_mail(self, address: str, timeout: float = MAIL_TIMEOUT) -> Mail:
        """Waits for a mail to `address` that no earlier call returned, and returns it."""
        deadline = time.monotonic() + timeout
        while True:
            if self.directory.is_dir():
                for path in sorted(self.directory.glob("*.eml")):
                    if path.name in self._taken:
                        continue
                    try:
                        mail = self._read(path)
                    except (OSError, ValueError):
                        continue  # written atomically, but be safe about partial reads
                    if mail.to.lower() == address.lower():
                        self._taken.add(path.name)
                        return mail
            if time.monotonic() > deadline:
                raise AssertionError(f"no new mail to {address} in {self.directory} after {timeout:.0f}s")
            time.sleep(0.05)

    def no_new_mail(self, address: str) -> bool:
        return all(
            path.name in self._taken or self._read(path).to.lower() != address.lower()
            for path in (sorted(self.directory.glob("*.eml")) if self.directory.is_dir() else [])
        )


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


def _start_server(binary: Path, root: Path, *, autoconfirm: bool) -> Server:
    name = "autoconfirm" if autoconfirm else "confirming"
    last_error = ""
    for attempt in range(5):  # the free port may be taken between choosing and binding it
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        data_dir = root / f"{name}-{attempt}"
        log_path = root / f"{name}-{attempt}.log"
        args = [str(binary), "serve", "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(data_dir)]
        # One client IP makes every request here: lift the per-IP sign-in and verification limits
        # so the suite's ~100 sign-ins and ~30 verifications cannot trip them. The per-address
        # email limit stays at its default (one test checks it).
        args += ["--rate-limit-signin", "100000", "--rate-limit-verify", "100000", "--enable-anonymous-users"]
        if autoconfirm:
            args.append("--autoconfirm")
        env = {k: v for k, v in os.environ.items() if k != "LATCHKEY_JWT_SECRET"}
        log = open(log_path, "wb")
        process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=root)
        log.close()
        deadline = time.monotonic() + START_TIMEOUT
        healthy = False
        while time.monotonic() < deadline and process.poll() is None:
            try:
                if httpx.get(f"{url}/health", timeout=5).status_code == 200:
                    healthy = True
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        if healthy:
            keys = subprocess.run(
                [str(binary), "keys", "--data-dir", str(data_dir), "--external-url", url],
                capture_output=True, text=True, timeout=120, env=env, check=True,
            ).stdout
            anon = re.search(r"^anon key:\s+(\S+)", keys, re.M)
            service = re.search(r"^service_role key:\s+(\S+)", keys, re.M)
            assert anon and service, f"unexpected `latchkey keys` output:\n{keys}"
            return Server(
                url=url, data_dir=data_dir, anon_key=anon.group(1), service_role_key=service.group(1),
                outbox=Outbox(data_dir / "outbox"), autoconfirm=autoconfirm, process=process, log_path=log_path,
            )
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
        last_error = log_path.read_text(errors="replace")[-2000:]
    raise RuntimeError(f"latchkey serve ({name}) did not become healthy:\n{last_error}")


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
        for name in ("autoconfirm_server", "confirming_server"):
            server = item.funcargs.get(name)
            if isinstance(server, Server):
                report.sections.append((f"{name} log (tail)", server.log_tail()))
