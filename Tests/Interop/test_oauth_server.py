"""`latchkey serve --oauth-server` against peers nobody here wrote: the real Supabase Python auth
client's OAuth server administration (`admin.oauth.*`, from PyPI `supabase-auth`), with the
client's own request bodies (unset members sent as null) and its own models reading the answers;
Authlib's OAuth 2 client (PyPI `authlib`) signing a second app in: authorization code with
PKCE, the ID token verified by joserfc against `jwks_uri`, user info, refresh, revocation; and
the MCP Python SDK's OAuth client (PyPI `mcp`, in its own venv) signing an agent in the way MCP
clients do: discovery from a protected resource, dynamic registration, PKCE, refresh."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from authlib.common.security import generate_token
from authlib.integrations.base_client.errors import OAuthError
from authlib.integrations.requests_client import OAuth2Session
from joserfc import jwt as joserfc_jwt
from joserfc.jwk import KeySet
from supabase_auth.errors import AuthApiError
from supabase_auth.types import CreateOAuthClientParams, UpdateOAuthClientParams

from conftest import HTTP_TIMEOUT, PASSWORD, SITE_URL, Server, _start_server, _stop_server, unique_email


@pytest.fixture(scope="module")
def oauth_server(latchkey_bin, _server_root) -> Iterator[Server]:
    server = _start_server(latchkey_bin, _server_root, autoconfirm=True, name="oauth-server", extra_args=("--oauth-server",))
    yield server
    _stop_server(server)


def test_admin_oauth_clients_round_trip(make_client, oauth_server: Server) -> None:
    oauth = make_client(oauth_server, key=oauth_server.service_role_key).admin.oauth
    created = oauth.create_client(
        CreateOAuthClientParams(client_name="Second App", redirect_uris=["https://app.example.com/callback"])
    ).client
    assert created is not None
    assert created.client_type == "confidential" and created.registration_type == "manual"
    assert created.client_secret and len(created.client_secret) == 43
    assert created.grant_types == ["authorization_code", "refresh_token"] and created.response_types == ["code"]

    read = oauth.get_client(created.client_id).client
    assert read is not None and read.client_id == created.client_id and read.client_secret is None

    listed = oauth.list_clients()
    assert created.client_id in [client.client_id for client in listed.clients]

    updated = oauth.update_client(
        created.client_id, UpdateOAuthClientParams(client_name="Renamed", redirect_uris=["https://app.example.com/other"])
    ).client
    assert updated is not None and updated.client_name == "Renamed"
    assert updated.redirect_uris == ["https://app.example.com/other"] and updated.client_secret is None

    regenerated = oauth.regenerate_client_secret(created.client_id).client
    assert regenerated is not None and regenerated.client_secret and regenerated.client_secret != created.client_secret

    oauth.delete_client(created.client_id)
    with pytest.raises(AuthApiError) as missing:
        oauth.get_client(created.client_id)
    assert missing.value.status == 404 and missing.value.code == "oauth_client_not_found"


def test_admin_oauth_refuses_a_javascript_redirect(make_client, oauth_server: Server) -> None:
    oauth = make_client(oauth_server, key=oauth_server.service_role_key).admin.oauth
    with pytest.raises(AuthApiError) as refused:
        oauth.create_client(CreateOAuthClientParams(client_name="Evil", redirect_uris=["javascript://x.example/%0aalert(1)"]))
    assert refused.value.status == 400 and refused.value.code == "validation_failed"



# --- A second app signing in with Authlib (PyPI `authlib`), a relying party nobody here wrote ---

REDIRECT_URI = "https://second.example.com/callback"


@pytest.fixture(scope="module")
def identity_server(latchkey_bin, _server_root) -> Iterator[Server]:
    """`latchkey serve --oauth-server` as an identity provider: ES256 tokens (ID tokens need an
    asymmetric key), the app's consent page at SITE_URL/consent, clients may register themselves."""
    generated = subprocess.run(
        [str(latchkey_bin), "keys", "generate", "--alg", "ES256"], capture_output=True, text=True, timeout=120, check=True
    ).stdout.strip()
    keys_file = _server_root / "oauth-jwt-keys.json"
    keys_file.write_text(f"[{generated}]")
    keys_file.chmod(0o600)
    server = _start_server(
        latchkey_bin, _server_root, autoconfirm=True, name="identity-provider",
        extra_args=(
            "--oauth-server", "--oauth-server-authorization-path", "/consent", "--oauth-server-dynamic-registration",
            "--jwt-keys-file", str(keys_file),
        ),
    )
    yield server
    _stop_server(server)


def _consent(server: Server, authorization_url: str, access_token: str, action: str = "approve") -> str:
    """What the app's consent page does: follow /oauth/authorize to it, read the authorization as
    the signed-in user, approve it; returns where the browser lands back at the client."""
    with httpx.Client(timeout=HTTP_TIMEOUT, follow_redirects=False) as http:
        started = http.get(authorization_url)
        assert started.status_code == 302, started.text
        consent_page = started.headers["location"]
        assert consent_page.startswith(SITE_URL + "/consent?authorization_id="), consent_page
        authorization_id = parse_qs(urlsplit(consent_page).query)["authorization_id"][0]
        bearer = {"Authorization": f"Bearer {access_token}", "Origin": SITE_URL}
        details = http.get(f"{server.auth_url}/oauth/authorizations/{authorization_id}", headers=bearer).json()
        if "redirect_url" in details:
            return details["redirect_url"]
        assert details["client"]["name"] == "Second App", details
        decided = http.post(
            f"{server.auth_url}/oauth/authorizations/{authorization_id}/consent", headers=bearer, json={"action": action}
        )
        assert decided.status_code == 200, decided.text
        return decided.json()["redirect_url"]


def _signed_in_user(make_client, server: Server) -> tuple[str, str]:
    email = unique_email("oauth")
    response = make_client(server).sign_up({"email": email, "password": PASSWORD})
    assert response.session is not None
    return email, response.session.access_token


def test_authlib_signs_in_with_code_pkce_id_token_userinfo_and_refresh(make_client, identity_server: Server) -> None:
    server = identity_server
    metadata = httpx.get(f"{server.auth_url}/.well-known/openid-configuration", timeout=HTTP_TIMEOUT).json()
    assert metadata["issuer"] == server.auth_url and metadata["code_challenge_methods_supported"] == ["S256"]
    created = make_client(server, key=server.service_role_key).admin.oauth.create_client(
        CreateOAuthClientParams(client_name="Second App", redirect_uris=[REDIRECT_URI])
    ).client
    email, access_token = _signed_in_user(make_client, server)

    app = OAuth2Session(
        created.client_id, created.client_secret, scope="openid email profile", redirect_uri=REDIRECT_URI,
        code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic",
    )
    verifier = generate_token(64)
    nonce = generate_token(20)
    url, state = app.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier, nonce=nonce)
    landing = _consent(server, url, access_token)
    assert parse_qs(urlsplit(landing).query)["state"] == [state]

    # Authlib checks the state, sends the code with the verifier and Basic client authentication.
    token = app.fetch_token(metadata["token_endpoint"], authorization_response=landing, code_verifier=verifier)
    assert token["token_type"] == "bearer" and token["refresh_token"]

    # The ID token verifies against the published keys, for this client, with this nonce.
    keys = KeySet.import_key_set(httpx.get(metadata["jwks_uri"], timeout=HTTP_TIMEOUT).json())
    id_token = joserfc_jwt.decode(token["id_token"], keys)
    assert id_token.header["alg"] == "ES256"
    joserfc_jwt.JWTClaimsRegistry(
        iss={"essential": True, "value": metadata["issuer"]}, aud={"essential": True, "value": created.client_id},
        nonce={"essential": True, "value": nonce}, sub={"essential": True},
    ).validate(id_token.claims)
    assert id_token.claims["email"] == email and id_token.claims["email_verified"] is True

    info = app.get(metadata["userinfo_endpoint"]).json()
    assert info["sub"] == id_token.claims["sub"] and info["email"] == email

    refreshed = app.refresh_token(metadata["token_endpoint"])
    assert refreshed["access_token"] != token["access_token"] and refreshed["refresh_token"] != token["refresh_token"]
    assert app.get(metadata["userinfo_endpoint"]).json()["sub"] == info["sub"]

    # The user takes the grant back: the app's refresh token stops working at once.
    with httpx.Client(timeout=HTTP_TIMEOUT) as http:
        revoked = http.delete(
            f"{server.auth_url}/user/oauth/grants", params={"client_id": created.client_id},
            headers={"Authorization": f"Bearer {access_token}"},
        )
        assert revoked.status_code == 204, revoked.text
    with pytest.raises(OAuthError):
        app.refresh_token(metadata["token_endpoint"])


def test_authlib_public_client_registers_itself_and_refuses_a_stolen_code(make_client, identity_server: Server) -> None:
    server = identity_server
    metadata = httpx.get(f"{server.auth_url}/.well-known/oauth-authorization-server", timeout=HTTP_TIMEOUT).json()
    registered = httpx.post(
        metadata["registration_endpoint"], timeout=HTTP_TIMEOUT,
        json={"client_name": "Second App", "redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none"},
    )
    assert registered.status_code == 201, registered.text
    client_id = registered.json()["client_id"]
    assert "client_secret" not in registered.json()
    _, access_token = _signed_in_user(make_client, server)

    app = OAuth2Session(
        client_id, scope="email", redirect_uri=REDIRECT_URI, code_challenge_method="S256", token_endpoint_auth_method="none"
    )
    verifier = generate_token(64)
    url, _ = app.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier)
    landing = _consent(server, url, access_token)

    # Someone who saw the redirect but not the verifier gets nothing.
    thief = OAuth2Session(client_id, redirect_uri=REDIRECT_URI, token_endpoint_auth_method="none")
    with pytest.raises(OAuthError) as refused:
        thief.fetch_token(metadata["token_endpoint"], authorization_response=landing, code_verifier=generate_token(64))
    assert refused.value.error == "invalid_grant"

    token = app.fetch_token(metadata["token_endpoint"], authorization_response=landing, code_verifier=verifier)
    assert "id_token" not in token
    # The same code again is a leak: refused, and the session it started is ended.
    with pytest.raises(OAuthError):
        app.fetch_token(metadata["token_endpoint"], authorization_response=landing, code_verifier=verifier)
    with pytest.raises(OAuthError):
        app.refresh_token(metadata["token_endpoint"])


# --- An AI agent: the MCP Python SDK's OAuth client (PyPI `mcp`), in its own venv -----------

MCP_PYTHON = os.environ.get("LATCHKEY_MCP_PYTHON") or "/opt/latchkey-peers/mcp/bin/python3"
MCP_INSTALL = "python3 -m venv /opt/latchkey-peers/mcp && /opt/latchkey-peers/mcp/bin/pip install mcp==2.3.0"


def _mcp_available() -> bool:
    if not os.access(MCP_PYTHON, os.X_OK):
        return False
    try:
        return subprocess.run([MCP_PYTHON, "-c", "import mcp.client.auth"], capture_output=True, timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def test_mcp_agent_discovers_registers_signs_in_and_refreshes(make_client, identity_server: Server) -> None:
    if not _mcp_available():
        pytest.skip(f"{MCP_PYTHON} cannot import mcp.client.auth ({MCP_INSTALL})")
    server = identity_server
    email, access_token = _signed_in_user(make_client, server)
    done = subprocess.run(
        [MCP_PYTHON, str(Path(__file__).resolve().parent / "mcp_agent.py")],
        input=json.dumps({"auth_url": server.auth_url, "access_token": access_token, "site_url": SITE_URL}),
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, f"mcp_agent.py failed:\n{done.stderr[-4000:]}\n{server.log_tail()}"
    answer = json.loads(done.stdout)
    # The SDK found Latchkey through the resource's metadata, registered itself, and signed in.
    assert answer["first_status"] == 200 and answer["first_body"]["user"]["email"] == email
    authorize = parse_qs(urlsplit(answer["authorize_url"]).query)
    assert authorize["code_challenge_method"] == ["S256"] and authorize["client_id"] == [answer["client_id"]]
    admin = make_client(server, key=server.service_role_key).admin.oauth
    registered = admin.get_client(answer["client_id"]).client
    assert registered.client_name == "Example Agent" and registered.registration_type == "dynamic"
    assert registered.client_type == "public"
    # It refreshed before its second call: a new access token, accepted.
    assert answer["second_status"] == 200 and answer["second_token"] != answer["first_token"]
    assert answer["seen_tokens"] == [answer["first_token"], answer["second_token"]]
    keys = KeySet.import_key_set(httpx.get(f"{server.auth_url}/.well-known/jwks.json", timeout=HTTP_TIMEOUT).json())
    claims = joserfc_jwt.decode(answer["second_token"], keys).claims
    # The SDK asks for offline_access too, since the server lists it; the resource indicator
    # (RFC 8707) it sends is kept with the code.
    assert claims["client_id"] == answer["client_id"] and "email" in claims["scope"].split()
    assert authorize["resource"][0].endswith("/mcp")
