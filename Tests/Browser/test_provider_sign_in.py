"""Sign-in at an identity provider in a real browser, end to end through the provider's own page.

What is real: the provider is PyPI's oidc-provider-mock (Authlib: discovery, JWKS, the
authorization-code flow with PKCE and nonces) run in this process; the server is `latchkey
serve`, which knows it as its `keycloak` provider (any OpenID issuer at a configured URL) on
127.0.0.1 through the development switch `--allow-loopback-providers`; the browser is headless
Chromium. Chromium follows every redirect and keeps every cookie itself: Latchkey's /authorize
sends it to the provider's authorization page, where a person's steps are taken (typing a
subject, pressing Authorize), the provider sends it back to Latchkey's /callback, and that lands
it on the server's own site URL `/` (no redirect_to), a page the server serves. The test then
plays the app: it exchanges the `?code=` (PKCE) or reads the session from the fragment
(implicit).

The only thing held back is the provider page's stylesheet, which it loads from a CDN: it is
blocked so that the test never waits on the network. Screenshots of the provider's page and of
the landing pages go where the other browser tests put theirs.
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

from conftest import WAIT, api, latchkey_keys, wait_for_text
from latchkey_process import Process, latchkey_binary, start_latchkey, unique_email
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

oidc_provider_mock = pytest.importorskip("oidc_provider_mock")

CLIENT_ID = "browser-test"
BINDING_COOKIE = "latchkey-provider-flow"


@pytest.fixture(scope="module")
def provider() -> Iterator[str]:
    with oidc_provider_mock.run_server_in_thread() as running:
        yield f"http://127.0.0.1:{running.server_port}"


@pytest.fixture(scope="module")
def server(provider: str) -> Iterator[Process]:
    """This module's own `latchkey serve` (named `server`, so a failure report shows its log):
    the browser suite's standalone server plus the provider, autoconfirm and manual linking."""
    binary = latchkey_binary()
    if binary is None:
        pytest.exit("latchkey binary not found: build it (swift build --product latchkey) and set LATCHKEY_BIN", returncode=2)
    root = Path(tempfile.mkdtemp(prefix="latchkey-browser-providers-"))
    started = start_latchkey(
        binary, root, "providers",
        ["--rate-limit-signin", "100000", "--rate-limit-verify", "100000", "--autoconfirm", "--allow-loopback-providers"],
        {
            "GOTRUE_EXTERNAL_KEYCLOAK_ENABLED": "true",
            "GOTRUE_EXTERNAL_KEYCLOAK_URL": provider,
            "GOTRUE_EXTERNAL_KEYCLOAK_CLIENT_ID": CLIENT_ID,
            "GOTRUE_EXTERNAL_KEYCLOAK_SECRET": "anything",
            "GOTRUE_SECURITY_MANUAL_LINKING_ENABLED": "true",
        },
    )
    yield started
    started.stop()
    shutil.rmtree(root, ignore_errors=True)


def provider_user(provider: str, prefix: str) -> tuple[str, str]:
    """A person known to the provider: their subject, and the verified address it vouches for."""
    email = unique_email(prefix)
    subject = f"{prefix}-{secrets.token_hex(6)}"
    request = urllib.request.Request(
        f"{provider}/users/{subject}", method="PUT", data=json.dumps({"email": email, "email_verified": True}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=WAIT) as response:
        assert response.status in (200, 204), response.status
    return subject, email


def pkce_pair() -> tuple[str, str]:
    """A code verifier and its S256 challenge, as a PKCE app makes them."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def shoot(browser, screenshots: Path, name: str) -> None:
    assert browser.save_screenshot(str(screenshots / f"{name}.png")), name


def start_at_latchkey(browser, server: Process, provider: str, query: dict[str, str]) -> None:
    """Opens Latchkey's /authorize and waits for the provider's authorization page."""
    # The provider's page loads its stylesheet from a CDN: block it, so nothing waits on the network.
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["https://cdn.jsdelivr.net/*"]})
    browser.get(f"{server.url}/authorize?{urllib.parse.urlencode({'provider': 'keycloak', **query})}")
    WebDriverWait(browser, WAIT).until(EC.url_contains(f"{provider}/oauth2/authorize?"))
    wait_for_text(browser, (By.TAG_NAME, "h1"), "Authorize Client")
    sent = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(browser.current_url).query))
    assert sent["client_id"] == CLIENT_ID and sent["response_type"] == "code"
    assert sent["redirect_uri"] == f"{server.url}/callback"
    assert sent["state"] and sent["nonce"] and sent["code_challenge_method"] == "S256"


def authorize_as(browser, subject: str) -> None:
    """At the provider's page: types the subject into its field and presses Authorize."""
    field = WebDriverWait(browser, WAIT).until(EC.element_to_be_clickable((By.CSS_SELECTOR, "input[name=sub]")))
    field.send_keys(subject)
    browser.find_element(By.XPATH, "//form//button[normalize-space()='Authorize']").click()


def landed_on_site(browser, server: Process) -> None:
    """Waits until the browser is back on the server's own home page (its site URL)."""
    WebDriverWait(browser, WAIT).until(lambda driver: driver.current_url.startswith(server.url + "/"))
    wait_for_text(browser, (By.TAG_NAME, "h1"), "Latchkey is running")


def get(server: Process, path: str, bearer: str, apikey: str | None = None) -> tuple[int, dict]:
    """A GET to the server with a bearer token (and the API key, as supabase clients send it)."""
    headers = {"Authorization": f"Bearer {bearer}"} | ({"apikey": apikey} if apikey else {})
    request = urllib.request.Request(server.url + path, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def get_user(server: Process, access_token: str) -> tuple[int, dict]:
    return get(server, "/user", access_token)


def admin_get(server: Process, path: str) -> tuple[int, dict]:
    """A GET to /admin with the service_role key that `latchkey keys` prints for the server."""
    key = latchkey_keys(server)["service_role"]
    return get(server, path, key, apikey=key)


def test_pkce_sign_in_lands_a_code_that_exchanges_for_a_session(provider, server, browser, screenshots):
    subject, email = provider_user(provider, "browser-pkce")
    verifier, challenge = pkce_pair()
    start_at_latchkey(browser, server, provider, {"code_challenge": challenge, "code_challenge_method": "s256"})
    shoot(browser, screenshots, "provider-authorize")
    authorize_as(browser, subject)

    WebDriverWait(browser, WAIT).until(EC.url_contains("code="))
    landed_on_site(browser, server)
    landed = urllib.parse.urlsplit(browser.current_url)
    assert f"{landed.scheme}://{landed.netloc}{landed.path}" == server.url + "/"
    assert not landed.fragment, "a PKCE flow carries no session in the address bar"
    query = dict(urllib.parse.parse_qsl(landed.query))
    assert set(query) == {"code"}, query
    shoot(browser, screenshots, "provider-landed-code")

    status, session = api(server, "POST", "/token?grant_type=pkce", {"auth_code": query["code"], "code_verifier": verifier})
    assert status == 200, session
    assert session["access_token"] and session["refresh_token"]
    user = session["user"]
    assert user["email"] == email
    assert [identity["provider"] for identity in user["identities"]] == ["keycloak"]
    assert user["identities"][0]["identity_data"]["sub"] == subject
    assert get_user(server, session["access_token"])[1]["id"] == user["id"]

    # The code is spent.
    again, _ = api(server, "POST", "/token?grant_type=pkce", {"auth_code": query["code"], "code_verifier": verifier})
    assert again in (400, 404)


def test_implicit_sign_in_lands_the_session_in_the_fragment(provider, server, browser, screenshots):
    subject, email = provider_user(provider, "browser-implicit")
    start_at_latchkey(browser, server, provider, {})
    authorize_as(browser, subject)

    WebDriverWait(browser, WAIT).until(lambda driver: "access_token=" in driver.execute_script("return window.location.hash"))
    landed_on_site(browser, server)
    assert browser.execute_script("return window.location.pathname + window.location.search") == "/"
    fragment = dict(urllib.parse.parse_qsl(browser.execute_script("return window.location.hash")[1:]))
    assert fragment["token_type"] == "bearer" and fragment["refresh_token"] and fragment["provider_token"]
    assert int(fragment["expires_in"]) > 0
    shoot(browser, screenshots, "provider-landed-implicit")

    status, user = get_user(server, fragment["access_token"])
    assert status == 200, user
    assert user["email"] == email
    assert [identity["provider"] for identity in user["identities"]] == ["keycloak"]


def test_a_callback_in_a_browser_without_the_flows_cookie_is_refused(provider, server, browser, screenshots):
    subject, email = provider_user(provider, "browser-state")
    start_at_latchkey(browser, server, provider, {})
    # Cookies are scoped by host, not port (RFC 6265 §8.5): on the provider's page at 127.0.0.1
    # the browser holds Latchkey's binding cookie too, so it can be removed from here. Removing
    # it stands for the provider's redirect opened in another browser than the one that started.
    assert BINDING_COOKIE in {cookie["name"] for cookie in browser.get_cookies()}
    browser.delete_cookie(BINDING_COOKIE)
    assert browser.get_cookie(BINDING_COOKIE) is None
    authorize_as(browser, subject)

    WebDriverWait(browser, WAIT).until(EC.url_contains("error="))
    landed_on_site(browser, server)
    landed = urllib.parse.urlsplit(browser.current_url)
    query = dict(urllib.parse.parse_qsl(landed.query))
    assert query["error"] == "invalid_request" and query["error_code"] == "bad_oauth_state", query
    assert "code" not in query and "access_token" not in landed.fragment
    shoot(browser, screenshots, "provider-bad-state")

    # No account was made for the person at the provider (as the service role sees the users).
    status, listed = admin_get(server, "/admin/users?page=1&per_page=1000")
    assert status == 200, listed
    assert email not in {user["email"] for user in listed["users"]}
