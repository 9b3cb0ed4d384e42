"""How the Interop tests reach the WebAuthn peers of webauthn_peer.py.

PyPI's soft-webauthn (an authenticator) and webauthn (Duo's py_webauthn, a relying party) live
in a venv of their own, since soft-webauthn pins fido2<2; the tests run under the system python
and send webauthn_peer.py one JSON job at a time through that venv's python.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import HTTP_TIMEOUT

PEER_PYTHON = os.environ.get("LATCHKEY_WEBAUTHN_PYTHON") or "/opt/latchkey-peers/webauthn/bin/python3"
PEER_SCRIPT = Path(__file__).resolve().parent / "webauthn_peer.py"
INSTALL = (
    "python3 -m venv /opt/latchkey-peers/webauthn && "
    "/opt/latchkey-peers/webauthn/bin/pip install soft-webauthn==0.1.4 webauthn==2.7.1"
)


def skip_unless_available() -> None:
    """Skips the calling test module, naming the command that installs the peers, when the
    venv cannot import them."""
    available = os.access(PEER_PYTHON, os.X_OK)
    if available:
        try:
            available = subprocess.run(
                [PEER_PYTHON, "-c", "import soft_webauthn, webauthn"], capture_output=True, timeout=120
            ).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            available = False
    if not available:
        pytest.skip(f"{PEER_PYTHON} cannot import soft_webauthn and webauthn ({INSTALL})", allow_module_level=True)


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def peer(command: str, **job) -> object:
    """Runs one job of webauthn_peer.py in the peers' venv and returns its answer."""
    done = subprocess.run(
        [PEER_PYTHON, str(PEER_SCRIPT)], input=json.dumps({"command": command, **job}), capture_output=True, text=True,
        timeout=HTTP_TIMEOUT,
    )
    assert done.returncode == 0, f"webauthn_peer.py {command} failed:\n{done.stderr}"
    return json.loads(done.stdout)
