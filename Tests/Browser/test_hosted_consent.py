"""The OAuth 2.1 server's own consent page in a real browser: a second app sends Chromium to
`/oauth/authorize` of `latchkey serve --oauth-server` (no consent page of the app's own), the
person reads who asks and for what, signs in and allows (or denies), and the browser lands back
at the app with a code that the app then redeems. Then the person takes the app back on the
server's "Apps that can sign in as you" page, and the app's refresh token stops working.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import shutil
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import PASSWORD, WAIT, api, latchkey_keys, wait_for_text
from latchkey_process import Process, latchkey_binary, start_latchkey, unique_email
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


@pytest.fixture(scope="module")
def oauth_server() -> Iterator[Process]:
    binary = latchkey_binary()
    assert binary is not None
    root = Path(tempfile.mkdtemp(prefix="latchkey-browser-oauth-"))
    started = start_latchkey(binary, root, "oauth", ["--oauth-server", "--autoconfirm", "--rate-limit-signin", "100000"])
    yield started
    started.stop()
    shutil.rmtree(root, ignore_errors=True)


def admin(server: Process, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(
        server.url + path, method=method, data=json.dumps(body).encode() if body is not None else None,
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {latchkey_keys(server)['service_role']}"},
    )
    with urllib.request.urlopen(request, timeout=WAIT) as response:
        return response.status, json.loads(response.read() or b"{}")


def start(server: Process) -> tuple[dict, str, str, str]:
    """A registered app, a user, and the authorize URL the app sends the browser to (with its verifier)."""
    redirect = server.url + "/"
    status, client = admin(server, "POST", "/admin/oauth/clients", {"client_name": "Example Notes", "redirect_uris": [redirect]})
    assert status == 201, client
    email = unique_email("consent")
    assert api(server, "POST", "/signup", {"email": email, "password": PASSWORD})[0] == 200
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    query = urllib.parse.urlencode({
        "client_id": client["client_id"], "redirect_uri": redirect, "response_type": "code", "scope": "email profile",
        "state": "xyz", "code_challenge": challenge, "code_challenge_method": "S256",
    })
    return client, email, f"{server.url}/oauth/authorize?{query}", verifier


def landed(browser, server: Process) -> dict[str, str]:
    """Waits for the browser to be back at the app, and returns the query it arrived with."""
    WebDriverWait(browser, WAIT).until(lambda driver: driver.current_url.startswith(server.url + "/?"))
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(browser.current_url).query))


def test_a_person_allows_an_app_and_the_app_redeems_the_code(browser, oauth_server: Process, screenshots: Path) -> None:
    client, email, authorize, verifier = start(oauth_server)
    browser.get(authorize)
    wait_for_text(browser, (By.TAG_NAME, "h1"), "Sign in to Example Notes")
    scopes = browser.find_element(By.ID, "scopes").text
    assert "your email address" in scopes and "your name, picture and user name" in scopes
    assert browser.save_screenshot(str(screenshots / "oauth-consent.png"))
    browser.find_element(By.ID, "email").send_keys(email)
    browser.find_element(By.ID, "password").send_keys("not the password")
    browser.find_element(By.ID, "approve").click()
    wait_for_text(browser, (By.ID, "consent-error"), "The email or password is not right.")
    browser.find_element(By.ID, "email").clear()
    tokens = allow(browser, oauth_server, client, email, verifier)
    assert tokens["token_type"] == "bearer" and tokens["access_token"] and tokens["refresh_token"]


def allow(browser, server: Process, client: dict, email: str, verifier: str) -> dict:
    """Signs in on the consent page the browser shows and allows; the app redeems the code: its tokens."""
    browser.find_element(By.ID, "email").send_keys(email)
    browser.find_element(By.ID, "password").send_keys(PASSWORD)
    browser.find_element(By.ID, "approve").click()
    arrived = landed(browser, server)
    assert arrived["state"] == "xyz" and arrived["code"]
    status, tokens = token(server, client, {
        "grant_type": "authorization_code", "code": arrived["code"], "code_verifier": verifier, "redirect_uri": server.url + "/",
    })
    assert status == 200, tokens
    return tokens


def token(server: Process, client: dict, fields: dict) -> tuple[int, dict]:
    """`POST /oauth/token` as the confidential client: the status and the answer."""
    basic = base64.b64encode(f"{client['client_id']}:{client['client_secret']}".encode()).decode()
    request = urllib.request.Request(
        server.url + "/oauth/token", data=urllib.parse.urlencode(fields).encode(), method="POST",
        headers={"Content-Type": "application/x-www-form-urlencoded", "Authorization": f"Basic {basic}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def test_a_person_denies_an_app(browser, oauth_server: Process) -> None:
    _, _, authorize, _ = start(oauth_server)
    browser.get(authorize)
    wait_for_text(browser, (By.TAG_NAME, "h1"), "Sign in to Example Notes")
    browser.find_element(By.ID, "deny").click()
    arrived = landed(browser, oauth_server)
    assert arrived["error"] == "access_denied" and arrived["state"] == "xyz" and "code" not in arrived


def test_a_person_takes_an_app_back_on_the_apps_page(browser, oauth_server: Process, screenshots: Path) -> None:
    client, email, authorize, verifier = start(oauth_server)
    browser.get(authorize)
    wait_for_text(browser, (By.TAG_NAME, "h1"), "Sign in to Example Notes")
    tokens = allow(browser, oauth_server, client, email, verifier)

    browser.get(oauth_server.url + "/welcome/apps")
    wait_for_text(browser, (By.TAG_NAME, "h1"), "Apps that can sign in as you")
    browser.find_element(By.ID, "email").send_keys(email)
    browser.find_element(By.ID, "password").send_keys(PASSWORD)
    browser.find_element(By.ID, "sign-in").click()
    wait_for_text(browser, (By.ID, "apps-email"), email)
    section = browser.find_element(By.CLASS_NAME, "app").text
    assert "Example Notes" in section and "your email address" in section
    assert browser.save_screenshot(str(screenshots / "oauth-apps.png"))
    browser.find_element(By.ID, f"revoke-{client['client_id']}").click()
    wait_for_text(browser, (By.ID, "apps-notice"), "Example Notes can no longer sign in as you")
    assert browser.find_elements(By.ID, "no-apps")

    status, answer = token(oauth_server, client, {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]})
    assert status == 400 and answer["error"] == "invalid_grant", answer
