"""Phone as a second factor with the real Supabase Python auth client.

`mfa.enroll(factor_type="phone")`, `challenge`, `verify` and `get_authenticator_assurance_level`
against `latchkey serve --mfa-phone-enroll --mfa-phone-verify` sending through its Twilio
provider. GoTrue does not apply `--sms-test-otp` to phone factors, so the provider here is a
local fake of Twilio's Messages API (`LATCHKEY_SMS_PROVIDER_URL`, honoured with
`--allow-loopback-providers`) that records each message; the test reads the code from it as the
user reads it from the phone.
"""

from __future__ import annotations

import base64
import json
import re
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from supabase_auth.errors import AuthApiError

from conftest import PASSWORD, Server, _start_server, _stop_server, unique_email

ACCOUNT_SID = "ACinterop"
AUTH_TOKEN = "interop-twilio-token"
SERVICE_SID = "MGinterop"
NUMBER = "+15555550199"


class FakeTwilio:
    """Twilio's `POST /2010-04-01/Accounts/{sid}/Messages.json`, recording each form it takes."""

    def __init__(self) -> None:
        self.messages: list[dict[str, str]] = []
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length", "0"))
                form = {k: v[0] for k, v in urllib.parse.parse_qs(self.rfile.read(length).decode()).items()}
                expected = "Basic " + base64.b64encode(f"{ACCOUNT_SID}:{AUTH_TOKEN}".encode()).decode()
                if self.path != f"/2010-04-01/Accounts/{ACCOUNT_SID}/Messages.json" or self.headers.get("Authorization") != expected:
                    self._answer(401, {"code": 20003, "message": "Authenticate"})
                    return
                with fake.lock:
                    fake.messages.append(form)
                    sid = f"SM{len(fake.messages):032d}"
                self._answer(201, {"sid": sid, "status": "queued", "to": form.get("To")})

            def _answer(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def last_code(self, to: str) -> str:
        with self.lock:
            bodies = [m["Body"] for m in self.messages if m.get("To") == to]
        assert bodies, f"no message to {to}: {self.messages}"
        match = re.search(r"\d{6,10}", bodies[-1])
        assert match, bodies[-1]
        return match.group(0)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def twilio() -> Iterator[FakeTwilio]:
    fake = FakeTwilio()
    yield fake
    fake.close()


@pytest.fixture(scope="module")
def mfa_phone_server(latchkey_bin: Path, _server_root: Path, twilio: FakeTwilio) -> Iterator[Server]:
    server = _start_server(
        latchkey_bin, _server_root, autoconfirm=True, name="mfa-phone",
        extra_args=(
            "--mfa-phone-enroll", "--mfa-phone-verify", "--mfa-phone-template", "Your Latchkey code: {{ .Code }}",
            "--sms-provider", "twilio", "--sms-twilio-account-sid", ACCOUNT_SID, "--sms-twilio-message-service-sid", SERVICE_SID,
            "--allow-loopback-providers",
        ),
        extra_env={"LATCHKEY_SMS_TWILIO_AUTH_TOKEN": AUTH_TOKEN, "LATCHKEY_SMS_PROVIDER_URL": twilio.url},
    )
    yield server
    _stop_server(server)


def test_enroll_phone_challenge_by_sms_verify_reaches_aal2(mfa_phone_server: Server, make_client, twilio: FakeTwilio):
    email = unique_email("mfa-phone")
    client = make_client(mfa_phone_server)
    assert client.sign_up({"email": email, "password": PASSWORD}).session is not None

    enrolled = client.mfa.enroll({"factor_type": "phone", "phone": NUMBER, "friendly_name": "Work phone"})
    assert enrolled.type == "phone" and enrolled.totp is None

    challenge = client.mfa.challenge({"factor_id": enrolled.id})
    assert challenge.factor_type == "phone"
    sent = twilio.messages[-1]
    assert sent["To"] == NUMBER and sent["From"] == SERVICE_SID and sent["Channel"] == "sms"
    assert sent["Body"].startswith("Your Latchkey code: ")
    code = twilio.last_code(NUMBER)

    with pytest.raises(AuthApiError) as wrong:
        client.mfa.verify({"factor_id": enrolled.id, "challenge_id": challenge.id, "code": "0" * len(code) if code != "0" * len(code) else "1" * len(code)})
    assert wrong.value.code == "mfa_verification_failed"

    verified = client.mfa.verify({"factor_id": enrolled.id, "challenge_id": challenge.id, "code": code})
    assert verified.access_token
    level = client.mfa.get_authenticator_assurance_level()
    assert (level.current_level, level.next_level) == ("aal2", "aal2")
    assert level.current_authentication_methods[0].method == "mfa/phone"
    factors = client.mfa.list_factors()
    assert [f.id for f in factors.phone] == [enrolled.id]
    assert factors.phone[0].phone == NUMBER.lstrip("+")

    # A second challenge within the maximum frequency is refused as GoTrue refuses it.
    with pytest.raises(AuthApiError) as too_soon:
        client.mfa.challenge({"factor_id": enrolled.id})
    assert too_soon.value.status == 429 and too_soon.value.code == "over_sms_send_rate_limit"

    # A new sign-in starts at aal1 and is told aal2 is possible.
    again = make_client(mfa_phone_server)
    again.sign_in_with_password({"email": email, "password": PASSWORD})
    level = again.mfa.get_authenticator_assurance_level()
    assert (level.current_level, level.next_level) == ("aal1", "aal2")


def test_phone_factor_enrolment_errors(mfa_phone_server: Server, make_client):
    client = make_client(mfa_phone_server)
    assert client.sign_up({"email": unique_email("mfa-phone-bad"), "password": PASSWORD}).session is not None
    with pytest.raises(AuthApiError) as invalid:
        client.mfa.enroll({"factor_type": "phone", "phone": "+0123"})
    assert invalid.value.status == 400 and invalid.value.code == "validation_failed"
