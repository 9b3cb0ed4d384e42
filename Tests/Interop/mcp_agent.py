"""An AI agent signing in the way MCP clients do, with the MCP Python SDK's own OAuth client
(PyPI `mcp`, `mcp.client.auth.OAuthClientProvider`), against a protected resource whose
authorization server is `latchkey serve --oauth-server`.

Runs in a venv of its own (/opt/latchkey-peers/mcp; LATCHKEY_MCP_PYTHON names another), since
the SDK's dependencies are not the Supabase client's. Reads one JSON job on stdin:
`{"auth_url", "access_token", "site_url"}` (the user who consents and their token), prints one
JSON answer on stdout.

The resource is a small HTTP server here (a stand-in for an MCP server's transport): it
publishes its protected-resource metadata (RFC 9728) naming Latchkey, answers 401 with that
metadata's URL until a request carries a token that Latchkey's /oauth/userinfo accepts, then
answers with the user the token is for. The SDK does the rest: discovery, dynamic client
registration, PKCE, the code exchange with a resource indicator, and a refresh.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx2
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

TIMEOUT = 60.0
REDIRECT_URI = "http://localhost:3030/callback"


def main() -> None:
    job = json.loads(sys.stdin.read())
    auth_url, user_token, site_url = job["auth_url"], job["access_token"], job["site_url"]
    seen_tokens: list[str] = []

    class Resource(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # quiet
            pass

        def _json(self, status: int, body: dict, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            base = f"http://127.0.0.1:{self.server.server_address[1]}"
            if self.path.startswith("/.well-known/oauth-protected-resource"):
                self._json(200, {"resource": f"{base}/mcp", "authorization_servers": [auth_url], "scopes_supported": ["email"]})
                return
            header = self.headers.get("Authorization", "")
            user = None
            if header.startswith("Bearer "):
                token = header[len("Bearer "):]
                request = urllib.request.Request(f"{auth_url}/oauth/userinfo", headers={"Authorization": header})
                try:
                    with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
                        user = json.loads(answer.read())
                        seen_tokens.append(token)
                except urllib.error.HTTPError:
                    user = None
            if user is None:
                challenge = f'Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp", scope="email"'
                self._json(401, {"error": "invalid_token"}, {"WWW-Authenticate": challenge})
                return
            self._json(200, {"user": user})

    resource = ThreadingHTTPServer(("127.0.0.1", 0), Resource)
    threading.Thread(target=resource.serve_forever, daemon=True).start()
    resource_url = f"http://127.0.0.1:{resource.server_address[1]}/mcp"

    class Memory(TokenStorage):
        def __init__(self) -> None:
            self.tokens: OAuthToken | None = None
            self.client: OAuthClientInformationFull | None = None

        async def get_tokens(self) -> OAuthToken | None:
            return self.tokens

        async def set_tokens(self, tokens: OAuthToken) -> None:
            self.tokens = tokens

        async def get_client_info(self) -> OAuthClientInformationFull | None:
            return self.client

        async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
            self.client = client_info

    landing: dict[str, str] = {}
    authorize_urls: list[str] = []

    async def consent(authorization_url: str) -> None:
        """The browser and the user: follow /oauth/authorize to the consent page, read the
        request as the signed-in user, approve it, land on the callback."""
        authorize_urls.append(authorization_url)
        async with httpx2.AsyncClient(timeout=TIMEOUT, follow_redirects=False) as http:
            started = await http.get(authorization_url)
            location = started.headers["location"]
            assert location.startswith(site_url), location
            authorization_id = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)["authorization_id"][0]
            bearer = {"Authorization": f"Bearer {user_token}"}
            details = (await http.get(f"{auth_url}/oauth/authorizations/{authorization_id}", headers=bearer)).json()
            if "redirect_url" in details:
                callback = details["redirect_url"]
            else:
                decided = await http.post(
                    f"{auth_url}/oauth/authorizations/{authorization_id}/consent", headers=bearer, json={"action": "approve"}
                )
                callback = decided.json()["redirect_url"]
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(callback).query)
        landing.update({name: values[0] for name, values in query.items()})

    async def callback() -> AuthorizationCodeResult:
        return AuthorizationCodeResult(code=landing["code"], state=landing.get("state"))

    storage = Memory()
    provider = OAuthClientProvider(
        server_url=resource_url,
        client_metadata=OAuthClientMetadata(
            client_name="Example Agent", redirect_uris=[REDIRECT_URI], grant_types=["authorization_code", "refresh_token"],
            response_types=["code"], token_endpoint_auth_method="none", scope="email",
        ),
        storage=storage, redirect_handler=consent, callback_handler=callback,
    )

    async def run() -> dict:
        async with httpx2.AsyncClient(auth=provider, timeout=TIMEOUT) as client:
            first = await client.get(resource_url)
            first_token = storage.tokens.access_token if storage.tokens else None
            # The access token has run out, as far as the agent knows: it refreshes before the next call.
            provider.context.token_expiry_time = time.time() - 1
            second = await client.get(resource_url)
        return {
            "first_status": first.status_code, "first_body": first.json(),
            "second_status": second.status_code, "second_body": second.json(),
            "first_token": first_token, "second_token": storage.tokens.access_token if storage.tokens else None,
            "refresh_token": storage.tokens.refresh_token if storage.tokens else None,
            "client_id": storage.client.client_id if storage.client else None,
            "authorize_url": authorize_urls[0] if authorize_urls else None, "seen_tokens": seen_tokens,
        }

    try:
        print(json.dumps(asyncio.run(run())))
    finally:
        resource.shutdown()


if __name__ == "__main__":
    main()
