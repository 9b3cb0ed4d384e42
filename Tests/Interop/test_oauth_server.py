"""The real Supabase Python auth client's OAuth server administration (`admin.oauth.*`, from
PyPI `supabase-auth`) against `latchkey serve --oauth-server`: the calls an operator's script
makes, with the client's own request bodies (unset members sent as null) and its own models
reading the answers."""

from __future__ import annotations

from typing import Iterator

import pytest
from supabase_auth.errors import AuthApiError
from supabase_auth.types import CreateOAuthClientParams, UpdateOAuthClientParams

from conftest import Server, _start_server, _stop_server


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

