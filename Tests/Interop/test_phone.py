"""Phone sign-in as the real Supabase client meets it: a code for a test number
(`--sms-test-otp`, no SMS sent) signs in with `sign_in_with_otp` + `verify_otp` type `sms`, the
session refreshes, and a phone sign-up with a password is confirmed by its code and then signs
in with `sign_in_with_password`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from supabase_auth.errors import AuthApiError

from conftest import PASSWORD, Server, _start_server, _stop_server

OTP_NUMBER = "+15555550100"
SIGNUP_NUMBER = "+15555550101"
CODE = "123456"


@pytest.fixture(scope="module")
def phone_server(latchkey_bin: Path, _server_root: Path) -> Iterator[Server]:
    server = _start_server(
        latchkey_bin, _server_root, autoconfirm=False, name="phone",
        extra_args=("--phone-enabled", "--sms-test-otp", f"{OTP_NUMBER}:{CODE},{SIGNUP_NUMBER}:{CODE}"),
    )
    yield server
    _stop_server(server)


def test_sign_in_with_otp_then_verify_sms_then_refresh(phone_server: Server, make_client):
    client = make_client(phone_server)
    sent = client.sign_in_with_otp({"phone": OTP_NUMBER})
    assert sent.session is None and sent.user is None
    with pytest.raises(AuthApiError) as wrong:
        client.verify_otp({"phone": OTP_NUMBER, "token": "000000", "type": "sms"})
    assert wrong.value.code == "otp_expired"

    verified = client.verify_otp({"phone": OTP_NUMBER, "token": CODE, "type": "sms"})
    assert verified.session is not None
    assert verified.user is not None and verified.user.phone == OTP_NUMBER.lstrip("+")
    assert verified.user.phone_confirmed_at is not None
    refreshed = client.refresh_session()
    assert refreshed.session is not None
    assert refreshed.session.refresh_token != verified.session.refresh_token
    assert client.get_user().user.phone == OTP_NUMBER.lstrip("+")


def test_sign_up_with_phone_and_password(phone_server: Server, make_client):
    client = make_client(phone_server)
    signed_up = client.sign_up({"phone": SIGNUP_NUMBER, "password": PASSWORD})
    assert signed_up.session is None
    assert signed_up.user is not None and signed_up.user.phone == SIGNUP_NUMBER.lstrip("+")
    with pytest.raises(AuthApiError) as early:
        make_client(phone_server).sign_in_with_password({"phone": SIGNUP_NUMBER, "password": PASSWORD})
    assert early.value.code == "phone_not_confirmed"

    assert client.verify_otp({"phone": SIGNUP_NUMBER, "token": CODE, "type": "sms"}).session is not None
    signed_in = make_client(phone_server).sign_in_with_password({"phone": SIGNUP_NUMBER, "password": PASSWORD})
    assert signed_in.session is not None and signed_in.user.phone == SIGNUP_NUMBER.lstrip("+")


def test_settings_say_phone_is_on(phone_server: Server, make_client):
    settings = make_client(phone_server)._request("GET", "settings").json()
    assert settings["external"]["phone"] is True
