"""Helpers shared by the Python suites (Tests/Interop, Tests/Browser): a real `latchkey serve`
process on a free port with its own data directory, and its mail outbox.

Standard library only, so each suite needs nothing beyond its own client (supabase-auth,
selenium) and pytest. Everything waits on conditions (the /health answer, a mail file
appearing), never on fixed sleeps, with generous deadlines for a loaded CI machine.
"""

from __future__ import annotations

import email
import email.policy
import fcntl
import os
import random
import re
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 120.0  # seconds for a server to answer /health (a cold, loaded machine)
MAIL_TIMEOUT = 30.0  # seconds for an email to appear in the outbox


def latchkey_binary() -> Path | None:
    """LATCHKEY_BIN, or .build/debug/latchkey; None when it is not an executable file."""
    configured = os.environ.get("LATCHKEY_BIN")
    path = Path(configured) if configured else REPO_ROOT / ".build" / "debug" / "latchkey"
    return path if path.is_file() and os.access(path, os.X_OK) else None


# The reserved ports' lock files stay open (and locked) until this process exits.
_port_locks: list[int] = []


def port_lock_directory() -> Path:
    """The folder of the port lock files that every test process shares (the Swift suites'
    TestAuthServer.restartablePort() uses the same): LATCHKEY_TEST_PORT_LOCKS, or
    latchkey-test-ports in the temporary folder."""
    configured = os.environ.get("LATCHKEY_TEST_PORT_LOCKS")
    return Path(configured) if configured else Path(tempfile.gettempdir()) / "latchkey-test-ports"


def _ephemeral_range_start() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port() -> int:
    """A loopback port reserved for this process: drawn from below the kernel's ephemeral range
    (which no outgoing connection takes), locked with a file in port_lock_directory() so that no
    other test process (Swift or Python) is handed it, and free when drawn."""
    directory = port_lock_directory()
    directory.mkdir(parents=True, exist_ok=True)
    end = max(20001, min(_ephemeral_range_start(), 32768))
    for _ in range(2000):
        port = random.randrange(20000, end)
        descriptor = os.open(directory / f"{port}.lock", os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o666)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(descriptor)
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                os.close(descriptor)
                continue
        _port_locks.append(descriptor)
        return port
    raise RuntimeError(f"no free loopback port could be reserved (lock files in {directory})")


def unique_email(prefix: str = "user") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}@example.com"


@dataclass
class Mail:
    to: str
    subject: str
    body: str
    """The plain-text part (what links and codes are read from)."""
    html: str | None = None
    """The HTML part of a multipart/alternative mail, if any."""

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
        text = message.get_body(preferencelist=("plain",))
        html = message.get_body(preferencelist=("html",))
        if text is None:
            raise ValueError(f"{path.name}: no text/plain part")
        return Mail(
            to=str(message["To"]).strip(),
            subject=str(message["Subject"]).strip(),
            body=text.get_content(),
            html=html.get_content() if html is not None else None,
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
class Process:
    """A running `latchkey serve`."""

    url: str
    data_dir: Path
    process: subprocess.Popen
    log_path: Path
    outbox: Outbox = field(init=False)

    def __post_init__(self) -> None:
        self.outbox = Outbox(self.data_dir / "outbox")

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=5) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def start_latchkey(binary: Path, root: Path, name: str, extra_args: list[str], extra_env: dict[str, str] | None = None) -> Process:
    """Starts `latchkey serve` on a free port with a fresh data directory under `root`, and
    returns once it answers /health. Tries again on another port if the chosen one was taken.
    `{port}` in `extra_args` is the chosen port (for an --external-url such as
    http://localhost:{port})."""
    last_error = ""
    for attempt in range(5):  # the free port may be taken between choosing and binding it
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        data_dir = root / f"{name}-{attempt}"
        log_path = root / f"{name}-{attempt}.log"
        args = [str(binary), "serve", "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(data_dir),
                *(argument.replace("{port}", str(port)) for argument in extra_args)]
        env = {k: v for k, v in os.environ.items() if k != "LATCHKEY_JWT_SECRET"} | (extra_env or {})
        with open(log_path, "wb") as log:
            process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=root)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline and process.poll() is None:
            if _healthy(url):
                return Process(url=url, data_dir=data_dir, process=process, log_path=log_path)
            time.sleep(0.1)
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
        last_error = log_path.read_text(errors="replace")[-2000:]
    raise RuntimeError(f"latchkey serve ({name}) did not become healthy:\n{last_error}")
