"""Asymmetric signing keys with the real Supabase Python auth client.

A server started with an ES256 key (`latchkey keys generate`, `--jwt-keys-file`) signs access
tokens with that key and publishes it at `/.well-known/jwks.json`. supabase-auth's
`get_claims()` fetches that JWKS and verifies such tokens locally, without asking the server
about the token; PyJWT, given only the published JWKS, verifies them too.
"""

from __future__ import annotations

import httpx
import jwt as pyjwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from supabase_auth import SyncGoTrueClient
from supabase_auth.errors import AuthInvalidJwtError
from supabase_auth.helpers import decode_jwt

from conftest import HTTP_TIMEOUT, PASSWORD, KeyedServer, unique_email


def recording_client(server, paths: list[str]) -> SyncGoTrueClient:
    """A client as supabase-py makes it, recording the path of every request it sends."""

    def record(request: httpx.Request) -> None:
        paths.append(request.url.path)

    return SyncGoTrueClient(
        url=server.auth_url,
        headers={"apiKey": server.anon_key, "Authorization": f"Bearer {server.anon_key}"},
        auto_refresh_token=False,
        http_client=httpx.Client(follow_redirects=True, timeout=HTTP_TIMEOUT, event_hooks={"request": [record]}),
    )


def test_jwks_publishes_the_public_key_only(es256_server: KeyedServer):
    response = httpx.get(f"{es256_server.server.auth_url}/.well-known/jwks.json", timeout=HTTP_TIMEOUT)
    assert response.status_code == 200
    assert response.headers["cache-control"] == "public, max-age=600"
    (key,) = response.json()["keys"]
    assert key == {**es256_server.jwk, "key_ops": ["verify"]}
    assert "d" not in key


def test_get_claims_verifies_an_es256_token_locally(es256_server: KeyedServer):
    paths: list[str] = []
    client = recording_client(es256_server.server, paths)
    try:
        email = unique_email("es256")
        response = client.sign_up({"email": email, "password": PASSWORD})
        assert response.session is not None and response.user is not None
        header = decode_jwt(response.session.access_token)["header"]
        assert header["alg"] == "ES256" and header["kid"] == es256_server.kid

        paths.clear()
        result = client.get_claims()
        assert result is not None
        assert result["claims"]["sub"] == response.user.id
        assert result["claims"]["email"] == email
        assert result["claims"]["role"] == "authenticated"
        assert result["headers"]["kid"] == es256_server.kid
        # The keys were fetched; the token itself was never sent to the server.
        assert paths == ["/auth/v1/.well-known/jwks.json"]

        paths.clear()
        assert client.get_claims()["claims"]["sub"] == response.user.id
        assert paths == [], "the JWKS is cached"

        # The server accepts the token as usual, and the legacy anon key still opens it.
        assert client.get_user().user.id == response.user.id
    finally:
        client.close()


def test_get_claims_refuses_a_token_signed_with_another_key(es256_server: KeyedServer):
    paths: list[str] = []
    client = recording_client(es256_server.server, paths)
    try:
        response = client.sign_up({"email": unique_email("forged"), "password": PASSWORD})
        claims = decode_jwt(response.session.access_token)["payload"]
        attacker = ec.generate_private_key(ec.SECP256R1())
        forged = pyjwt.encode({**claims, "role": "service_role"}, attacker, algorithm="ES256", headers={"kid": es256_server.kid})
        with pytest.raises(AuthInvalidJwtError, match="Invalid JWT signature"):
            client.get_claims(jwt=forged)
        unknown = pyjwt.encode(dict(claims), attacker, algorithm="ES256", headers={"kid": "not-a-published-key"})
        with pytest.raises(AuthInvalidJwtError, match="No matching signing key"):
            client.get_claims(jwt=unknown)
    finally:
        client.close()


def test_pyjwt_verifies_with_only_the_published_jwks(es256_server: KeyedServer, make_client):
    client = make_client(es256_server.server)
    response = client.sign_up({"email": unique_email("pyjwt"), "password": PASSWORD})
    jwks = httpx.get(f"{es256_server.server.url}/.well-known/jwks.json", timeout=HTTP_TIMEOUT).json()
    key = pyjwt.PyJWKSet.from_dict(jwks)[es256_server.kid]
    claims = pyjwt.decode(response.session.access_token, key.key, algorithms=["ES256"], audience="authenticated")
    assert claims["sub"] == response.user.id
    # The server's own HS256 API keys keep working with the admin API.
    users = make_client(es256_server.server, key=es256_server.server.service_role_key).admin.list_users()
    assert any(user.id == response.user.id for user in users)
