"""Passkeys on the hosted pages in a real browser: headless Chromium with its virtual
authenticator against `latchkey serve` whose own origin is its relying party's origin.

The server is reached as http://localhost:<port> (its --external-url, so mailed links point
there; localhost is a secure context and a valid RP ID), and lists that origin in
--webauthn-rp-origins, so its pages offer passkeys and run welcome/passkey.js. A recovery link
from the outbox leads to the set-new-password form, "Add a passkey instead" registers a passkey
for the account, and the hosted sign-in page (/welcome/sign-in, as an app would open it in an
ASWebAuthenticationSession) signs in with it and lands on `redirect_to`: the session in the
fragment, or a PKCE code that /token exchanges. A browser without the passkey, one whose
authenticator holds a passkey the server never registered, and one without WebAuthn are each
shown what happened, and lose nothing.

Every step waits on a condition (a heading, a URL, a message) with a deadline; none sleeps.
Screenshots go with the other browser tests' (Documentation/screenshots/hosted-passkey-*.png are
copies).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import shutil
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import PASSWORD, WAIT, add_authenticator, api, start_chromium, wait_for_text
from latchkey_process import Process, latchkey_binary, start_latchkey, unique_email
from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import Credential
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait
from test_hosted_pages import NEW_PASSWORD, open_from_mail, shoot, wait_for_heading

RP_ID = "localhost"
NO_WEBAUTHN = "delete window.PublicKeyCredential;"


@pytest.fixture(scope="module")
def server() -> Iterator[Process]:
    """This module's own `latchkey serve` (named `server`, so a failure report shows its log):
    at http://localhost:<port>, passkeys on for that origin, autoconfirm."""
    binary = latchkey_binary()
    if binary is None:
        pytest.exit("latchkey binary not found: build it (swift build --product latchkey) and set LATCHKEY_BIN", returncode=2)
    root = Path(tempfile.mkdtemp(prefix="latchkey-browser-hosted-passkeys-"))
    started = start_latchkey(
        binary, root, "hosted-passkeys",
        [
            "--rate-limit-signin", "100000", "--rate-limit-verify", "100000", "--rate-limit-passkey", "100000", "--autoconfirm",
            "--external-url", "http://localhost:{port}",
            "--passkeys-enabled", "--webauthn-rp-id", RP_ID, "--webauthn-rp-origins", "http://localhost:{port}",
        ],
    )
    yield started
    started.stop()
    shutil.rmtree(root, ignore_errors=True)


def site(server: Process) -> str:
    """The server as the browser reaches it: its external URL."""
    return server.url.replace("://127.0.0.1:", "://localhost:")


def sign_up(server: Process, prefix: str) -> dict:
    status, session = api(server, "POST", "/signup", {"email": unique_email(prefix), "password": PASSWORD})
    assert status == 200, session
    return session


def follow_recovery_link(browser, server: Process, email: str) -> None:
    assert api(server, "POST", "/recover", {"email": email})[0] == 200
    mail = server.outbox.next_mail(email)
    assert mail.link_params["type"] == "recovery", mail.subject
    assert mail.verify_link.startswith(site(server) + "/verify?"), mail.verify_link
    open_from_mail(browser, mail.verify_link)
    arrive(browser, site(server) + "/welcome/password", "Choose a new password")


def user_with_bearer(server: Process, access_token: str) -> tuple[int, dict]:
    request = urllib.request.Request(server.url + "/user", headers={"Authorization": f"Bearer {access_token}"})
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def amr_methods(access_token: str) -> set[str]:
    payload = access_token.split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    return {entry["method"] for entry in claims["amr"]}


def arrive(browser, url: str, heading: str) -> None:
    """Waits for a navigation to `url` to finish with `heading` on the page."""
    WebDriverWait(browser, WAIT).until(EC.url_to_be(url))
    wait_for_text(browser, (By.TAG_NAME, "h1"), heading)


def press_passkey_button(browser, label: str):
    button = WebDriverWait(browser, WAIT).until(EC.element_to_be_clickable((By.ID, "passkey-button")))
    assert button.text == label
    button.click()


def wait_for_problem(browser, text: str) -> str:
    WebDriverWait(browser, WAIT).until(EC.text_to_be_present_in_element((By.ID, "passkey-problem"), text))
    problem = browser.find_element(By.ID, "passkey-problem")
    assert problem.get_attribute("role") == "alert" and problem.is_displayed()
    # Pressing again is possible: nothing was lost.
    WebDriverWait(browser, WAIT).until(EC.element_to_be_clickable((By.ID, "passkey-button")))
    return problem.text


def test_a_recovery_link_adds_a_passkey_and_the_sign_in_page_signs_in_with_it(server, browser, screenshots):
    signed_up = sign_up(server, "hosted-passkey")
    email, user_id = signed_up["user"]["email"], signed_up["user"]["id"]
    add_authenticator(browser)

    follow_recovery_link(browser, server, email)
    WebDriverWait(browser, WAIT).until(EC.visibility_of_element_located((By.ID, "passkey")))
    assert browser.find_element(By.ID, "password").is_displayed(), "the password form is offered as well"
    browser.set_window_size(720, 1000)  # the whole form, the passkey offer below it
    shoot(browser, screenshots, "hosted-passkey-offered")
    browser.set_window_size(720, 720)

    press_passkey_button(browser, "Add a passkey instead")
    arrive(browser, site(server) + "/welcome/passkey-added", "Passkey added")
    shoot(browser, screenshots, "hosted-passkey-added")

    # The authenticator keeps a discoverable passkey for the server's relying party and account.
    [held] = browser.get_credentials()
    assert held.is_resident_credential and held.rp_id == RP_ID
    assert base64.urlsafe_b64decode(held.user_handle) == user_id.encode()
    # As after a password change from the page: the sessions from before end, the ticket is spent.
    status, _ = api(server, "POST", "/token?grant_type=refresh_token", {"refresh_token": signed_up["refresh_token"]})
    assert status == 400
    assert "latchkey_form_ticket" not in {cookie["name"] for cookie in browser.get_cookies()}
    browser.get(site(server) + "/welcome/password")
    wait_for_heading(browser, "This form has expired")
    assert api(server, "POST", "/token?grant_type=password", {"email": email, "password": PASSWORD})[0] == 200, "password kept"

    # The hosted sign-in page, as an app opens it: the session lands in redirect_to's fragment.
    landing = server.url + "/"
    browser.get(site(server) + "/welcome/sign-in?" + urllib.parse.urlencode({"redirect_to": landing}))
    wait_for_heading(browser, "Sign in")
    WebDriverWait(browser, WAIT).until(EC.element_to_be_clickable((By.ID, "passkey-button")))
    assert not browser.find_element(By.ID, "passkey-unsupported").is_displayed()
    shoot(browser, screenshots, "hosted-passkey-sign-in")
    press_passkey_button(browser, "Sign in with a passkey")
    WebDriverWait(browser, WAIT).until(lambda driver: driver.current_url.startswith(landing + "#"))
    fragment = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(browser.current_url).fragment))
    assert set(fragment) == {"access_token", "expires_at", "expires_in", "refresh_token", "token_type"}, fragment
    status, user = user_with_bearer(server, fragment["access_token"])
    assert status == 200 and user["id"] == user_id and user["email"] == email, user
    assert "passkey" in amr_methods(fragment["access_token"])
    log = server.log_path.read_text(errors="replace")
    assert fragment["access_token"] not in log and fragment["refresh_token"] not in log, "tokens are never logged"

    # With a PKCE challenge it lands with ?code=, which only the verifier's holder exchanges.
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    query = {"redirect_to": landing, "code_challenge": challenge, "code_challenge_method": "s256"}
    browser.get(site(server) + "/welcome/sign-in?" + urllib.parse.urlencode(query))
    press_passkey_button(browser, "Sign in with a passkey")
    WebDriverWait(browser, WAIT).until(lambda driver: driver.current_url.startswith(landing + "?code="))
    [code] = urllib.parse.parse_qs(urllib.parse.urlsplit(browser.current_url).query)["code"]
    assert "#" not in browser.current_url
    status, session = api(server, "POST", "/token?grant_type=pkce", {"auth_code": code, "code_verifier": verifier})
    assert status == 200 and session["user"]["id"] == user_id, session
    assert "passkey" in amr_methods(session["access_token"])

    # The script kept nothing in the browser.
    browser.get(site(server) + "/welcome/sign-in")
    assert browser.execute_script("return window.localStorage.length + window.sessionStorage.length") == 0


def test_a_browser_without_the_passkey_is_refused_and_told_why(server, browser, screenshots):
    signed_up = sign_up(server, "hosted-passkey-other")
    user_id = signed_up["user"]["id"]
    add_authenticator(browser)  # an authenticator of its own, with no passkey for this site

    browser.get(site(server) + "/welcome/sign-in?" + urllib.parse.urlencode({"redirect_to": server.url + "/"}))
    press_passkey_button(browser, "Sign in with a passkey")
    message = wait_for_problem(browser, "No passkey was used")
    assert "no passkey for this site" in message
    assert browser.current_url.startswith(site(server) + "/welcome/sign-in"), "still on the page"
    shoot(browser, screenshots, "hosted-passkey-refused")

    # A passkey the server never registered, claiming the account (its user handle is the
    # account's id, no secret): the authenticator signs, the server refuses, the page says so.
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    pkcs8 = key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    browser.add_credential(Credential.create_resident_credential(os.urandom(32), RP_ID, user_id.encode(), pkcs8, 0))
    press_passkey_button(browser, "Sign in with a passkey")
    message = wait_for_problem(browser, "This passkey was not accepted")
    assert browser.current_url.startswith(site(server) + "/welcome/sign-in")
    shoot(browser, screenshots, "hosted-passkey-not-accepted")


def test_without_webauthn_the_pages_offer_no_passkey_and_work_as_before(server):
    signed_up = sign_up(server, "hosted-passkey-none")
    email = signed_up["user"]["email"]
    driver = start_chromium()
    try:
        # A browser without WebAuthn: the page's own script finds no PublicKeyCredential.
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": NO_WEBAUTHN})
        driver.get(site(server) + "/welcome/sign-in")
        wait_for_heading(driver, "Sign in")
        WebDriverWait(driver, WAIT).until(EC.visibility_of_element_located((By.ID, "passkey-unsupported")))
        assert not driver.find_element(By.ID, "passkey-button").is_displayed()

        follow_recovery_link(driver, server, email)
        assert not driver.find_element(By.ID, "passkey").is_displayed()
        assert not driver.find_element(By.ID, "passkey-button").is_displayed()
        driver.find_element(By.ID, "password").send_keys(NEW_PASSWORD)
        driver.find_element(By.ID, "password-confirmation").send_keys(NEW_PASSWORD)
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        arrive(driver, site(server) + "/welcome/password-changed", "Password changed")
        assert api(server, "POST", "/token?grant_type=password", {"email": email, "password": NEW_PASSWORD})[0] == 200
    finally:
        driver.quit()
