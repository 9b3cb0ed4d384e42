"""Auth hooks against a hook written with PyPI's standardwebhooks: the hook verifies each
request's Standard Webhooks signature with that library (an implementation nobody here wrote).
The custom access token hook adds a claim the real supabase-auth client's tokens then carry; the
send SMS and send email hooks get codes the client then signs in with. A request whose signature
does not verify is refused by the hook, so a wrong signature would fail the flow."""

from __future__ import annotations

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator

import pytest

standardwebhooks = pytest.importorskip("standardwebhooks")
from standardwebhooks.webhooks import Webhook, WebhookVerificationError  # noqa: E402

from conftest import Server, _start_server, _stop_server, unique_email  # noqa: E402

SECRET = "whsec_" + base64.b64encode(b"interop hook secret, 32 bytes ok").decode()


class HookServer:
    """A local hook: verifies, records, answers a custom access token hook the claims plus one and
    any other hook `{}`."""

    def __init__(self) -> None:
        self.verified: list[dict] = []
        self.refused = 0
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                try:
                    payload = Webhook(SECRET).verify(body, dict(self.headers.items()))
                except WebhookVerificationError:
                    hook.refused += 1
                    self.send_response(401)
                    self.end_headers()
                    return
                hook.verified.append(payload)
                if "claims" in payload:
                    claims = dict(payload["claims"])
                    claims["favourite_colour"] = "teal"
                    answer = json.dumps({"claims": claims}).encode()
                else:  # the send SMS and send email hooks: delivered
                    answer = b"{}"
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/custom-access-token"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def hook() -> Iterator[HookServer]:
    server = HookServer()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def hooked_server(latchkey_bin, _server_root, hook: HookServer) -> Iterator[Server]:
    server = _start_server(
        latchkey_bin, _server_root, autoconfirm=True, name="hooked",
        extra_env={
            "GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_ENABLED": "true",
            "GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_URI": hook.url,
            "GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_SECRETS": "v1," + SECRET,
        },
    )
    yield server
    _stop_server(server)


def _claims(token: str) -> dict:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_signed_hook_adds_a_claim_to_the_supabase_clients_tokens(hooked_server: Server, hook: HookServer, make_client):
    email = unique_email("hooked")
    client = make_client(hooked_server)
    client.sign_up({"email": email, "password": "correct horse battery"})
    signed_in = make_client(hooked_server).sign_in_with_password({"email": email, "password": "correct horse battery"})
    session = signed_in.session
    assert session is not None
    claims = _claims(session.access_token)
    assert claims["favourite_colour"] == "teal"
    assert claims["sub"] == signed_in.user.id and claims["email"] == email

    refreshed = make_client(hooked_server).refresh_session(session.refresh_token).session
    assert _claims(refreshed.access_token)["favourite_colour"] == "teal"
    # The server still takes the hooked tokens.
    assert make_client(hooked_server).get_user(refreshed.access_token).user.email == email

    assert hook.refused == 0
    last = hook.verified[-1]
    assert last["user_id"] == signed_in.user.id
    assert last["authentication_method"] == "token_refresh"
    assert last["metadata"]["name"] == "customize-access-token"


@pytest.fixture(scope="module")
def sms_hooked_server(latchkey_bin, _server_root, hook: HookServer) -> Iterator[Server]:
    server = _start_server(
        latchkey_bin, _server_root, autoconfirm=True, name="sms-hooked",
        extra_env={
            "GOTRUE_EXTERNAL_PHONE_ENABLED": "true",
            "GOTRUE_HOOK_SEND_SMS_ENABLED": "true",
            "GOTRUE_HOOK_SEND_SMS_URI": hook.url,
            "GOTRUE_HOOK_SEND_SMS_SECRETS": "v1," + SECRET,
        },
    )
    yield server
    _stop_server(server)


def test_send_sms_hook_gets_a_verifiable_code_the_supabase_client_signs_in_with(sms_hooked_server: Server, hook: HookServer, make_client):
    client = make_client(sms_hooked_server)
    client.sign_in_with_otp({"phone": "+15555550177"})
    assert hook.refused == 0
    payload = hook.verified[-1]
    assert payload["metadata"]["name"] == "send-sms"
    assert payload["sms"]["phone"] == "15555550177"
    verified = client.verify_otp({"phone": "+15555550177", "token": payload["sms"]["otp"], "type": "sms"})
    assert verified.session is not None and verified.user.phone == "15555550177"


@pytest.fixture(scope="module")
def email_hooked_server(latchkey_bin, _server_root, hook: HookServer) -> Iterator[Server]:
    server = _start_server(
        latchkey_bin, _server_root, autoconfirm=False, name="email-hooked",
        extra_env={
            "GOTRUE_HOOK_SEND_EMAIL_ENABLED": "true",
            "GOTRUE_HOOK_SEND_EMAIL_URI": hook.url,
            "GOTRUE_HOOK_SEND_EMAIL_SECRETS": "v1," + SECRET,
        },
    )
    yield server
    _stop_server(server)


def test_send_email_hook_gets_a_code_the_supabase_client_signs_in_with(email_hooked_server: Server, hook: HookServer, make_client):
    email = unique_email("email-hooked")
    client = make_client(email_hooked_server)
    client.sign_in_with_otp({"email": email})
    assert hook.refused == 0
    payload = hook.verified[-1]
    assert payload["metadata"]["name"] == "send-email"
    assert payload["user"]["email"] == email
    data = payload["email_data"]
    assert data["email_action_type"] in ("signup", "magiclink")
    verified = client.verify_otp({"email": email, "token": data["token"], "type": "email"})
    assert verified.session is not None and verified.user.email == email
