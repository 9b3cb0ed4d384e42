"""The real Supabase Python auth client (`supabase-auth` from PyPI) against `latchkey serve`.

Each test drives `supabase_auth.SyncGoTrueClient` (and its `admin`, a `SyncGoTrueAdminAPI`)
the way an app does, with the client's defaults, and checks what the app would see. Features
the server does not serve yet are real tests marked `xfail(strict=True)`: once the feature
lands they fail as XPASS until the marker is removed.
"""

from __future__ import annotations

import time
import urllib.parse
import uuid

import httpx
import jwt as pyjwt
import pytest
from supabase_auth import SyncGoTrueClient
from supabase_auth.errors import AuthApiError, AuthError, AuthWeakPasswordError
from supabase_auth.helpers import decode_jwt

from conftest import PASSWORD, Server, unique_email

NEW_PASSWORD = "another horse battery staple"


def not_yet(feature: str):
    return pytest.mark.xfail(strict=True, reason=f"not yet served: {feature}")


def server_bug(what: str):
    return pytest.mark.xfail(strict=True, reason=f"server bug: {what}")


def signed_up(make_client, server: Server, email: str | None = None, **options) -> tuple[SyncGoTrueClient, str]:
    """A client signed in as a new confirmed user (autoconfirm server)."""
    assert server.autoconfirm
    email = email or unique_email()
    client = make_client(server)
    response = client.sign_up({"email": email, "password": PASSWORD, "options": options})
    assert response.session is not None
    return client, email


def admin_client(make_client, server: Server):
    return make_client(server, key=server.service_role_key).admin


def follow_link(link: str) -> httpx.URL:
    """What a browser does with the link in the mail: GET it and land on the redirect."""
    response = httpx.get(link, follow_redirects=False, timeout=60)
    assert response.status_code in (302, 303), (response.status_code, response.text)
    return httpx.URL(response.headers["location"])


def assert_rejected(call, status: int | None = None, code: str | None = None) -> AuthApiError:
    with pytest.raises(AuthApiError) as raised:
        call()
    if status is not None:
        assert raised.value.status == status, raised.value.to_dict()
    if code is not None:
        assert raised.value.code == code, raised.value.to_dict()
    return raised.value


# --- Sign-up, sign-in, the session -----------------------------------------------------------


def test_settings_and_health_answer(autoconfirm_server, confirming_server):
    for server, autoconfirm in ((autoconfirm_server, True), (confirming_server, False)):
        settings = httpx.get(f"{server.auth_url}/settings", timeout=60).json()
        assert settings["external"]["email"] is True
        assert settings["mailer_autoconfirm"] is autoconfirm
        assert httpx.get(f"{server.auth_url}/health", timeout=60).status_code == 200


def test_sign_up_with_autoconfirm_signs_in(make_client, autoconfirm_server):
    email = unique_email()
    client = make_client(autoconfirm_server)
    events = []
    client.on_auth_state_change(lambda event, session: events.append(event))

    response = client.sign_up({"email": email, "password": PASSWORD, "options": {"data": {"status": "alpha"}}})

    assert response.session is not None and response.user is not None
    assert response.user.email == email
    assert response.user.user_metadata == {"status": "alpha"}
    assert response.user.email_confirmed_at is not None
    assert response.user.aud == "authenticated" and response.user.role == "authenticated"
    assert response.user.app_metadata["provider"] == "email"
    assert response.user.identities and response.user.identities[0].identity_data["email"] == email
    assert response.session.token_type == "bearer"
    assert response.session.expires_in > 0 and response.session.expires_at > time.time()
    assert events == ["SIGNED_IN"]
    assert client.get_session().access_token == response.session.access_token


def test_sign_up_twice_is_refused(make_client, autoconfirm_server):
    _, email = signed_up(make_client, autoconfirm_server)
    error = assert_rejected(
        lambda: make_client(autoconfirm_server).sign_up({"email": email, "password": PASSWORD}),
        status=422, code="user_already_exists",
    )
    assert error.message == "User already registered"


def test_sign_up_of_a_taken_address_without_autoconfirm_does_not_tell(make_client, confirming_server):
    """Latchkey does better than GoTrue here: GoTrue's obfuscated user has `identities: []`,
    which tells a caller the address is taken. Latchkey's answer has the shape of a new
    sign-up's (an id that belongs to nobody, one identity), and no mail goes to the owner."""
    email = unique_email()
    existing = admin_client(make_client, confirming_server).create_user(
        {"email": email, "password": PASSWORD, "email_confirm": True}).user
    fresh = make_client(confirming_server).sign_up({"email": unique_email("fresh"), "password": PASSWORD})

    response = make_client(confirming_server).sign_up({"email": email, "password": PASSWORD + "?"})

    assert response.session is None
    assert response.user is not None and response.user.id != existing.id
    assert len(response.user.identities) == len(fresh.user.identities) == 1
    assert response.user.email_confirmed_at is None and response.user.confirmation_sent_at is not None
    assert confirming_server.outbox.mails_to(email) == []


def test_weak_password_is_a_weak_password_error(make_client, autoconfirm_server):
    with pytest.raises(AuthWeakPasswordError) as raised:
        make_client(autoconfirm_server).sign_up({"email": unique_email(), "password": "short"})
    assert raised.value.status == 422
    assert raised.value.code == "weak_password"
    assert "length" in raised.value.reasons


def test_sign_up_without_autoconfirm_needs_the_email(make_client, confirming_server):
    email = unique_email()
    client = make_client(confirming_server)

    response = client.sign_up({"email": email, "password": PASSWORD})

    assert response.session is None
    assert response.user is not None and response.user.email == email
    assert response.user.email_confirmed_at is None
    assert response.user.confirmation_sent_at is not None
    assert client.get_session() is None
    error = assert_rejected(
        lambda: client.sign_in_with_password({"email": email, "password": PASSWORD}),
        status=400, code="email_not_confirmed",
    )
    assert error.message == "Email not confirmed"
    mail = confirming_server.outbox.next_mail(email)
    assert mail.link_params["type"] == "signup"


def test_confirmation_link_token_hash_with_verify_otp(make_client, confirming_server):
    email = unique_email()
    client = make_client(confirming_server)
    client.sign_up({"email": email, "password": PASSWORD})
    token_hash = confirming_server.outbox.next_mail(email).link_token

    response = client.verify_otp({"token_hash": token_hash, "type": "signup"})

    assert response.session is not None
    assert response.user.email == email and response.user.email_confirmed_at is not None
    assert client.get_user().user.id == response.user.id
    # The link works once.
    assert_rejected(lambda: make_client(confirming_server).verify_otp({"token_hash": token_hash, "type": "signup"}),
                    status=403, code="otp_expired")
    # Now the password works.
    assert make_client(confirming_server).sign_in_with_password({"email": email, "password": PASSWORD}).session


def test_confirmation_link_followed_in_a_browser_then_initialize_from_url(make_client, confirming_server):
    """The implicit flow: the link redirects with the session in the URL fragment, and the
    client picks it up from the URL it lands on (supabase-py's initialize_from_url)."""
    email = unique_email()
    make_client(confirming_server).sign_up({"email": email, "password": PASSWORD})
    landing = follow_link(confirming_server.outbox.next_mail(email).verify_link)
    assert landing.fragment and "access_token=" in landing.fragment
    assert "access_token" not in str(landing.params)

    client = make_client(confirming_server)
    client.initialize_from_url(str(landing))

    session = client.get_session()
    assert session is not None and session.user.email == email
    assert session.user.email_confirmed_at is not None
    assert client.get_user().user.email == email


def test_bad_confirmation_link_redirects_with_the_error(make_client, confirming_server):
    email = unique_email()
    make_client(confirming_server).sign_up({"email": email, "password": PASSWORD})
    link = confirming_server.outbox.next_mail(email).verify_link
    follow_link(link)  # spends it
    landing = follow_link(link)
    params = urllib.parse.parse_qs(landing.fragment)
    assert params["error_code"] == ["otp_expired"]
    assert params["error"] == ["access_denied"]
    client = make_client(confirming_server)
    with pytest.raises(AuthError):
        client.initialize_from_url(str(landing))
    assert client.get_session() is None


def test_sign_in_with_password_and_the_access_token(make_client, autoconfirm_server):
    _, email = signed_up(make_client, autoconfirm_server)
    client = make_client(autoconfirm_server)

    response = client.sign_in_with_password({"email": email, "password": PASSWORD})

    session = response.session
    assert session is not None and response.user.email == email
    assert response.user.last_sign_in_at is not None
    claims = decode_jwt(session.access_token)["payload"]
    assert claims["sub"] == response.user.id
    assert claims["role"] == "authenticated" and claims["aud"] == "authenticated"
    assert claims["email"] == email
    assert claims["session_id"] and claims["aal"] == "aal1"
    assert claims["exp"] == session.expires_at or abs(claims["exp"] - session.expires_at) <= 2
    assert decode_jwt(session.access_token)["header"]["alg"] == "HS256"
    # get_claims on an HS256 token asks the server (GET /user) and returns the claims.
    assert client.get_claims()["claims"]["sub"] == response.user.id


def test_sign_in_with_the_wrong_password(make_client, autoconfirm_server):
    _, email = signed_up(make_client, autoconfirm_server)
    for wrong in ({"email": email, "password": PASSWORD + "!"}, {"email": unique_email(), "password": PASSWORD}):
        error = assert_rejected(lambda: make_client(autoconfirm_server).sign_in_with_password(wrong),
                                status=400, code="invalid_credentials")
        assert error.message == "Invalid login credentials"


def test_get_user_with_the_session_and_with_a_jwt(make_client, autoconfirm_server):
    client, email = signed_up(make_client, autoconfirm_server)
    user = client.get_user().user
    assert user.email == email
    token = client.get_session().access_token
    assert make_client(autoconfirm_server).get_user(token).user.id == user.id
    assert make_client(autoconfirm_server).get_user() is None  # no session, no request
    assert_rejected(lambda: make_client(autoconfirm_server).get_user("not-a-jwt"), code="bad_jwt")


def _expired_copy(server: Server, access_token: str) -> str:
    """The token an app restores from yesterday's storage: the same claims, expired an hour ago."""
    claims = decode_jwt(access_token)["payload"]
    return pyjwt.encode({**claims, "iat": int(time.time()) - 7200, "exp": int(time.time()) - 3600},
                        server.jwt_secret, algorithm="HS256")


def test_a_bad_or_expired_access_token_is_403_bad_jwt(make_client, autoconfirm_server):
    client, _ = signed_up(make_client, autoconfirm_server)
    expired = _expired_copy(autoconfirm_server, client.get_session().access_token)
    for token in ("not-a-jwt", expired):
        assert_rejected(lambda: make_client(autoconfirm_server).get_user(token), status=403, code="bad_jwt")


def test_update_user_metadata_merges(make_client, autoconfirm_server):
    client, _ = signed_up(make_client, autoconfirm_server, data={"plan": "free", "theme": "dark"})
    events = []
    client.on_auth_state_change(lambda event, session: events.append(event))

    user = client.update_user({"data": {"plan": "pro", "theme": None, "lang": "en"}}).user

    assert user.user_metadata == {"plan": "pro", "lang": "en"}
    assert client.get_user().user.user_metadata == {"plan": "pro", "lang": "en"}
    assert client.get_session().user.user_metadata == {"plan": "pro", "lang": "en"}
    assert events == ["USER_UPDATED"]


def test_update_user_password(make_client, autoconfirm_server):
    client, email = signed_up(make_client, autoconfirm_server)
    other = make_client(autoconfirm_server)
    other.sign_in_with_password({"email": email, "password": PASSWORD})

    client.update_user({"password": NEW_PASSWORD})

    assert client.get_user().user.email == email  # the session that changed it stays
    assert make_client(autoconfirm_server).sign_in_with_password({"email": email, "password": NEW_PASSWORD}).session
    assert_rejected(lambda: make_client(autoconfirm_server).sign_in_with_password({"email": email, "password": PASSWORD}),
                    status=400, code="invalid_credentials")


def test_update_user_email_with_the_confirmation_mail(make_client, confirming_server):
    email, new_email = unique_email(), unique_email("new")
    admin_client(make_client, confirming_server).create_user({"email": email, "password": PASSWORD, "email_confirm": True})
    client = make_client(confirming_server)
    client.sign_in_with_password({"email": email, "password": PASSWORD})

    user = client.update_user({"email": new_email}).user

    assert user.email == email and user.new_email == new_email
    assert user.email_change_sent_at is not None
    # Secure email change (on by default, as in GoTrue): the new address's link, then the current one's.
    mail = confirming_server.outbox.next_mail(new_email)
    half = client.verify_otp({"token_hash": mail.link_token, "type": "email_change"})
    assert half.session is None and half.user is None
    assert client.get_user().user.email == email
    current = confirming_server.outbox.next_mail(email)
    response = client.verify_otp({"token_hash": current.link_token, "type": "email_change"})
    assert response.user.email == new_email
    assert client.get_user().user.email == new_email
    assert make_client(confirming_server).sign_in_with_password({"email": new_email, "password": PASSWORD}).session


def test_refresh_session_rotates_the_refresh_token(make_client, autoconfirm_server):
    client, _ = signed_up(make_client, autoconfirm_server)
    before = client.get_session()
    events = []
    client.on_auth_state_change(lambda event, session: events.append(event))

    response = client.refresh_session()

    assert response.session.refresh_token != before.refresh_token
    assert response.session.access_token != before.access_token or response.session.expires_at >= before.expires_at
    assert client.get_session().refresh_token == response.session.refresh_token
    assert client.get_user().user.id == before.user.id
    assert events == ["TOKEN_REFRESHED"]
    # With an explicit token, too.
    again = make_client(autoconfirm_server).refresh_session(response.session.refresh_token)
    assert again.session.user.id == before.user.id
    assert_rejected(lambda: make_client(autoconfirm_server).refresh_session("not-a-refresh-token"),
                    status=400, code="refresh_token_not_found")


def test_set_session_with_a_valid_access_token(make_client, autoconfirm_server):
    source, email = signed_up(make_client, autoconfirm_server)
    stored = source.get_session()
    client = make_client(autoconfirm_server)

    response = client.set_session(stored.access_token, stored.refresh_token)

    assert response.session.access_token == stored.access_token  # still valid: no refresh
    assert response.user.email == email
    assert client.get_user().user.email == email


def test_set_session_with_an_expired_access_token_refreshes(make_client, autoconfirm_server):
    """An app restoring a session saved yesterday: the access token has expired."""
    source, email = signed_up(make_client, autoconfirm_server)
    stored = source.get_session()
    expired = _expired_copy(autoconfirm_server, stored.access_token)
    assert_rejected(lambda: make_client(autoconfirm_server).get_user(expired), code="bad_jwt")
    client = make_client(autoconfirm_server)

    response = client.set_session(expired, stored.refresh_token)

    assert response.session.access_token != expired
    assert response.session.refresh_token != stored.refresh_token
    assert client.get_user().user.email == email


def test_sign_out_scopes(make_client, autoconfirm_server):
    _, email = signed_up(make_client, autoconfirm_server)

    def signed_in():
        client = make_client(autoconfirm_server)
        client.sign_in_with_password({"email": email, "password": PASSWORD})
        return client, client.get_session()

    (a, a_session), (b, b_session), (c, c_session) = signed_in(), signed_in(), signed_in()

    # others: every session but this one ends.
    a.sign_out({"scope": "others"})
    assert a.get_session() is not None and a.get_user().user.email == email
    for session in (b_session, c_session):
        assert_rejected(lambda: make_client(autoconfirm_server).get_user(session.access_token), status=403,
                        code="session_not_found")
        assert_rejected(lambda: make_client(autoconfirm_server).refresh_session(session.refresh_token), status=400)
    # The signed-out clients find out and sign out without an error (401/403/404 count as done).
    b.sign_out()
    assert b.get_session() is None

    # local: only this session.
    (d, d_session) = signed_in()
    events = []
    a.on_auth_state_change(lambda event, session: events.append(event))
    a.sign_out({"scope": "local"})
    assert a.get_session() is None and events == ["SIGNED_OUT"]
    assert_rejected(lambda: make_client(autoconfirm_server).get_user(a_session.access_token), status=403)
    assert d.get_user().user.email == email

    # global (the default): every session of the user.
    (e, e_session) = signed_in()
    d.sign_out()
    assert d.get_session() is None
    for session in (d_session, e_session):
        assert_rejected(lambda: make_client(autoconfirm_server).get_user(session.access_token), status=403)
        assert_rejected(lambda: make_client(autoconfirm_server).refresh_session(session.refresh_token), status=400)


def test_reset_password_for_email_then_verify_otp_with_the_link_token(make_client, confirming_server):
    email = unique_email()
    admin_client(make_client, confirming_server).create_user({"email": email, "password": PASSWORD, "email_confirm": True})
    client = make_client(confirming_server)
    events = []
    client.on_auth_state_change(lambda event, session: events.append(event))

    client.reset_password_for_email(email)

    mail = confirming_server.outbox.next_mail(email)
    assert mail.link_params["type"] == "recovery"
    response = client.verify_otp({"token_hash": mail.link_token, "type": "recovery"})
    assert response.session is not None and response.user.email == email
    assert events == ["PASSWORD_RECOVERY"]
    client.update_user({"password": NEW_PASSWORD})
    assert make_client(confirming_server).sign_in_with_password({"email": email, "password": NEW_PASSWORD}).session
    assert_rejected(lambda: make_client(confirming_server).sign_in_with_password({"email": email, "password": PASSWORD}),
                    status=400, code="invalid_credentials")


def test_reset_password_for_an_unknown_email_looks_the_same(make_client, confirming_server):
    email = unique_email("nobody")
    make_client(confirming_server).reset_password_for_email(email)  # no error
    assert confirming_server.outbox.mails_to(email) == []


def test_recovery_link_followed_in_a_browser(make_client, confirming_server):
    email = unique_email()
    admin_client(make_client, confirming_server).create_user({"email": email, "password": PASSWORD, "email_confirm": True})
    make_client(confirming_server).reset_password_email(email)
    landing = follow_link(confirming_server.outbox.next_mail(email).verify_link)
    assert urllib.parse.parse_qs(landing.fragment)["type"] == ["recovery"]
    client = make_client(confirming_server)
    client.initialize_from_url(str(landing))
    client.update_user({"password": NEW_PASSWORD})
    assert make_client(confirming_server).sign_in_with_password({"email": email, "password": NEW_PASSWORD}).session


def test_reset_password_right_after_sign_up(make_client, confirming_server):
    email = unique_email()
    client = make_client(confirming_server)
    client.sign_up({"email": email, "password": PASSWORD})
    confirming_server.outbox.next_mail(email)
    client.reset_password_for_email(email)
    assert confirming_server.outbox.next_mail(email).link_params["type"] == "recovery"


def test_resend_the_signup_confirmation(make_client, confirming_server):
    email = unique_email()
    # An unconfirmed user that was sent no mail yet (the admin API sends none).
    admin_client(make_client, confirming_server).create_user({"email": email, "password": PASSWORD})
    client = make_client(confirming_server)

    response = client.resend({"type": "signup", "email": email})

    assert response.user is None and response.session is None
    mail = confirming_server.outbox.next_mail(email)
    assert mail.link_params["type"] == "signup"
    assert client.verify_otp({"token_hash": mail.link_token, "type": "signup"}).user.email_confirmed_at


def test_resend_at_once_is_rate_limited_like_gotrue(make_client, confirming_server):
    email = unique_email()
    client = make_client(confirming_server)
    client.sign_up({"email": email, "password": PASSWORD})
    confirming_server.outbox.next_mail(email)
    error = assert_rejected(lambda: client.resend({"type": "signup", "email": email}),
                            status=429, code="over_email_send_rate_limit")
    assert error.message.startswith("For security purposes, you can only request this after")


# --- Admin API (service_role key) ------------------------------------------------------------


def test_admin_create_get_update_delete_user(make_client, autoconfirm_server):
    admin = admin_client(make_client, autoconfirm_server)
    email = unique_email()

    created = admin.create_user({
        "email": email, "password": PASSWORD, "email_confirm": True,
        "user_metadata": {"name": "Ada"}, "app_metadata": {"roles": ["editor"]},
    }).user
    assert created.email == email and created.email_confirmed_at is not None
    assert created.user_metadata == {"name": "Ada"}
    assert created.app_metadata["roles"] == ["editor"]
    assert created.app_metadata["provider"] == "email" and "email" in created.app_metadata["providers"]

    fetched = admin.get_user_by_id(created.id).user
    assert fetched.id == created.id and fetched.email == email

    user_client = make_client(autoconfirm_server)
    user_client.sign_in_with_password({"email": email, "password": PASSWORD})

    new_email = unique_email("renamed")
    updated = admin.update_user_by_id(created.id, {
        "email": new_email, "user_metadata": {"name": "Ada L."}, "app_metadata": {"roles": ["admin"]},
    }).user
    assert updated.email == new_email
    assert updated.user_metadata["name"] == "Ada L."
    assert updated.app_metadata["roles"] == ["admin"] and updated.app_metadata["provider"] == "email"

    admin.update_user_by_id(created.id, {"password": NEW_PASSWORD})
    # A new password set by an admin ends the user's sessions.
    assert_rejected(lambda: user_client.get_user(), status=403)
    assert make_client(autoconfirm_server).sign_in_with_password({"email": new_email, "password": NEW_PASSWORD}).session

    admin.delete_user(created.id)
    assert_rejected(lambda: admin.get_user_by_id(created.id), status=404, code="user_not_found")
    assert_rejected(lambda: make_client(autoconfirm_server).sign_in_with_password(
        {"email": new_email, "password": NEW_PASSWORD}), status=400, code="invalid_credentials")


def test_admin_confirms_an_email(make_client, confirming_server):
    email = unique_email()
    response = make_client(confirming_server).sign_up({"email": email, "password": PASSWORD})
    assert response.user.email_confirmed_at is None

    user = admin_client(make_client, confirming_server).update_user_by_id(response.user.id, {"email_confirm": True}).user

    assert user.email_confirmed_at is not None
    assert make_client(confirming_server).sign_in_with_password({"email": email, "password": PASSWORD}).session


def test_admin_bans_a_user(make_client, autoconfirm_server):
    client, email = signed_up(make_client, autoconfirm_server)
    admin = admin_client(make_client, autoconfirm_server)
    user_id = client.get_session().user.id

    user = admin.update_user_by_id(user_id, {"ban_duration": "24h"}).user

    assert user.banned_until is not None
    assert_rejected(lambda: make_client(autoconfirm_server).sign_in_with_password({"email": email, "password": PASSWORD}),
                    status=400, code="user_banned")
    admin.update_user_by_id(user_id, {"ban_duration": "none"})
    assert make_client(autoconfirm_server).sign_in_with_password({"email": email, "password": PASSWORD}).session


def test_admin_list_users_with_explicit_pages(make_client, autoconfirm_server):
    admin = admin_client(make_client, autoconfirm_server)
    emails = {unique_email("listed") for _ in range(3)}
    for email in emails:
        admin.create_user({"email": email, "password": PASSWORD, "email_confirm": True})

    seen, page = set(), 1
    while True:
        users = admin.list_users(page=page, per_page=2)
        assert len(users) <= 2
        if not users:
            break
        seen.update(user.email for user in users)
        page += 1
    assert emails <= seen


def test_admin_list_users_with_the_default_arguments(make_client, autoconfirm_server):
    admin = admin_client(make_client, autoconfirm_server)
    email = unique_email("listed")
    admin.create_user({"email": email, "password": PASSWORD, "email_confirm": True})
    users = admin.list_users()
    assert email in [user.email for user in users]


def test_admin_delete_user_ends_its_sessions(make_client, autoconfirm_server):
    client, _ = signed_up(make_client, autoconfirm_server)
    session = client.get_session()
    admin_client(make_client, autoconfirm_server).delete_user(session.user.id)
    assert_rejected(lambda: make_client(autoconfirm_server).get_user(session.access_token), status=403)
    assert_rejected(lambda: make_client(autoconfirm_server).refresh_session(session.refresh_token), status=400)
    # The app's own sign-out then just clears the local session.
    client.sign_out()
    assert client.get_session() is None


def test_admin_sign_out_with_the_users_jwt(make_client, autoconfirm_server):
    client, _ = signed_up(make_client, autoconfirm_server)
    session = client.get_session()
    admin_client(make_client, autoconfirm_server).sign_out(session.access_token)
    assert_rejected(lambda: make_client(autoconfirm_server).get_user(session.access_token), status=403,
                    code="session_not_found")
    with pytest.raises(AuthError):
        admin_client(make_client, autoconfirm_server).sign_out("this-is-a-bad-token")


def test_admin_needs_the_service_role_key(make_client, autoconfirm_server):
    client, _ = signed_up(make_client, autoconfirm_server)
    user_id = client.get_session().user.id
    anon_admin = make_client(autoconfirm_server).admin
    assert_rejected(lambda: anon_admin.get_user_by_id(user_id), status=403, code="not_admin")
    assert_rejected(lambda: anon_admin.create_user({"email": unique_email(), "password": PASSWORD}),
                    status=403, code="not_admin")


# --- PKCE ------------------------------------------------------------------------------------


def test_pkce_sign_up_then_the_link_then_exchange_code_for_session(make_client, confirming_server):
    email = unique_email()
    client = make_client(confirming_server, flow_type="pkce")
    response = client.sign_up({"email": email, "password": PASSWORD})
    assert response.session is None

    landing = follow_link(confirming_server.outbox.next_mail(email).verify_link)
    assert "access_token" not in (landing.fragment or "")
    code = landing.params["code"]
    session = client.exchange_code_for_session({"auth_code": code}).session

    assert session is not None and session.user.email == email
    assert client.get_user().user.email_confirmed_at is not None
    # A code works once, and only with its verifier.
    assert_rejected(lambda: client.exchange_code_for_session({"auth_code": code, "code_verifier": "x" * 43}))


def test_pkce_password_recovery(make_client, confirming_server):
    email = unique_email()
    admin_client(make_client, confirming_server).create_user({"email": email, "password": PASSWORD, "email_confirm": True})
    client = make_client(confirming_server, flow_type="pkce")
    events = []
    client.on_auth_state_change(lambda event, session: events.append(event))
    client.reset_password_for_email(email)
    landing = follow_link(confirming_server.outbox.next_mail(email).verify_link)

    session = client.exchange_code_for_session({"auth_code": landing.params["code"]}).session

    assert session.user.email == email and events == ["PASSWORD_RECOVERY"]
    client.update_user({"password": NEW_PASSWORD})
    assert make_client(confirming_server).sign_in_with_password({"email": email, "password": NEW_PASSWORD}).session


# --- Email one-time codes, magic links, invites ----------------------------------------------


def test_verify_otp_with_the_six_digit_code_from_the_confirmation_mail(make_client, confirming_server):
    email = unique_email()
    client = make_client(confirming_server)
    client.sign_up({"email": email, "password": PASSWORD})
    code = confirming_server.outbox.next_mail(email).code

    response = client.verify_otp({"email": email, "token": code, "type": "email"})

    assert response.session is not None and response.user.email_confirmed_at is not None


def test_verify_otp_with_the_six_digit_code_from_the_recovery_mail(make_client, confirming_server):
    email = unique_email()
    admin_client(make_client, confirming_server).create_user({"email": email, "password": PASSWORD, "email_confirm": True})
    client = make_client(confirming_server)
    client.reset_password_for_email(email)
    code = confirming_server.outbox.next_mail(email).code

    response = client.verify_otp({"email": email, "token": code, "type": "recovery"})

    assert response.session is not None and response.user.email == email


def test_verify_otp_token_hash_with_type_email(make_client, confirming_server):
    email = unique_email()
    client = make_client(confirming_server)
    client.sign_up({"email": email, "password": PASSWORD})
    token_hash = confirming_server.outbox.next_mail(email).link_token

    response = client.verify_otp({"token_hash": token_hash, "type": "email"})

    assert response.session is not None and response.user.email == email


def test_verify_otp_with_a_wrong_code_is_refused(make_client, confirming_server):
    email = unique_email()
    make_client(confirming_server).sign_up({"email": email, "password": PASSWORD})
    confirming_server.outbox.next_mail(email)
    with pytest.raises(AuthApiError) as raised:
        make_client(confirming_server).verify_otp({"token_hash": "0" * 43, "type": "signup"})
    assert raised.value.status == 403 and raised.value.code == "otp_expired"


def test_sign_in_with_otp_magic_link_creates_the_user(make_client, confirming_server):
    email = unique_email("magic")
    client = make_client(confirming_server)

    response = client.sign_in_with_otp({"email": email, "options": {"should_create_user": True, "data": {"via": "otp"}}})

    assert response.user is None and response.session is None
    mail = confirming_server.outbox.next_mail(email)
    verified = client.verify_otp({"token_hash": mail.link_token, "type": mail.link_params["type"]})
    assert verified.session is not None and verified.user.email == email
    assert verified.user.user_metadata.get("via") == "otp"


def test_sign_in_with_otp_for_an_existing_user_with_the_code(make_client, autoconfirm_server):
    _, email = signed_up(make_client, autoconfirm_server)
    client = make_client(autoconfirm_server)
    client.sign_in_with_otp({"email": email, "options": {"should_create_user": False}})
    code = autoconfirm_server.outbox.next_mail(email).code

    response = client.verify_otp({"email": email, "token": code, "type": "email"})

    assert response.session is not None and response.user.email == email


def test_sign_in_with_otp_without_create_user_for_an_unknown_address(make_client, confirming_server):
    """GoTrue answers 422 otp_disabled here, which tells a caller the address has no account;
    Latchkey answers as for a known address and sends nothing."""
    email = unique_email("nobody")
    make_client(confirming_server).sign_in_with_otp({"email": email, "options": {"should_create_user": False}})
    assert confirming_server.outbox.mails_to(email) == []


def test_admin_invite_user_by_email(make_client, confirming_server):
    email = unique_email("invited")
    admin = admin_client(make_client, confirming_server)

    user = admin.invite_user_by_email(email, {"data": {"team": "blue"}}).user

    assert user.email == email and user.invited_at is not None
    assert user.user_metadata == {"team": "blue"}
    mail = confirming_server.outbox.next_mail(email)
    assert mail.link_params["type"] == "invite"
    client = make_client(confirming_server)
    response = client.verify_otp({"token_hash": mail.link_token, "type": "invite"})
    assert response.session is not None and response.user.email_confirmed_at is not None
    client.update_user({"password": PASSWORD})
    assert make_client(confirming_server).sign_in_with_password({"email": email, "password": PASSWORD}).session


def _check_generated_link(response, email: str, link_type: str):
    properties = response.properties
    assert properties.verification_type == link_type
    assert properties.hashed_token and properties.action_link
    assert properties.email_otp.isdigit() and len(properties.email_otp) == 6
    assert f"token={properties.hashed_token}" in properties.action_link
    assert f"type={link_type}" in properties.action_link
    assert response.user.email == email


def test_admin_generate_link_signup(make_client, confirming_server):
    email = unique_email()
    response = admin_client(make_client, confirming_server).generate_link(
        {"type": "signup", "email": email, "password": PASSWORD, "options": {"data": {"status": "alpha"}}})
    _check_generated_link(response, email, "signup")
    assert response.user.user_metadata == {"status": "alpha"}
    assert confirming_server.outbox.mails_to(email) == []  # the app sends it itself
    verified = make_client(confirming_server).verify_otp({"token_hash": response.properties.hashed_token, "type": "signup"})
    assert verified.session is not None
    assert make_client(confirming_server).sign_in_with_password({"email": email, "password": PASSWORD}).session


def test_admin_generate_link_invite(make_client, confirming_server):
    email = unique_email("invited")
    response = admin_client(make_client, confirming_server).generate_link({"type": "invite", "email": email})
    _check_generated_link(response, email, "invite")
    assert response.user.invited_at is not None
    assert make_client(confirming_server).verify_otp(
        {"token_hash": response.properties.hashed_token, "type": "invite"}).session is not None


def test_admin_generate_link_magiclink(make_client, autoconfirm_server):
    _, email = signed_up(make_client, autoconfirm_server)
    response = admin_client(make_client, autoconfirm_server).generate_link({"type": "magiclink", "email": email})
    _check_generated_link(response, email, "magiclink")
    client = make_client(autoconfirm_server)
    assert client.verify_otp({"email": email, "token": response.properties.email_otp, "type": "email"}).session


def test_admin_generate_link_recovery(make_client, autoconfirm_server):
    _, email = signed_up(make_client, autoconfirm_server)
    response = admin_client(make_client, autoconfirm_server).generate_link({"type": "recovery", "email": email})
    _check_generated_link(response, email, "recovery")
    client = make_client(autoconfirm_server)
    assert client.verify_otp({"token_hash": response.properties.hashed_token, "type": "recovery"}).session


def test_admin_generate_link_email_change_new(make_client, autoconfirm_server):
    """GoTrue's email-change links name `type=email_change` whichever address they go to."""
    client, email = signed_up(make_client, autoconfirm_server)
    new_email = unique_email("new")
    response = admin_client(make_client, autoconfirm_server).generate_link(
        {"type": "email_change_new", "email": email, "new_email": new_email})
    properties = response.properties
    assert properties.verification_type == "email_change_new"
    assert f"token={properties.hashed_token}" in properties.action_link and "type=email_change&" in properties.action_link
    assert response.user.new_email == new_email
    session = client.verify_otp({"email": new_email, "token": properties.email_otp, "type": "email_change"}).session
    assert session.user.email == new_email


def test_secure_email_change_with_both_codes(make_client, confirming_server):
    """Secure email change: a code to each address; the first answers GoTrue's message and
    changes nothing, the second changes the address. A code works only with its own address."""
    email, new_email = unique_email(), unique_email("new")
    admin_client(make_client, confirming_server).create_user({"email": email, "password": PASSWORD, "email_confirm": True})
    client = make_client(confirming_server)
    client.sign_in_with_password({"email": email, "password": PASSWORD})

    assert client.update_user({"email": new_email}).user.new_email == new_email
    current_code = confirming_server.outbox.next_mail(email).code
    new_code = confirming_server.outbox.next_mail(new_email).code
    assert_rejected(lambda: client.verify_otp({"email": email, "token": new_code, "type": "email_change"}),
                    status=403, code="otp_expired")
    half = client.verify_otp({"email": new_email, "token": new_code, "type": "email_change"})
    assert half.session is None and half.user is None
    assert client.get_user().user.email == email
    response = client.verify_otp({"email": email, "token": current_code, "type": "email_change"})
    assert response.session is not None and response.user.email == new_email
    assert make_client(confirming_server).sign_in_with_password({"email": new_email, "password": PASSWORD}).session


def test_admin_generate_link_email_change_current(make_client, confirming_server):
    """generate_link for the current address (secure email change, on by default): its code
    goes with the current address, and the change needs the new address's link too."""
    email, new_email = unique_email(), unique_email("new")
    admin = admin_client(make_client, confirming_server)
    admin.create_user({"email": email, "password": PASSWORD, "email_confirm": True})
    current = admin.generate_link({"type": "email_change_current", "email": email, "new_email": new_email})
    assert current.properties.verification_type == "email_change_current"
    assert "type=email_change&" in current.properties.action_link
    assert current.user.new_email == new_email
    new = admin.generate_link({"type": "email_change_new", "email": email, "new_email": new_email})
    client = make_client(confirming_server)
    assert client.verify_otp({"email": email, "token": current.properties.email_otp, "type": "email_change"}).session is None
    session = client.verify_otp({"token_hash": new.properties.hashed_token, "type": "email_change"}).session
    assert session.user.email == new_email


# --- Reauthentication, anonymous sign-in, SSO ------------------------------------------------


def test_reauthenticate_then_update_the_password_with_the_nonce(make_client, autoconfirm_server):
    client, email = signed_up(make_client, autoconfirm_server)

    response = client.reauthenticate()

    assert response.user is None and response.session is None
    nonce = autoconfirm_server.outbox.next_mail(email).code
    client.update_user({"password": NEW_PASSWORD, "nonce": nonce})
    assert make_client(autoconfirm_server).sign_in_with_password({"email": email, "password": NEW_PASSWORD}).session


def test_sign_in_anonymously_then_add_email_and_password(make_client, autoconfirm_server):
    client = make_client(autoconfirm_server)

    response = client.sign_in_anonymously({"options": {"data": {"guest": True}}})

    assert response.session is not None
    assert response.user.is_anonymous is True and not response.user.email
    assert decode_jwt(response.session.access_token)["payload"].get("is_anonymous") is True
    email = unique_email("upgraded")
    client.update_user({"email": email, "password": PASSWORD})
    user = client.get_user().user
    assert user.id == response.user.id
    assert user.email == email or user.new_email == email
    if user.new_email == email:  # the address still has to be confirmed
        mail = autoconfirm_server.outbox.next_mail(email)
        client.verify_otp({"token_hash": mail.link_token, "type": "email_change"})
    assert make_client(autoconfirm_server).sign_in_with_password({"email": email, "password": PASSWORD}).user.id == user.id


def test_sign_in_with_sso_says_saml_is_disabled(make_client, autoconfirm_server):
    with pytest.raises(AuthApiError, match="SAML 2.0 is disabled") as raised:
        make_client(autoconfirm_server).sign_in_with_sso({"domain": "example.com"})
    assert raised.value.status == 404


def test_admin_oauth_clients_say_the_oauth_server_is_disabled(make_client, autoconfirm_server):
    oauth = admin_client(make_client, autoconfirm_server).oauth
    for call in (oauth.list_clients, lambda: oauth.get_client(str(uuid.uuid4())), lambda: oauth.delete_client(str(uuid.uuid4()))):
        error = assert_rejected(call, status=404, code="feature_disabled")
        assert "OAuth server is disabled" in error.message
