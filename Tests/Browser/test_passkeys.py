"""Passkeys in a real browser: headless Chromium's virtual authenticator against `latchkey serve`.

What is real: the browser (Chromium's own WebAuthn client: it builds clientDataJSON with the
page's origin, checks the RP ID against it, and talks CTAP2 to the authenticator), the
authenticator (Chromium's virtual authenticator, added through WebDriver: internal transport,
resident keys, user verification), and the server (`latchkey serve --passkeys-enabled`). The
web app is a small static page (passkey_test_page/) served by Python's http.server on
http://localhost:<port> (a secure context) and listed in --webauthn-rp-origins; it calls the
routes as a web app does: fetch with the `apikey` header, the server's options handed to
`PublicKeyCredential.parseCreationOptionsFromJSON` / `parseRequestOptionsFromJSON`, and
`credential.toJSON()` sent back. The same page served from another port, which the server does
not list, stands for a look-alike site.

Each action on the page ends by writing its outcome (with a trace of the calls it made) into
#result; the test waits for that with a deadline, never a fixed sleep. Screenshots go where
the other browser tests put theirs (the README shows them).
"""

from __future__ import annotations

import base64
import functools
import http.server
import json
import os
import shutil
import tempfile
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import PASSWORD, WAIT, add_authenticator, api, latchkey_keys, start_chromium
from latchkey_process import Process, latchkey_binary, start_latchkey, unique_email
from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import Credential
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

PAGE_DIRECTORY = Path(__file__).resolve().parent / "passkey_test_page"
RP_ID = "localhost"
RP_NAME = "Latchkey passkeys test"
SESSION_KEY = "latchkey-test-app-session"


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


# --- The test app's pages ---------------------------------------------------------------------


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


@dataclass
class Site:
    """passkey_test_page/ served on one origin."""

    origin: str
    httpd: http.server.ThreadingHTTPServer


def _serve_page() -> Site:
    handler = functools.partial(_QuietHandler, directory=str(PAGE_DIRECTORY))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, name=f"test page {httpd.server_address[1]}", daemon=True).start()
    # http://localhost is a secure context (WebAuthn needs one) and a valid origin for RP ID localhost.
    return Site(origin=f"http://localhost:{httpd.server_address[1]}", httpd=httpd)


@dataclass
class Sites:
    listed: Site
    """An origin in --webauthn-rp-origins: the web app."""
    unlisted: Site
    """Another port on the same host: a look-alike the server does not list."""


@pytest.fixture(scope="module")
def sites() -> Iterator[Sites]:
    listed, unlisted = _serve_page(), _serve_page()
    yield Sites(listed=listed, unlisted=unlisted)
    for site in (listed, unlisted):
        site.httpd.shutdown()
        site.httpd.server_close()


@pytest.fixture(scope="module")
def server(sites: Sites) -> Iterator[Process]:
    """This module's own `latchkey serve` (named `server`, so a failure report shows its log):
    passkeys on, relying party `localhost` at the listed site's origin only, autoconfirm."""
    binary = latchkey_binary()
    if binary is None:
        pytest.exit("latchkey binary not found: build it (swift build --product latchkey) and set LATCHKEY_BIN", returncode=2)
    root = Path(tempfile.mkdtemp(prefix="latchkey-browser-passkeys-"))
    started = start_latchkey(
        binary, root, "passkeys",
        [
            "--rate-limit-signin", "100000", "--rate-limit-verify", "100000", "--rate-limit-passkey", "100000", "--autoconfirm",
            "--passkeys-enabled", "--webauthn-rp-id", RP_ID, "--webauthn-rp-display-name", RP_NAME,
            "--webauthn-rp-origins", sites.listed.origin,
        ],
    )
    yield started
    started.stop()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def anon_key(server: Process) -> str:
    """The anon key `latchkey keys` prints for the server: what a web app ships."""
    return latchkey_keys(server)["anon"]


class App:
    """The test app in one browser, on one origin."""

    def __init__(self, driver, site: Site, server: Process, anon_key: str, screenshots: Path) -> None:
        self.driver, self.site, self.server, self.anon_key, self.screenshots = driver, site, server, anon_key, screenshots

    def open(self) -> None:
        query = urllib.parse.urlencode({"server": self.server.url, "apikey": self.anon_key})
        self.driver.get(f"{self.site.origin}/index.html?{query}")
        WebDriverWait(self.driver, WAIT).until(EC.text_to_be_present_in_element((By.ID, "origin"), self.site.origin))

    def act(self, button_id: str) -> dict:
        """Presses a button and returns the outcome the page writes when the action is over."""
        result = self.driver.find_element(By.ID, "result")
        seq = int(result.get_attribute("data-seq"))
        WebDriverWait(self.driver, WAIT).until(EC.element_to_be_clickable((By.ID, button_id))).click()
        WebDriverWait(self.driver, WAIT).until(
            lambda _: result.get_attribute("data-seq") == str(seq + 1) and result.get_attribute("data-state") == "done"
        )
        return json.loads(result.get_attribute("textContent"))

    def sign_in_with_password(self, email: str) -> dict:
        for field, value in (("email", email), ("password", PASSWORD)):
            element = WebDriverWait(self.driver, WAIT).until(EC.element_to_be_clickable((By.ID, field)))
            element.clear()
            element.send_keys(value)
        return self.act("password-sign-in")

    def session(self) -> dict | None:
        return self.driver.execute_script(f"return JSON.parse(sessionStorage.getItem('{SESSION_KEY}') || 'null')")

    def shoot(self, name: str) -> None:
        assert self.driver.save_screenshot(str(self.screenshots / f"{name}.png")), name


def sign_up(server: Process, prefix: str) -> tuple[str, str]:
    """A confirmed account with a password (the server autoconfirms): its email and id."""
    email = unique_email(prefix)
    status, answer = api(server, "POST", "/signup", {"email": email, "password": PASSWORD})
    assert status == 200, answer
    return email, answer["user"]["id"]


def authorized(server: Process, method: str, path: str, access_token: str, anon_key: str) -> tuple[int, object]:
    """A call with the session's bearer token and the apikey header, from the test (not the page)."""
    request = urllib.request.Request(
        server.url + path, method=method, headers={"Authorization": f"Bearer {access_token}", "apikey": anon_key}
    )
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            body = response.read()
            return response.status, json.loads(body) if body else None
    except urllib.error.HTTPError as error:
        body = error.read()
        return error.code, json.loads(body) if body else None


def jwt_claims(token: str) -> dict:
    return json.loads(b64url_decode(token.split(".")[1]))


def register_passkey(app: App, email: str) -> dict:
    """Signs in with the password on the page and adds a passkey there; returns the outcome."""
    app.open()
    signed_in = app.sign_in_with_password(email)
    assert signed_in["ok"], signed_in
    added = app.act("add-passkey")
    assert added["ok"], added
    return added


def assert_refused_by_server(outcome: dict, error_code: str, last_call: str) -> None:
    """The browser made its credential and the server turned it down."""
    assert not outcome["ok"], outcome
    assert outcome.get("status") == 400 and outcome["body"]["error_code"] == error_code, outcome
    assert outcome["trace"][-1] == last_call, outcome["trace"]


# --- The tests ----------------------------------------------------------------------------------


def test_a_passkey_added_in_the_browser_signs_in_with_no_email_typed(server, sites, anon_key, browser, screenshots):
    status, settings = api(server, "GET", "/settings")
    assert status == 200 and settings.get("passkeys_enabled") is True, settings
    email, user_id = sign_up(server, "browser-passkey")
    add_authenticator(browser)
    app = App(browser, sites.listed, server, anon_key, screenshots)

    app.open()
    signed_in = app.sign_in_with_password(email)
    assert signed_in["ok"] and signed_in["user"] == user_id, signed_in
    app.shoot("passkeys-1-signed-in-with-password")

    added = app.act("add-passkey")
    assert added["ok"], added
    assert added["trace"] == [
        "POST /passkeys/registration/options -> 200", "navigator.credentials.create -> credential",
        "POST /passkeys/registration/verify -> 200",
    ]
    app.shoot("passkeys-2-passkey-added")
    options = added["options"]
    assert options["rp"] == {"id": RP_ID, "name": RP_NAME}, options["rp"]
    assert b64url_decode(options["user"]["id"]) == user_id.encode(), "the user handle is the account's id"
    assert options["user"]["name"] == email
    assert len(b64url_decode(options["challenge"])) == 32
    assert {-7, -257} <= {param["alg"] for param in options["pubKeyCredParams"]}
    assert options["authenticatorSelection"]["residentKey"] == "required"
    assert options["attestation"] == "none"
    assert "excludeCredentials" not in options, "no passkey yet, nothing to exclude"
    passkey = added["passkey"]
    assert passkey["id"] and passkey["friendly_name"] and passkey["created_at"], passkey

    # The authenticator keeps it as a discoverable credential for this relying party and account.
    [held] = browser.get_credentials()
    assert held.is_resident_credential and held.rp_id == RP_ID
    assert base64.urlsafe_b64decode(held.user_handle) == user_id.encode()
    assert b64url(base64.urlsafe_b64decode(held.id)) == added["credentialId"]
    count_after_registration = held.sign_count

    # The server lists it for the account.
    status, listed = authorized(server, "GET", "/passkeys", app.session()["access_token"], anon_key)
    assert status == 200 and [item["id"] for item in listed] == [passkey["id"]], listed

    signed_out = app.act("sign-out")
    assert signed_out["ok"] and signed_out["trace"] == ["POST /logout -> 204"], signed_out
    assert app.session() is None
    app.open()  # a later visit: nothing typed, nothing remembered by the page
    assert browser.find_element(By.ID, "email").get_attribute("value") == ""
    app.shoot("passkeys-3-signed-out")

    passkey_sign_in = app.act("passkey-sign-in")
    assert passkey_sign_in["ok"], passkey_sign_in
    assert passkey_sign_in["trace"] == [
        "POST /passkeys/authentication/options -> 200", "navigator.credentials.get -> credential",
        "POST /passkeys/authentication/verify -> 200", "GET /user -> 200",
    ]
    assert "allowCredentials" not in passkey_sign_in["options"], "discoverable: the server names no credential"
    assert passkey_sign_in["options"]["rpId"] == RP_ID
    assert passkey_sign_in["credentialId"] == added["credentialId"]
    assert passkey_sign_in["user"] == user_id and passkey_sign_in["email"] == email
    WebDriverWait(browser, WAIT).until(EC.text_to_be_present_in_element((By.ID, "who"), email))
    app.shoot("passkeys-4-signed-in-with-passkey")

    # The session is the usual one, and the server takes it for an authorized call.
    session = app.session()
    assert session["token_type"] == "bearer" and session["refresh_token"] and session["expires_in"] > 0, session
    assert session["user"]["id"] == user_id
    assert "passkey" in {entry["method"] for entry in jwt_claims(session["access_token"])["amr"]}
    status, user = authorized(server, "GET", "/user", session["access_token"], anon_key)
    assert status == 200 and user["id"] == user_id and user["email"] == email, user
    status, listed = authorized(server, "GET", "/passkeys", session["access_token"], anon_key)
    assert status == 200 and len(listed) == 1 and listed[0]["id"] == passkey["id"] and listed[0].get("last_used_at"), listed
    [held] = browser.get_credentials()
    assert held.sign_count > count_after_registration

    # The server names the passkey in excludeCredentials, so the authenticator that holds it
    # refuses to make a second one for the account, and nothing reaches the verify route.
    again = app.act("add-passkey")
    assert not again["ok"] and again["error"]["name"] == "InvalidStateError", again
    assert again["trace"] == ["POST /passkeys/registration/options -> 200"], again
    assert len(browser.get_credentials()) == 1


def test_a_browser_without_the_passkey_gets_no_credential_and_a_forged_one_is_refused(
    server, sites, anon_key, browser, screenshots
):
    email, user_id = sign_up(server, "browser-passkey-other")
    add_authenticator(browser)
    register_passkey(App(browser, sites.listed, server, anon_key, screenshots), email)

    other = start_chromium()  # a fresh profile with an authenticator of its own
    try:
        add_authenticator(other)
        app = App(other, sites.listed, server, anon_key, screenshots)
        app.open()
        nothing = app.act("passkey-sign-in")
        assert not nothing["ok"] and nothing["error"]["name"] == "NotAllowedError", nothing
        assert nothing["trace"] == ["POST /passkeys/authentication/options -> 200"], "no credential, nothing sent"
        assert app.session() is None
        app.shoot("passkeys-5-other-browser-has-no-passkey")

        # A passkey the server never registered, made for this relying party and claiming the
        # account (its user handle is the account's id, which is no secret): the authenticator
        # signs, the server refuses.
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec

        key = ec.generate_private_key(ec.SECP256R1())
        pkcs8 = key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        other.add_credential(Credential.create_resident_credential(os.urandom(32), RP_ID, user_id.encode(), pkcs8, 0))
        forged = app.act("passkey-sign-in")
        assert_refused_by_server(forged, "webauthn_verification_failed", "POST /passkeys/authentication/verify -> 400")
        assert app.session() is None
        app.shoot("passkeys-6-other-browser-refused")
    finally:
        other.quit()

    # The account's own passkey, in its own browser, still signs in.
    app = App(browser, sites.listed, server, anon_key, screenshots)
    app.act("sign-out")
    signed_in = app.act("passkey-sign-in")
    assert signed_in["ok"] and signed_in["user"] == user_id, signed_in


def test_a_page_on_an_origin_the_server_does_not_list_is_refused(server, sites, anon_key, browser, screenshots):
    email, user_id = sign_up(server, "browser-passkey-origin")
    add_authenticator(browser)
    listed = App(browser, sites.listed, server, anon_key, screenshots)
    added = register_passkey(listed, email)
    assert listed.act("sign-out")["ok"]

    # Same host, another port: the browser lets it use RP ID localhost (and so the passkey), but
    # its origin is in the client data the authenticator signs, and the server does not list it.
    unlisted = App(browser, sites.unlisted, server, anon_key, screenshots)
    unlisted.open()
    refused = unlisted.act("passkey-sign-in")
    assert_refused_by_server(refused, "webauthn_verification_failed", "POST /passkeys/authentication/verify -> 400")
    assert unlisted.session() is None
    unlisted.shoot("passkeys-7-unlisted-origin-refused")

    # The refusal spent nothing of the passkey's: on the listed origin it signs in.
    listed.open()
    signed_in = listed.act("passkey-sign-in")
    assert signed_in["ok"] and signed_in["user"] == user_id and signed_in["credentialId"] == added["credentialId"], signed_in
    token = listed.session()["access_token"]

    status, passkeys = authorized(server, "GET", "/passkeys", token, anon_key)
    assert status == 200 and [item["id"] for item in passkeys] == [added["passkey"]["id"]], passkeys

    # Adding a passkey from the unlisted origin is refused as well: the browser makes one, the
    # server does not keep it. (Another account, with no passkey yet: for this one the server's
    # excludeCredentials would have the authenticator refuse before anything is sent.)
    other_email, _ = sign_up(server, "browser-passkey-origin-add")
    unlisted.open()
    assert unlisted.sign_in_with_password(other_email)["ok"]
    not_added = unlisted.act("add-passkey")
    assert_refused_by_server(not_added, "webauthn_verification_failed", "POST /passkeys/registration/verify -> 400")
    assert "navigator.credentials.create -> credential" in not_added["trace"]
    unlisted.shoot("passkeys-8-unlisted-origin-cannot-add")
    status, passkeys = authorized(server, "GET", "/passkeys", unlisted.session()["access_token"], anon_key)
    assert status == 200 and passkeys == [], passkeys
