"""WebAuthn as a second factor, with peers nobody here wrote.

The real supabase-auth client signs in with a password and reads the assurance level; PyPI's
soft-webauthn answers the factor's `create` and `request` ceremonies as a security key would
(GoTrue's wire: `factor_type: webauthn`, `webauthn: {type, credential_options}` in the challenge,
`webauthn: {type, credential_response}` in the verify); PyPI's webauthn (py_webauthn) checks the
very bytes Latchkey accepted, and responses made wrong in one way each are refused by both.
The supabase-auth client has no WebAuthn calls of its own, so those go over HTTP as supabase-js
sends them, with the client's session.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from conftest import HTTP_TIMEOUT, PASSWORD, Server, _start_server, _stop_server, unique_email
from webauthn_peers import b64url_decode, peer, skip_unless_available

skip_unless_available()

RP_ID = "mfa.example.com"
ORIGIN = "https://mfa.example.com"


@pytest.fixture(scope="module")
def mfa_server(latchkey_bin: Path, _server_root: Path) -> Iterator[Server]:
    server = _start_server(
        latchkey_bin, _server_root, autoconfirm=True, name="webauthn-mfa",
        extra_args=("--rate-limit-failed-mfa-code", "100"),
        extra_env={
            # GoTrue's own variables, as a Supabase deployment sets them.
            "GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED": "true", "GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED": "true",
            "GOTRUE_WEBAUTHN_RP_ID": RP_ID, "GOTRUE_WEBAUTHN_RP_ORIGINS": ORIGIN, "GOTRUE_WEBAUTHN_RP_DISPLAY_NAME": "Latchkey MFA",
        },
    )
    yield server
    _stop_server(server)


def call(server: Server, method: str, path: str, token: str, body: dict | None = None) -> httpx.Response:
    with httpx.Client(base_url=server.url, headers={"apikey": server.anon_key}, timeout=HTTP_TIMEOUT) as http:
        return http.request(method, path, json=body if body is not None else {}, headers={"Authorization": f"Bearer {token}"})


def challenge(server: Server, token: str, factor_id: str) -> dict:
    answer = call(server, "POST", f"/factors/{factor_id}/challenge", token)
    assert answer.status_code == 200, answer.text
    return answer.json()


def verify(server: Server, token: str, factor_id: str, challenge_id: str, kind: str, credential: dict) -> httpx.Response:
    return call(
        server, "POST", f"/factors/{factor_id}/verify", token,
        {"challenge_id": challenge_id, "webauthn": {"type": kind, "credential_response": credential}},
    )


def claims(token: str) -> dict:
    return json.loads(b64url_decode(token.split(".")[1]))


def test_a_security_key_enrolls_and_raises_later_sign_ins_to_aal2(make_client, mfa_server):
    email = unique_email("webauthn-mfa")
    client = make_client(mfa_server)
    session = client.sign_up({"email": email, "password": PASSWORD}).session
    assert session is not None
    token = session.access_token

    enrolled = call(mfa_server, "POST", "/factors", token, {"factor_type": "webauthn", "friendly_name": "Security key"})
    assert enrolled.status_code == 200, enrolled.text
    assert enrolled.json()["type"] == "webauthn" and "totp" not in enrolled.json()
    factor_id = enrolled.json()["id"]

    opened = challenge(mfa_server, token, factor_id)
    assert opened["type"] == "webauthn" and opened["webauthn"]["type"] == "create", opened
    options = opened["webauthn"]["credential_options"]["publicKey"]
    assert options["rp"] == {"id": RP_ID, "name": "Latchkey MFA"}
    assert b64url_decode(options["user"]["id"]) == session.user.id.encode()
    made = peer("create", options=options, origin=ORIGIN)
    answer = verify(mfa_server, token, factor_id, opened["id"], "create", made["credential"])
    assert answer.status_code == 200, answer.text
    [registered] = peer("verify", checks=[{
        "kind": "registration", "credential": made["credential"], "challenge": options["challenge"], "rp_id": RP_ID, "origin": ORIGIN,
    }])
    assert registered["ok"], registered
    raised = answer.json()
    assert claims(raised["access_token"])["aal"] == "aal2"
    assert "mfa/webauthn" in [entry["method"] for entry in claims(raised["access_token"])["amr"]]

    # The real client, on a new sign-in: aal1 now, aal2 possible (the verified factor is listed).
    other = make_client(mfa_server)
    signed_in = other.sign_in_with_password({"email": email, "password": PASSWORD}).session
    assert signed_in is not None
    level = other.mfa.get_authenticator_assurance_level()
    assert (level.current_level, level.next_level) == ("aal1", "aal2")
    factors = other.get_user().user.factors
    assert [(factor.factor_type, factor.status) for factor in factors] == [("webauthn", "verified")]

    # The request ceremony: soft-webauthn signs, both relying parties accept the same bytes.
    device, sign_count = made["device"], 0
    opened = challenge(mfa_server, signed_in.access_token, factor_id)
    assert opened["webauthn"]["type"] == "request"
    request = opened["webauthn"]["credential_options"]["publicKey"]
    assert [entry["id"] for entry in request["allowCredentials"]] == [made["credential"]["id"]]
    asserted = peer("get", device=device, options=request, origin=ORIGIN)
    answer = verify(mfa_server, signed_in.access_token, factor_id, opened["id"], "request", asserted["credential"])
    assert answer.status_code == 200, answer.text
    [checked] = peer("verify", checks=[{
        "kind": "assertion", "credential": asserted["credential"], "challenge": request["challenge"], "rp_id": RP_ID, "origin": ORIGIN,
        "public_key": registered["public_key"], "sign_count": sign_count,
    }])
    assert checked["ok"], checked
    device, sign_count = asserted["device"], checked["sign_count"]

    other.set_session(answer.json()["access_token"], answer.json()["refresh_token"])
    assert other.mfa.get_authenticator_assurance_level().current_level == "aal2"

    # Wrong in one way each: Latchkey refuses with mfa_verification_failed, py_webauthn refuses too.
    wrongs = {
        "another origin": {"origin": "https://evil.example.com"},
        "another RP ID": {"rp_id": "evil.example.com"},
        "user presence cleared": {"flags": 0x00},
        "a key the server never saw": {"other_key": True},
        "a counter that did not advance": {"sign_count": sign_count},
    }
    for name, tampering in wrongs.items():
        attempt = make_client(mfa_server).sign_in_with_password({"email": email, "password": PASSWORD}).session
        opened = challenge(mfa_server, attempt.access_token, factor_id)
        request = opened["webauthn"]["credential_options"]["publicKey"]
        job = {"device": device, "options": request, "origin": ORIGIN, **tampering}
        wrong = peer("get", **job)
        answer = verify(mfa_server, attempt.access_token, factor_id, opened["id"], "request", wrong["credential"])
        assert answer.status_code == 422 and answer.json()["error_code"] == "mfa_verification_failed", f"{name}: {answer.text}"
        [verdict] = peer("verify", checks=[{
            "kind": "assertion", "credential": wrong["credential"], "challenge": request["challenge"], "rp_id": RP_ID, "origin": ORIGIN,
            "public_key": registered["public_key"], "sign_count": sign_count,
        }])
        assert not verdict["ok"], f"py_webauthn accepted {name}"
        # The challenge was spent by the wrong answer: the right one cannot use it now.
        right = peer("get", device=device, options=request, origin=ORIGIN)
        again = verify(mfa_server, attempt.access_token, factor_id, opened["id"], "request", right["credential"])
        assert again.status_code == 422 and again.json()["error_code"] == "mfa_ip_address_mismatch", f"{name}: {again.text}"
        device = right["device"]

    # An assertion made for one challenge and sent with another (a replay) is refused.
    attempt = make_client(mfa_server).sign_in_with_password({"email": email, "password": PASSWORD}).session
    first, second = challenge(mfa_server, attempt.access_token, factor_id), challenge(mfa_server, attempt.access_token, factor_id)
    replayed = peer("get", device=device, options=first["webauthn"]["credential_options"]["publicKey"], origin=ORIGIN)
    answer = verify(mfa_server, attempt.access_token, factor_id, second["id"], "request", replayed["credential"])
    assert answer.status_code == 422 and answer.json()["error_code"] == "mfa_verification_failed", answer.text
