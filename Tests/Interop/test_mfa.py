"""Multi-factor authentication (TOTP) with the real Supabase Python auth client.

`mfa.enroll/challenge/verify/challenge_and_verify/unenroll/list_factors/get_authenticator_assurance_level`
and `admin.mfa.list_factors/delete_factor` against `latchkey serve`, with codes computed here the
way an authenticator app computes them (RFC 6238: HMAC-SHA1, 30-second steps, six digits).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import struct
import time
import urllib.parse

import pytest
from supabase_auth.errors import AuthApiError

from conftest import PASSWORD, Server, unique_email


def totp(secret: str, steps_ahead: int = 0, at: float | None = None) -> str:
    """The code an authenticator app shows for `secret` (base32) now, or `steps_ahead` steps on."""
    key = base64.b32decode(secret + "=" * (-len(secret) % 8), casefold=True)
    counter = int((time.time() if at is None else at) // 30) + steps_ahead
    digest = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    value = struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF
    return f"{value % 1_000_000:06d}"


def signed_up(make_client, server: Server):
    email = unique_email("mfa")
    client = make_client(server)
    assert client.sign_up({"email": email, "password": PASSWORD}).session is not None
    return client, email


def rejected(call, status: int, code: str) -> AuthApiError:
    with pytest.raises(AuthApiError) as raised:
        call()
    assert raised.value.status == status and raised.value.code == code, raised.value.to_dict()
    return raised.value


def test_enroll_challenge_verify_reaches_aal2(make_client, autoconfirm_server):
    client, email = signed_up(make_client, autoconfirm_server)
    level = client.mfa.get_authenticator_assurance_level()
    assert (level.current_level, level.next_level) == ("aal1", "aal1")

    enrolled = client.mfa.enroll({"factor_type": "totp", "friendly_name": "My phone", "issuer": "Latchkey Interop"})
    assert enrolled.type == "totp" and enrolled.friendly_name == "My phone"
    assert enrolled.totp is not None and len(enrolled.totp.secret) == 32
    assert enrolled.totp.qr_code.startswith("data:image/svg+xml;utf-8,")  # the client's prefix
    uri = urllib.parse.urlparse(enrolled.totp.uri)
    query = urllib.parse.parse_qs(uri.query)
    assert uri.scheme == "otpauth" and uri.netloc == "totp"
    assert urllib.parse.unquote(uri.path) == f"/Latchkey Interop:{email}"
    assert query == {"algorithm": ["SHA1"], "digits": ["6"], "issuer": ["Latchkey Interop"], "period": ["30"], "secret": [enrolled.totp.secret]}

    listed = client.mfa.list_factors()
    assert [f.id for f in listed.all] == [enrolled.id] and listed.all[0].status == "unverified"
    assert listed.totp == []  # only verified factors

    challenge = client.mfa.challenge({"factor_id": enrolled.id})
    assert challenge.factor_type == "totp" and challenge.expires_at > time.time()
    verified = client.mfa.verify({"factor_id": enrolled.id, "challenge_id": challenge.id, "code": totp(enrolled.totp.secret)})
    assert verified.access_token and verified.user.factors[0].status == "verified"

    level = client.mfa.get_authenticator_assurance_level()
    assert (level.current_level, level.next_level) == ("aal2", "aal2")
    assert {m.method for m in level.current_authentication_methods} == {"totp", "password"}
    assert level.current_authentication_methods[0].method == "totp"  # most recent first
    assert [f.id for f in client.mfa.list_factors().totp] == [enrolled.id]

    # Refreshing keeps aal2.
    client.refresh_session()
    assert client.mfa.get_authenticator_assurance_level().current_level == "aal2"


def test_a_new_sign_in_is_aal1_until_challenge_and_verify(make_client, autoconfirm_server):
    client, email = signed_up(make_client, autoconfirm_server)
    enrolled = client.mfa.enroll({"factor_type": "totp", "friendly_name": "phone"})
    secret = enrolled.totp.secret
    first_code = totp(secret)
    client.mfa.challenge_and_verify({"factor_id": enrolled.id, "code": first_code})

    other = make_client(autoconfirm_server)
    other.sign_in_with_password({"email": email, "password": PASSWORD})
    level = other.mfa.get_authenticator_assurance_level()
    assert (level.current_level, level.next_level) == ("aal1", "aal2")

    # GoTrue's rules at aal1 with a verified factor.
    rejected(lambda: other.update_user({"password": "another horse battery staple"}), 401, "insufficient_aal")
    rejected(lambda: other.mfa.unenroll({"factor_id": enrolled.id}), 422, "insufficient_aal")
    rejected(lambda: other.mfa.enroll({"factor_type": "totp", "friendly_name": "second"}), 403, "insufficient_aal")

    # The code the first session used is spent (a replay, or an older step by now); a wrong code
    # is refused; the next step's code (within the drift) is accepted.
    challenge = other.mfa.challenge({"factor_id": enrolled.id})
    rejected(lambda: other.mfa.verify({"factor_id": enrolled.id, "challenge_id": challenge.id, "code": first_code}),
             422, "mfa_verification_failed")
    wrong = "000000" if totp(secret) != "000000" else "000001"
    rejected(lambda: other.mfa.verify({"factor_id": enrolled.id, "challenge_id": challenge.id, "code": wrong}),
             422, "mfa_verification_failed")
    other.mfa.verify({"factor_id": enrolled.id, "challenge_id": challenge.id, "code": totp(secret, steps_ahead=1)})
    assert other.mfa.get_authenticator_assurance_level().current_level == "aal2"

    unenrolled = other.mfa.unenroll({"factor_id": enrolled.id})
    assert unenrolled.id == enrolled.id
    assert other.mfa.list_factors().all == []
    other.refresh_session()
    assert other.mfa.get_authenticator_assurance_level().current_level == "aal1"


def test_gotrue_errors_for_bad_challenges(make_client, autoconfirm_server):
    client, _ = signed_up(make_client, autoconfirm_server)
    enrolled = client.mfa.enroll({"factor_type": "totp", "friendly_name": "phone"})
    rejected(lambda: client.mfa.enroll({"factor_type": "totp", "friendly_name": "phone"}), 422, "mfa_factor_name_conflict")
    rejected(lambda: client.mfa.challenge({"factor_id": "00000000-0000-4000-8000-000000000000"}), 404, "mfa_factor_not_found")
    rejected(lambda: client.mfa.verify({"factor_id": enrolled.id, "challenge_id": "00000000-0000-4000-8000-000000000000", "code": "123456"}),
             422, "mfa_factor_not_found")


def test_admin_lists_and_deletes_factors(make_client, autoconfirm_server):
    client, _ = signed_up(make_client, autoconfirm_server)
    enrolled = client.mfa.enroll({"factor_type": "totp", "friendly_name": "phone"})
    client.mfa.challenge_and_verify({"factor_id": enrolled.id, "code": totp(enrolled.totp.secret)})
    user_id = client.get_user().user.id

    admin = make_client(autoconfirm_server, key=autoconfirm_server.service_role_key).admin
    factors = admin.mfa.list_factors({"user_id": user_id})
    assert [(f.id, f.status, f.factor_type) for f in factors] == [(enrolled.id, "verified", "totp")]

    # A user's own token is not an admin's.
    as_user = make_client(autoconfirm_server, key=client.get_session().access_token).admin
    rejected(lambda: as_user.mfa.list_factors({"user_id": user_id}), 403, "not_admin")

    deleted = admin.mfa.delete_factor({"user_id": user_id, "id": enrolled.id})
    assert deleted.id == enrolled.id
    assert admin.mfa.list_factors({"user_id": user_id}) == []
    client.refresh_session()
    level = client.mfa.get_authenticator_assurance_level()
    assert (level.current_level, level.next_level) == ("aal1", "aal1")
