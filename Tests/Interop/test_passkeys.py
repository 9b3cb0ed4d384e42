"""Passkeys against authenticators and verifiers nobody here wrote.

PyPI's soft-webauthn (a software authenticator) registers a passkey and signs in through the
server's routes, as a client would; PyPI's webauthn (Duo's py_webauthn, a relying-party
library) then checks the very bytes the server was sent: what Latchkey accepts, it accepts;
and for responses made wrong in one way each (another origin, another RP ID, a replayed
challenge, a bad signature, the user-presence flag cleared, a counter that did not advance),
Latchkey refuses with GoTrue's error and py_webauthn refuses too.

With the same authenticator, the rest of the wire contract (/work/passkeys-contract.md, GoTrue's
internal/api/passkey_*.go): listing, renaming, the admin routes, a credential registered twice,
another account's challenge, malformed bodies, the per-user limit, a banned account, an expired
challenge, and every route answering passkey_disabled when passkeys are off.

The two live in a venv of their own (soft-webauthn pins fido2<2), which this suite, run by the
system python, reaches through webauthn_peer.py run by that venv's python. Without it the
module is skipped with the command that makes it.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from conftest import HTTP_TIMEOUT, PASSWORD, Server, _start_server, _stop_server, unique_email
from webauthn_peers import b64url, b64url_decode, peer, skip_unless_available

skip_unless_available()

RP_ID = "login.example.com"
ORIGIN = "https://login.example.com"
RP_NAME = "Latchkey interop"
# Same host, another port: a browser lets a page there use RP ID login.example.com, so only the
# server's list of origins tells it apart.
UNLISTED_ORIGIN = "https://login.example.com:8443"
RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})")


def py_webauthn(*checks: dict) -> list[dict]:
    """py_webauthn's verdicts, checking each response against what the relying party expects:
    the server's challenge, RP_ID and ORIGIN (and for assertions, the key and counter on file)."""
    return peer("verify", checks=[{"rp_id": RP_ID, "origin": ORIGIN, **check} for check in checks])  # type: ignore[return-value]


@pytest.fixture(scope="module")
def passkey_server(latchkey_bin: Path, _server_root: Path) -> Iterator[Server]:
    server = _start_server(
        latchkey_bin, _server_root, autoconfirm=True, name="passkeys",
        extra_args=(
            "--rate-limit-passkey", "100000",  # one client IP starts every sign-in here
            "--passkeys-enabled", "--webauthn-rp-id", RP_ID, "--webauthn-rp-display-name", RP_NAME,
            "--webauthn-rp-origins", ORIGIN,
        ),
    )
    yield server
    _stop_server(server)


@pytest.fixture(scope="module")
def http(passkey_server: Server) -> Iterator[httpx.Client]:
    """Calls the server as supabase-js does: its URL, the anon key in `apikey` on every call."""
    with httpx.Client(base_url=passkey_server.url, headers={"apikey": passkey_server.anon_key}, timeout=HTTP_TIMEOUT) as client:
        yield client


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def sign_up(http: httpx.Client, prefix: str) -> dict:
    """A confirmed account (the server autoconfirms) and its session."""
    answer = http.post("/signup", json={"email": unique_email(prefix), "password": PASSWORD})
    assert answer.status_code == 200, answer.text
    return answer.json()


def registration_options(http: httpx.Client, token: str) -> dict:
    answer = http.post("/passkeys/registration/options", json={}, headers=bearer(token))
    assert answer.status_code == 200, answer.text
    return answer.json()


def authentication_options(http: httpx.Client) -> dict:
    answer = http.post("/passkeys/authentication/options", json={})
    assert answer.status_code == 200, answer.text
    return answer.json()


def refused(answer: httpx.Response, error_code: str) -> None:
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert body["code"] == 400 and body["error_code"] == error_code and body["msg"], body


@dataclass
class Enrolled:
    """An account whose passkey lives in a soft-webauthn device, and what each side has on file."""

    session: dict
    device: dict
    """The soft-webauthn device's state (its key and counter), as webauthn_peer.py keeps it."""
    public_key: str
    """The COSE key py_webauthn read from the registration the server accepted."""
    passkey_id: str
    sign_count: int = 0
    """The counter of the last assertion both accepted."""

    @property
    def user_id(self) -> str:
        return self.session["user"]["id"]


def enroll(http: httpx.Client, prefix: str) -> Enrolled:
    """Signs up and registers a soft-webauthn passkey; py_webauthn must accept the same registration."""
    session = sign_up(http, prefix)
    started = registration_options(http, session["access_token"])
    made = peer("create", options=started["options"], origin=ORIGIN)
    answer = http.post(
        "/passkeys/registration/verify", json={"challenge_id": started["challenge_id"], "credential": made["credential"]},
        headers=bearer(session["access_token"]),
    )
    assert answer.status_code == 200, answer.text
    [verdict] = py_webauthn({"kind": "registration", "credential": made["credential"], "challenge": started["options"]["challenge"]})
    assert verdict["ok"], verdict
    assert verdict["credential_id"] == made["credential"]["id"]
    return Enrolled(session=session, device=made["device"], public_key=verdict["public_key"], passkey_id=answer.json()["id"])


def sign_in(http: httpx.Client, enrolled: Enrolled, started: dict | None = None) -> dict:
    """A passkey sign-in (for `started`, else new options) both sides accept; returns the session."""
    started = started or authentication_options(http)
    made = peer("get", device=enrolled.device, options=started["options"], origin=ORIGIN)
    answer = http.post("/passkeys/authentication/verify", json={"challenge_id": started["challenge_id"], "credential": made["credential"]})
    assert answer.status_code == 200, answer.text
    [verdict] = py_webauthn(
        {"kind": "assertion", "credential": made["credential"], "challenge": started["options"]["challenge"],
         "public_key": enrolled.public_key, "sign_count": enrolled.sign_count}
    )
    assert verdict["ok"], verdict
    enrolled.device = made["device"]
    enrolled.sign_count = verdict["sign_count"]
    return answer.json()


def test_soft_webauthn_registers_and_signs_in_and_py_webauthn_accepts_the_same_responses(http, passkey_server):
    versions = peer("versions")
    print("WebAuthn peers:", ", ".join(f"{name} {value}" for name, value in sorted(versions.items())))  # type: ignore[union-attr]
    assert http.get("/settings").json()["passkeys_enabled"] is True

    session = sign_up(http, "passkey-interop")
    user_id = session["user"]["id"]
    started = registration_options(http, session["access_token"])
    assert set(started) >= {"challenge_id", "expires_at", "options"}, started
    assert str(uuid.UUID(started["challenge_id"])) == started["challenge_id"]
    assert isinstance(started["expires_at"], int) and time.time() < started["expires_at"] <= time.time() + 300 + 5, started
    assert isinstance(started["options"]["timeout"], int) and started["options"]["timeout"] > 0
    options = started["options"]
    assert options["rp"] == {"name": RP_NAME, "id": RP_ID}
    assert b64url_decode(options["user"]["id"]) == user_id.encode()
    assert len(b64url_decode(options["challenge"])) == 32
    assert [param["alg"] for param in options["pubKeyCredParams"]] == [-7, -8, -257]
    assert options["authenticatorSelection"] == {"residentKey": "required", "requireResidentKey": True, "userVerification": "preferred"}
    assert options["attestation"] == "none"

    made = peer("create", options=options, origin=ORIGIN)
    answer = http.post(
        "/passkeys/registration/verify", json={"challenge_id": started["challenge_id"], "credential": made["credential"]},
        headers=bearer(session["access_token"]),
    )
    assert answer.status_code == 200, answer.text
    passkey = answer.json()
    assert passkey["id"] and passkey["friendly_name"] and passkey["created_at"], passkey
    assert RFC3339.fullmatch(passkey["created_at"]), passkey
    [verdict] = py_webauthn({"kind": "registration", "credential": made["credential"], "challenge": options["challenge"]})
    assert verdict["ok"], verdict
    enrolled = Enrolled(session=session, device=made["device"], public_key=verdict["public_key"], passkey_id=passkey["id"])

    listed = http.get("/passkeys", headers=bearer(session["access_token"]))
    assert listed.status_code == 200 and [item["id"] for item in listed.json()] == [passkey["id"]], listed.text

    # The next registration names this credential among those to exclude.
    again = registration_options(http, session["access_token"])["options"]
    assert [item["id"] for item in again.get("excludeCredentials", [])] == [made["credential"]["id"]], again

    # Discoverable sign-in, three times: the counter advances each time, on both sides.
    for round_number in (1, 2, 3):
        started = authentication_options(http)
        assert "allowCredentials" not in started["options"], started
        assert started["options"]["rpId"] == RP_ID and started["options"]["userVerification"] == "preferred"
        signed_in = sign_in(http, enrolled, started)
        assert enrolled.sign_count == round_number
        assert signed_in["token_type"] == "bearer" and signed_in["refresh_token"] and signed_in["expires_in"] > 0
        assert signed_in["expires_at"] > 0 and signed_in["user"]["id"] == user_id
        claims = json.loads(b64url_decode(signed_in["access_token"].split(".")[1]))
        assert "passkey" in {entry["method"] for entry in claims["amr"]}, claims
        me = http.get("/user", headers=bearer(signed_in["access_token"]))
        assert me.status_code == 200 and me.json()["id"] == user_id, me.text

    listed = http.get("/passkeys", headers=bearer(signed_in["access_token"])).json()
    assert len(listed) == 1 and listed[0].get("last_used_at"), listed


@pytest.fixture(scope="module")
def enrolled(http: httpx.Client) -> Enrolled:
    """One account with a passkey that has signed in once (so its counter is on file and non-zero)."""
    account = enroll(http, "passkey-refusals")
    sign_in(http, account)
    assert account.sign_count == 1
    return account


# Registrations made wrong in one way each (soft-webauthn job changes; `none` attestation signs nothing).
REGISTRATIONS = {
    "another origin": {"origin": UNLISTED_ORIGIN},
    "another RP ID": {"rp_id": "example.org"},
    "user presence flag cleared": {"flags": 0x40},  # attested data only
}


@pytest.mark.parametrize("case", list(REGISTRATIONS))
def test_a_registration_latchkey_refuses_py_webauthn_refuses(http, enrolled, case):
    started = registration_options(http, enrolled.session["access_token"])
    job = {"origin": ORIGIN, **REGISTRATIONS[case]}
    made = peer("create", options=started["options"], **job)
    answer = http.post(
        "/passkeys/registration/verify", json={"challenge_id": started["challenge_id"], "credential": made["credential"]},
        headers=bearer(enrolled.session["access_token"]),
    )
    refused(answer, "webauthn_verification_failed")
    [verdict] = py_webauthn({"kind": "registration", "credential": made["credential"], "challenge": started["options"]["challenge"]})
    assert not verdict["ok"], f"py_webauthn accepted the registration made with {case}"
    listed = http.get("/passkeys", headers=bearer(enrolled.session["access_token"])).json()
    assert [item["id"] for item in listed] == [enrolled.passkey_id], listed


def test_a_registration_answering_another_challenge_is_refused_by_both(http, enrolled):
    answered = registration_options(http, enrolled.session["access_token"])
    made = peer("create", options=answered["options"], origin=ORIGIN)
    other = registration_options(http, enrolled.session["access_token"])
    answer = http.post(
        "/passkeys/registration/verify", json={"challenge_id": other["challenge_id"], "credential": made["credential"]},
        headers=bearer(enrolled.session["access_token"]),
    )
    refused(answer, "webauthn_verification_failed")
    [verdict] = py_webauthn({"kind": "registration", "credential": made["credential"], "challenge": other["options"]["challenge"]})
    assert not verdict["ok"], verdict


# Assertions made wrong in one way each (soft-webauthn job changes). Where the change touches
# signed data, the peer signs again with the passkey's own key, so only that one thing is wrong.
ASSERTIONS = {
    "another origin": lambda account: {"origin": UNLISTED_ORIGIN},
    "another RP ID": lambda account: {"rp_id": "example.org"},
    "user presence flag cleared": lambda account: {"flags": 0x04},  # UV without UP
    "no flags at all": lambda account: {"flags": 0x00},
    "signed by another key": lambda account: {"other_key": True},
    "counter did not advance": lambda account: {"sign_count": account.sign_count},
}


@pytest.mark.parametrize("case", list(ASSERTIONS))
def test_an_assertion_latchkey_refuses_py_webauthn_refuses(http, enrolled, case):
    started = authentication_options(http)
    made = peer("get", device=enrolled.device, options=started["options"], **{"origin": ORIGIN, **ASSERTIONS[case](enrolled)})
    answer = http.post("/passkeys/authentication/verify", json={"challenge_id": started["challenge_id"], "credential": made["credential"]})
    refused(answer, "webauthn_verification_failed")
    [verdict] = py_webauthn(
        {"kind": "assertion", "credential": made["credential"], "challenge": started["options"]["challenge"],
         "public_key": enrolled.public_key, "sign_count": enrolled.sign_count}
    )
    assert not verdict["ok"], f"py_webauthn accepted the assertion with {case}"
    # The device's counter moved on (as a real authenticator's does); the passkey still signs in.
    if case != "counter did not advance":
        enrolled.device = made["device"]
    sign_in(http, enrolled)


def test_a_signature_with_a_byte_flipped_is_refused_by_both(http, enrolled):
    started = authentication_options(http)
    made = peer("get", device=enrolled.device, options=started["options"], origin=ORIGIN)
    credential = made["credential"]
    signature = bytearray(b64url_decode(credential["response"]["signature"]))
    signature[-1] ^= 0x01
    credential["response"]["signature"] = b64url(bytes(signature))
    answer = http.post("/passkeys/authentication/verify", json={"challenge_id": started["challenge_id"], "credential": credential})
    refused(answer, "webauthn_verification_failed")
    [verdict] = py_webauthn(
        {"kind": "assertion", "credential": credential, "challenge": started["options"]["challenge"],
         "public_key": enrolled.public_key, "sign_count": enrolled.sign_count}
    )
    assert not verdict["ok"], verdict
    enrolled.device = made["device"]
    sign_in(http, enrolled)


def test_a_replayed_assertion_is_refused_by_both(http, enrolled):
    started = authentication_options(http)
    made = peer("get", device=enrolled.device, options=started["options"], origin=ORIGIN)
    body = {"challenge_id": started["challenge_id"], "credential": made["credential"]}
    assert http.post("/passkeys/authentication/verify", json=body).status_code == 200
    [verdict] = py_webauthn(
        {"kind": "assertion", "credential": made["credential"], "challenge": started["options"]["challenge"],
         "public_key": enrolled.public_key, "sign_count": enrolled.sign_count}
    )
    assert verdict["ok"], verdict
    enrolled.device, enrolled.sign_count = made["device"], verdict["sign_count"]

    # The same request again: its challenge is spent.
    refused(http.post("/passkeys/authentication/verify", json=body), "webauthn_challenge_not_found")
    # The same assertion for a fresh challenge: it answers the old one.
    fresh = authentication_options(http)
    refused(
        http.post("/passkeys/authentication/verify", json={"challenge_id": fresh["challenge_id"], "credential": made["credential"]}),
        "webauthn_verification_failed",
    )
    # py_webauthn keeps no challenges; it refuses the replay for the fresh challenge, and for the
    # old one because the counter on file has caught up with the assertion's.
    verdicts = py_webauthn(
        {"kind": "assertion", "credential": made["credential"], "challenge": fresh["options"]["challenge"],
         "public_key": enrolled.public_key, "sign_count": enrolled.sign_count - 1},
        {"kind": "assertion", "credential": made["credential"], "challenge": started["options"]["challenge"],
         "public_key": enrolled.public_key, "sign_count": enrolled.sign_count},
    )
    assert [verdict["ok"] for verdict in verdicts] == [False, False], verdicts


def test_a_registration_challenge_is_spent_by_a_refused_verify(http, enrolled):
    """A challenge is spent by its first verify, right or wrong: the right answer afterwards is refused."""
    started = registration_options(http, enrolled.session["access_token"])
    wrong = peer("create", options=started["options"], origin=UNLISTED_ORIGIN)
    right = peer("create", options=started["options"], origin=ORIGIN)
    headers = bearer(enrolled.session["access_token"])
    refused(
        http.post("/passkeys/registration/verify", json={"challenge_id": started["challenge_id"], "credential": wrong["credential"]},
                  headers=headers),
        "webauthn_verification_failed",
    )
    refused(
        http.post("/passkeys/registration/verify", json={"challenge_id": started["challenge_id"], "credential": right["credential"]},
                  headers=headers),
        "webauthn_challenge_not_found",
    )
    [verdict] = py_webauthn({"kind": "registration", "credential": right["credential"], "challenge": started["options"]["challenge"]})
    assert verdict["ok"], "py_webauthn keeps no challenges: the bytes themselves are right"


def test_an_assertion_naming_another_account_is_refused(http, enrolled):
    """The user handle is not signed: an assertion by this account's passkey that names another
    account (one with a passkey of its own) must not sign in as either. py_webauthn leaves user
    handles to the application, so this one is Latchkey's alone."""
    other = enroll(http, "passkey-other-account")
    started = authentication_options(http)
    made = peer("get", device=enrolled.device, options=started["options"], origin=ORIGIN)
    credential = made["credential"]
    credential["response"]["userHandle"] = b64url(other.user_id.encode())
    answer = http.post("/passkeys/authentication/verify", json={"challenge_id": started["challenge_id"], "credential": credential})
    refused(answer, "webauthn_verification_failed")
    # With no user handle, or one that names no account, nobody is signed in either.
    for user_handle in (None, b64url(b"not-a-user-id")):
        started = authentication_options(http)
        made = peer("get", device=made["device"], options=started["options"], origin=ORIGIN)
        credential = made["credential"]
        if user_handle is None:
            del credential["response"]["userHandle"]
        else:
            credential["response"]["userHandle"] = user_handle
        answer = http.post("/passkeys/authentication/verify", json={"challenge_id": started["challenge_id"], "credential": credential})
        refused(answer, "webauthn_verification_failed")
    enrolled.device = made["device"]
    sign_in(http, enrolled)
    sign_in(http, other)


def test_a_deleted_passkey_no_longer_signs_in(http):
    account = enroll(http, "passkey-deleted")
    session = sign_in(http, account)
    deleted = http.delete(f"/passkeys/{account.passkey_id}", headers=bearer(session["access_token"]))
    assert deleted.status_code == 204, deleted.text
    assert http.get("/passkeys", headers=bearer(session["access_token"])).json() == []
    started = authentication_options(http)
    made = peer("get", device=account.device, options=started["options"], origin=ORIGIN)
    answer = http.post("/passkeys/authentication/verify", json={"challenge_id": started["challenge_id"], "credential": made["credential"]})
    refused(answer, "webauthn_verification_failed")


def test_with_passkeys_off_every_passkey_route_answers_passkey_disabled(autoconfirm_server):
    with httpx.Client(base_url=autoconfirm_server.url, headers={"apikey": autoconfirm_server.anon_key}, timeout=HTTP_TIMEOUT) as http:
        assert http.get("/settings").json()["passkeys_enabled"] is False
        for method, path in (
            ("POST", "/passkeys/authentication/options"), ("POST", "/passkeys/authentication/verify"),
            ("POST", "/passkeys/registration/options"), ("GET", "/passkeys"),
        ):
            answer = http.request(method, path, json={} if method == "POST" else None)
            assert answer.status_code == 404, (path, answer.text)
            assert answer.json() == {"code": 404, "error_code": "passkey_disabled", "msg": "Passkeys are disabled"}, (path, answer.text)


# --- The rest of the contract, with the same authenticator -----------------------------------------


def test_list_rename_and_admin_routes(http, passkey_server):
    account = enroll(http, "passkey-manage")
    token = account.session["access_token"]
    [item] = http.get("/passkeys", headers=bearer(token)).json()
    assert item["id"] == account.passkey_id and item["friendly_name"] and item["created_at"], item
    assert "last_used_at" not in item or item["last_used_at"] is None, "never used yet"

    renamed = http.patch(f"/passkeys/{account.passkey_id}", json={"friendly_name": "Work laptop"}, headers=bearer(token))
    assert renamed.status_code == 200 and renamed.json()["friendly_name"] == "Work laptop", renamed.text
    assert renamed.json()["id"] == account.passkey_id
    for bad in ("", "x" * 121):
        answer = http.patch(f"/passkeys/{account.passkey_id}", json={"friendly_name": bad}, headers=bearer(token))
        assert answer.status_code == 400 and answer.json()["error_code"] == "validation_failed", (len(bad), answer.text)
    assert http.patch(f"/passkeys/{account.passkey_id}", json={"friendly_name": "x" * 120}, headers=bearer(token)).status_code == 200

    # Another account can neither see, rename nor delete it.
    stranger = sign_up(http, "passkey-stranger")["access_token"]
    assert http.get("/passkeys", headers=bearer(stranger)).json() == []
    for answer in (
        http.patch(f"/passkeys/{account.passkey_id}", json={"friendly_name": "Mine"}, headers=bearer(stranger)),
        http.delete(f"/passkeys/{account.passkey_id}", headers=bearer(stranger)),
    ):
        assert answer.status_code == 404 and answer.json()["error_code"] == "validation_failed", answer.text
        assert answer.json()["msg"] == "Passkey not found"

    # The service role lists and deletes it; then it no longer signs in.
    admin = {"apikey": passkey_server.service_role_key, "Authorization": f"Bearer {passkey_server.service_role_key}"}
    listed = http.get(f"/admin/users/{account.user_id}/passkeys", headers=admin)
    assert listed.status_code == 200 and [item["id"] for item in listed.json()] == [account.passkey_id], listed.text
    assert http.get(f"/admin/users/{account.user_id}/passkeys", headers=bearer(token)).status_code == 403
    deleted = http.delete(f"/admin/users/{account.user_id}/passkeys/{account.passkey_id}", headers=admin)
    assert deleted.status_code == 204, deleted.text
    assert http.get("/passkeys", headers=bearer(token)).json() == []
    started = authentication_options(http)
    made = peer("get", device=account.device, options=started["options"], origin=ORIGIN)
    refused(
        http.post("/passkeys/authentication/verify", json={"challenge_id": started["challenge_id"], "credential": made["credential"]}),
        "webauthn_verification_failed",
    )


def test_a_credential_registered_once_cannot_be_registered_again(http):
    account = enroll(http, "passkey-exists")
    other = sign_up(http, "passkey-exists-other")
    for token in (account.session["access_token"], other["access_token"]):
        started = registration_options(http, token)
        made = peer("create", options=started["options"], origin=ORIGIN, credential_id=account.device["credential_id"])
        answer = http.post(
            "/passkeys/registration/verify", json={"challenge_id": started["challenge_id"], "credential": made["credential"]},
            headers=bearer(token),
        )
        assert answer.status_code == 422 and answer.json()["error_code"] == "webauthn_credential_exists", answer.text
    sign_in(http, account)  # the passkey on file is untouched


def test_a_registration_challenge_belongs_to_the_account_it_was_made_for(http):
    first = sign_up(http, "passkey-challenge-owner")
    second = sign_up(http, "passkey-challenge-thief")
    started = registration_options(http, first["access_token"])
    made = peer("create", options=started["options"], origin=ORIGIN)
    answer = http.post(
        "/passkeys/registration/verify", json={"challenge_id": started["challenge_id"], "credential": made["credential"]},
        headers=bearer(second["access_token"]),
    )
    refused(answer, "webauthn_challenge_not_found")
    assert http.get("/passkeys", headers=bearer(second["access_token"])).json() == []


def test_verify_bodies_missing_parts_are_validation_failed(http, enrolled):
    token = enrolled.session["access_token"]
    credential = peer("create", options=registration_options(http, token)["options"], origin=ORIGIN)["credential"]
    for path, headers in (("/passkeys/registration/verify", bearer(token)), ("/passkeys/authentication/verify", {})):
        for body in ({"credential": credential}, {"challenge_id": "not-a-uuid", "credential": credential},
                     {"challenge_id": "6f1c3a52-9a4e-4c0e-8d7e-2f4b1b7c9d10"}):
            answer = http.post(path, json=body, headers=headers)
            assert answer.status_code == 400 and answer.json()["error_code"] == "validation_failed", (path, body.keys(), answer.text)
    # A well-formed id that names no challenge.
    answer = http.post("/passkeys/authentication/verify", json={"challenge_id": "6f1c3a52-9a4e-4c0e-8d7e-2f4b1b7c9d10", "credential": credential})
    refused(answer, "webauthn_challenge_not_found")
    # A credential that is not a credential.
    started = authentication_options(http)
    refused(
        http.post("/passkeys/authentication/verify", json={"challenge_id": started["challenge_id"], "credential": {"id": "x"}}),
        "webauthn_verification_failed",
    )


def test_the_per_user_limit_is_too_many_passkeys(latchkey_bin: Path, _server_root: Path):
    server = _start_server(
        latchkey_bin, _server_root, autoconfirm=True, name="passkeys-limit",
        extra_args=("--passkeys-enabled", "--webauthn-rp-id", RP_ID, "--webauthn-rp-origins", ORIGIN, "--passkeys-per-user", "2"),
    )
    try:
        with httpx.Client(base_url=server.url, headers={"apikey": server.anon_key}, timeout=HTTP_TIMEOUT) as client:
            token = sign_up(client, "passkey-limit")["access_token"]
            for number in (1, 2, 3):
                answer = client.post("/passkeys/registration/options", json={}, headers=bearer(token))
                if number <= 2:
                    assert answer.status_code == 200, answer.text
                    made = peer("create", options=answer.json()["options"], origin=ORIGIN)
                    verified = client.post(
                        "/passkeys/registration/verify", json={"challenge_id": answer.json()["challenge_id"], "credential": made["credential"]},
                        headers=bearer(token),
                    )
                    assert verified.status_code == 200, verified.text
                else:
                    assert answer.status_code == 422 and answer.json()["error_code"] == "too_many_passkeys", answer.text
    finally:
        _stop_server(server)


def test_a_banned_account_cannot_sign_in_with_its_passkey(http, passkey_server):
    account = enroll(http, "passkey-banned")
    admin = {"apikey": passkey_server.service_role_key, "Authorization": f"Bearer {passkey_server.service_role_key}"}
    banned = http.put(f"/admin/users/{account.user_id}", json={"ban_duration": "24h"}, headers=admin)
    assert banned.status_code == 200, banned.text
    started = authentication_options(http)
    made = peer("get", device=account.device, options=started["options"], origin=ORIGIN)
    answer = http.post("/passkeys/authentication/verify", json={"challenge_id": started["challenge_id"], "credential": made["credential"]})
    assert answer.status_code == 403 and answer.json()["error_code"] == "user_banned", answer.text
    account.device = made["device"]
    assert http.put(f"/admin/users/{account.user_id}", json={"ban_duration": "none"}, headers=admin).status_code == 200
    sign_in(http, account)


def test_an_expired_challenge_is_webauthn_challenge_expired(latchkey_bin: Path, _server_root: Path):
    server = _start_server(
        latchkey_bin, _server_root, autoconfirm=True, name="passkeys-expiry",
        extra_args=("--passkeys-enabled", "--webauthn-rp-id", RP_ID, "--webauthn-rp-origins", ORIGIN, "--webauthn-challenge-expiry", "1"),
    )
    try:
        with httpx.Client(base_url=server.url, headers={"apikey": server.anon_key}, timeout=HTTP_TIMEOUT) as client:
            token = sign_up(client, "passkey-expiry")["access_token"]
            registration = client.post("/passkeys/registration/options", json={}, headers=bearer(token)).json()
            authentication = client.post("/passkeys/authentication/options", json={}).json()
            made = peer("create", options=registration["options"], origin=ORIGIN)
            # Waits (on the clock, with a deadline) until both challenges are past their expires_at.
            latest = max(registration["expires_at"], authentication["expires_at"])
            assert latest - time.time() < 5, "expires_at is the challenge expiry (1 s) away"
            while time.time() <= latest + 1:
                time.sleep(0.05)
            answer = client.post(
                "/passkeys/registration/verify", json={"challenge_id": registration["challenge_id"], "credential": made["credential"]},
                headers=bearer(token),
            )
            refused(answer, "webauthn_challenge_expired")
            assertion = peer("get", device=made["device"], options=authentication["options"], origin=ORIGIN)
            answer = client.post(
                "/passkeys/authentication/verify", json={"challenge_id": authentication["challenge_id"], "credential": assertion["credential"]}
            )
            refused(answer, "webauthn_challenge_expired")
    finally:
        _stop_server(server)


def test_with_a_verified_totp_factor_managing_passkeys_needs_aal2(http):
    """GoTrue's requirePasskeyManagementAAL: registering (options and verify) and deleting need an
    aal2 session once the account has a verified factor; renaming does not."""
    from test_mfa import totp

    account = enroll(http, "passkey-aal")
    token = account.session["access_token"]
    factor = http.post("/factors", json={"factor_type": "totp"}, headers=bearer(token))
    assert factor.status_code == 200, factor.text
    factor_id, secret = factor.json()["id"], factor.json()["totp"]["secret"]
    challenge = http.post(f"/factors/{factor_id}/challenge", json={}, headers=bearer(token))
    assert challenge.status_code == 200, challenge.text
    verified = http.post(
        f"/factors/{factor_id}/verify", json={"challenge_id": challenge.json()["id"], "code": totp(secret)}, headers=bearer(token)
    )
    assert verified.status_code == 200, verified.text
    aal2 = verified.json()["access_token"]
    assert json.loads(b64url_decode(aal2.split(".")[1]))["aal"] == "aal2"
    signed_in = http.post("/token?grant_type=password", json={"email": account.session["user"]["email"], "password": PASSWORD})
    assert signed_in.status_code == 200, signed_in.text
    aal1 = signed_in.json()["access_token"]
    assert json.loads(b64url_decode(aal1.split(".")[1]))["aal"] == "aal1"

    def insufficient(answer: httpx.Response) -> None:
        assert answer.status_code == 403 and answer.json()["error_code"] == "insufficient_aal", answer.text

    insufficient(http.post("/passkeys/registration/options", json={}, headers=bearer(aal1)))
    started = registration_options(http, aal2)
    made = peer("create", options=started["options"], origin=ORIGIN)
    insufficient(
        http.post("/passkeys/registration/verify", json={"challenge_id": started["challenge_id"], "credential": made["credential"]},
                  headers=bearer(aal1))
    )
    insufficient(http.delete(f"/passkeys/{account.passkey_id}", headers=bearer(aal1)))
    renamed = http.patch(f"/passkeys/{account.passkey_id}", json={"friendly_name": "Renamed at aal1"}, headers=bearer(aal1))
    assert renamed.status_code == 200, renamed.text

    started = registration_options(http, aal2)
    made = peer("create", options=started["options"], origin=ORIGIN)
    answer = http.post(
        "/passkeys/registration/verify", json={"challenge_id": started["challenge_id"], "credential": made["credential"]},
        headers=bearer(aal2),
    )
    assert answer.status_code == 200, answer.text
    assert http.delete(f"/passkeys/{account.passkey_id}", headers=bearer(aal2)).status_code == 204


def test_malformed_credentials_are_refused_never_a_server_error(http, enrolled):
    """Credential JSON a client might send by mistake (or on purpose): each one a 400
    webauthn_verification_failed, never a 5xx."""
    token = enrolled.session["access_token"]
    registration = peer("create", options=registration_options(http, token)["options"], origin=ORIGIN)["credential"]
    assertion = peer("get", device=enrolled.device, options=authentication_options(http)["options"], origin=ORIGIN)["credential"]

    def changed(credential: dict, **response) -> dict:
        return {**credential, "response": {**credential["response"], **response}}

    malformed = {
        "a string": "credential",
        "an array": [],
        "empty": {},
        "no response": {key: value for key, value in registration.items() if key != "response"},
        "response an array": {**registration, "response": []},
        "type not public-key": {**registration, "type": "password"},
        "clientDataJSON not base64url": changed(registration, clientDataJSON="%%%"),
        "clientDataJSON not JSON": changed(registration, clientDataJSON=b64url(b"{not json")),
        "attestationObject not CBOR": changed(registration, attestationObject=b64url(b"\xff\x00\x01")),
        "attestationObject truncated": changed(registration, attestationObject=registration["response"]["attestationObject"][:40]),
        "authenticatorData short": changed(assertion, authenticatorData=b64url(b"\x00" * 10)),
        "signature empty": changed(assertion, signature=""),
        "clientDataJSON a number": changed(assertion, clientDataJSON=12),
    }
    for name, credential in malformed.items():
        for path, headers in (("/passkeys/registration/verify", bearer(token)), ("/passkeys/authentication/verify", {})):
            started = registration_options(http, token) if "registration" in path else authentication_options(http)
            answer = http.post(path, json={"challenge_id": started["challenge_id"], "credential": credential}, headers=headers)
            assert answer.status_code == 400, (name, path, answer.status_code, answer.text)
            # GoTrue: a credential that is there but does not parse fails verification.
            assert answer.json()["error_code"] == "webauthn_verification_failed", (name, path, answer.text)
