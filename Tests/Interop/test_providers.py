"""Sign-in with an OpenID Connect provider, with a real provider and the real Supabase client.

The provider is PyPI's oidc-provider-mock (built on Authlib), run in this process: discovery,
JWKS, the authorization-code flow, ID tokens with nonces. Latchkey knows it as its `keycloak`
provider (any OpenID issuer at a configured URL), on 127.0.0.1 through the development switch
`--allow-loopback-providers`. The test plays the app: it gets an ID token from the provider
the way a native SDK does (authorization code, then the token endpoint), and hands it to
supabase-auth's `sign_in_with_id_token`, `get_user_identities` and `unlink_identity`.
"""

from __future__ import annotations

import hashlib
import html
import re
import secrets
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from supabase_auth.errors import AuthApiError

from conftest import HTTP_TIMEOUT, PASSWORD, Server, _start_server, _stop_server, unique_email

oidc_provider_mock = pytest.importorskip("oidc_provider_mock")

CLIENT_ID = "latchkey-interop"
REDIRECT_URI = "http://127.0.0.1:9/callback"
# Where the app is (never reached: the test reads the redirect that would open it).
APP = "http://localhost:3000/welcome"


@pytest.fixture(scope="module")
def provider() -> Iterator[str]:
    with oidc_provider_mock.run_server_in_thread() as server:
        yield f"http://127.0.0.1:{server.server_port}"


@pytest.fixture(scope="module")
def provider_server(latchkey_bin: Path, _server_root: Path, provider: str) -> Iterator[Server]:
    server = _start_server(
        latchkey_bin, _server_root, autoconfirm=True, name="providers", extra_args=("--allow-loopback-providers",),
        extra_env={
            "GOTRUE_EXTERNAL_KEYCLOAK_ENABLED": "true",
            "GOTRUE_EXTERNAL_KEYCLOAK_CLIENT_ID": CLIENT_ID,
            "GOTRUE_EXTERNAL_KEYCLOAK_URL": provider,
            "GOTRUE_EXTERNAL_KEYCLOAK_SECRET": "interop-secret",
            "GOTRUE_SECURITY_MANUAL_LINKING_ENABLED": "true",
            "GOTRUE_URI_ALLOW_LIST": APP,
        },
    )
    yield server
    _stop_server(server)


def id_token(provider: str, subject: str, email: str, *, nonce: str | None = None, email_verified: bool = True) -> str:
    """An ID token from the provider, obtained as an app's SDK does: the user consents on the
    authorization page (here: its form posted), the code is exchanged at the token endpoint."""
    with httpx.Client(base_url=provider, timeout=HTTP_TIMEOUT) as http:
        http.put(f"/users/{subject}", json={"email": email, "email_verified": email_verified}).raise_for_status()
        query = {
            "client_id": CLIENT_ID, "redirect_uri": REDIRECT_URI, "response_type": "code", "scope": "openid email",
            "state": secrets.token_urlsafe(8),
        }
        if nonce is not None:
            query["nonce"] = hashlib.sha256(nonce.encode()).hexdigest()
        consent = http.post("/oauth2/authorize", params=query, data={"sub": subject})
        assert consent.status_code == 302, consent.text
        code = urllib.parse.parse_qs(urllib.parse.urlparse(consent.headers["location"]).query)["code"][0]
        token = http.post(
            "/oauth2/token", data={"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI},
            auth=(CLIENT_ID, "secret"),
        )
        assert token.status_code == 200, token.text
        return token.json()["id_token"]


def test_sign_in_with_id_token_makes_an_account_with_the_identity(provider: str, provider_server: Server, make_client):
    client = make_client(provider_server)
    email = unique_email("oidc")
    nonce = secrets.token_urlsafe(16)
    response = client.sign_in_with_id_token(
        {"provider": "keycloak", "token": id_token(provider, f"sub-{email}", email, nonce=nonce), "nonce": nonce}
    )
    assert response.session is not None
    assert response.user.email == email
    (identity,) = client.get_user_identities().identities
    assert identity.provider == "keycloak"
    assert identity.id == f"sub-{email}"
    assert identity.identity_data["email_verified"] is True

    # The same person again: the same account.
    again = make_client(provider_server).sign_in_with_id_token(
        {"provider": "keycloak", "token": id_token(provider, f"sub-{email}", email)}
    )
    assert again.user.id == response.user.id


def test_a_verified_address_links_to_the_password_account_and_unlink_keeps_the_password(
    provider: str, provider_server: Server, make_client
):
    email = unique_email("linked")
    client = make_client(provider_server)
    signed_up = client.sign_up({"email": email, "password": PASSWORD})
    response = client.sign_in_with_id_token({"provider": "keycloak", "token": id_token(provider, f"sub-{email}", email)})
    assert response.user.id == signed_up.user.id
    identities = client.get_user_identities().identities
    assert sorted(i.provider for i in identities) == ["email", "keycloak"]

    client.unlink_identity(next(i for i in identities if i.provider == "keycloak"))
    assert [i.provider for i in client.get_user_identities().identities] == ["email"]
    # The last identity cannot go.
    with pytest.raises(AuthApiError) as refused:
        client.unlink_identity(client.get_user_identities().identities[0])
    assert refused.value.code == "single_identity_not_deletable"
    assert make_client(provider_server).sign_in_with_password({"email": email, "password": PASSWORD}).session is not None


def test_an_unverified_address_does_not_join_an_existing_account(provider: str, provider_server: Server, make_client):
    email = unique_email("victim")
    owner = make_client(provider_server).sign_up({"email": email, "password": PASSWORD})
    attacker = make_client(provider_server).sign_in_with_id_token(
        {"provider": "keycloak", "token": id_token(provider, f"attacker-{email}", email, email_verified=False)}
    )
    assert attacker.user.id != owner.user.id
    assert attacker.user.email in ("", None)


def test_a_wrong_nonce_and_a_foreign_token_are_refused(provider: str, provider_server: Server, make_client):
    client = make_client(provider_server)
    email = unique_email("nonce")
    token = id_token(provider, f"sub-{email}", email, nonce="the-right-nonce")
    with pytest.raises(AuthApiError) as wrong:
        client.sign_in_with_id_token({"provider": "keycloak", "token": token, "nonce": "another-nonce"})
    assert wrong.value.status == 400
    header, payload, signature = token.split(".")
    with pytest.raises(AuthApiError) as tampered:
        client.sign_in_with_id_token({"provider": "keycloak", "token": f"{header}.{payload}.{signature[::-1]}", "nonce": "the-right-nonce"})
    assert tampered.value.status == 400
    assert "Bad ID token" in tampered.value.message


def through_the_browser(url: str, subject: str, email: str) -> str:
    """Plays the browser from Latchkey's /authorize (or the provider URL link_identity gives) to
    where it sends the app: the provider's consent page posted as `subject`, every redirect
    followed with cookies kept. Returns the URL the browser is sent to at the end."""
    with httpx.Client(timeout=HTTP_TIMEOUT, follow_redirects=False) as browser:
        if "/authorize?" in url and "/oauth2/" not in url:
            response = browser.get(url)
            assert response.status_code == 302, response.text
            url = response.headers["location"]
        to_provider = urllib.parse.urlparse(url)
        provider_base = f"{to_provider.scheme}://{to_provider.netloc}"
        browser.put(f"{provider_base}/users/{subject}", json={"email": email, "email_verified": True}).raise_for_status()
        query = dict(urllib.parse.parse_qsl(to_provider.query))
        assert query["nonce"] and query["state"] and query["code_challenge_method"] == "S256"
        consent = browser.post(f"{provider_base}{to_provider.path}", params=query, data={"sub": subject})
        assert consent.status_code == 302, consent.text
        callback = browser.get(consent.headers["location"])
        if callback.status_code == 200 and 'action="callback/link"' in callback.text:
            # A link URL handed to the app is bound to no browser: Latchkey asks the person in
            # the browser to confirm on a page naming the account (GoTrue links at once).
            # The person here is the account's owner, and links.
            fields = dict(re.findall(r'name="(ticket|sealed)" value="([^"]*)"', callback.text))
            callback = browser.post(
                str(callback.url.join("/callback/link")), data={**{k: html.unescape(v) for k, v in fields.items()}, "decision": "link"}
            )
        assert callback.status_code == 302, callback.text
        return callback.headers["location"]


def test_sign_in_with_oauth_through_the_providers_page_then_exchange_the_code(provider: str, provider_server: Server, make_client):
    client = make_client(provider_server, flow_type="pkce")
    email = unique_email("browser")
    start = client.sign_in_with_oauth({"provider": "keycloak", "options": {"redirect_to": APP}})
    landed = through_the_browser(start.url, f"browser-{email}", email)
    assert landed.startswith(APP + "?code="), landed
    code = urllib.parse.parse_qs(urllib.parse.urlparse(landed).query)["code"][0]
    response = client.exchange_code_for_session({"auth_code": code})
    assert response.session is not None and response.user.email == email
    assert [i.provider for i in client.get_user_identities().identities] == ["keycloak"]


def test_implicit_flow_lands_the_session_in_the_fragment(provider: str, provider_server: Server, make_client):
    client = make_client(provider_server)
    email = unique_email("implicit")
    start = client.sign_in_with_oauth({"provider": "keycloak", "options": {"redirect_to": APP}})
    assert "code_challenge" not in start.url
    # No PKCE from this client: the provider still gets the server's own challenge.
    with httpx.Client(timeout=HTTP_TIMEOUT, follow_redirects=False) as browser:
        first = browser.get(start.url)
    assert "code_challenge=" in first.headers["location"]
    landed = through_the_browser(start.url, f"implicit-{email}", email)
    fragment = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(landed).fragment))
    assert fragment["token_type"] == "bearer" and fragment["provider_token"]
    assert client.get_user(fragment["access_token"]).user.email == email


def test_link_identity_in_the_browser(provider: str, provider_server: Server, make_client):
    client = make_client(provider_server, flow_type="pkce")
    email = unique_email("linker")
    client.sign_up({"email": email, "password": PASSWORD})
    start = client.link_identity({"provider": "keycloak", "options": {"redirect_to": APP}})
    landed = through_the_browser(start.url, f"linked-{email}", f"work-{email}")
    code = urllib.parse.parse_qs(urllib.parse.urlparse(landed).query)["code"][0]
    client.exchange_code_for_session({"auth_code": code})
    assert sorted(i.provider for i in client.get_user_identities().identities) == ["email", "keycloak"]


def test_a_forged_state_is_refused_at_the_site(provider: str, provider_server: Server):
    with httpx.Client(timeout=HTTP_TIMEOUT, follow_redirects=False) as browser:
        response = browser.get(f"{provider_server.auth_url}/callback", params={"state": "7d3f1c2e-0000-4000-8000-000000000000", "code": "x"})
    assert response.status_code == 302
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(response.headers["location"]).query))
    assert query["error_code"] == "bad_oauth_state"
