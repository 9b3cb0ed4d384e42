"""Password character rules as the real Supabase client meets them: a sign-up with a password
missing a required character raises the client's AuthWeakPasswordError with GoTrue's reasons."""

from __future__ import annotations

import pytest
from supabase_auth.errors import AuthWeakPasswordError

from conftest import Server, unique_email


def test_sign_up_with_a_password_missing_a_capital_and_digit_is_weak(rules_server: Server, make_client):
    client = make_client(rules_server)
    with pytest.raises(AuthWeakPasswordError) as raised:
        client.sign_up({"email": unique_email("weak"), "password": "only lowercase letters"})
    assert raised.value.reasons == ["characters"]
    assert raised.value.status == 422
    assert "at least one character of each" in raised.value.message


def test_a_password_with_each_required_character_signs_up_and_in(rules_server: Server, make_client):
    client = make_client(rules_server)
    email = unique_email("strong")
    response = client.sign_up({"email": email, "password": "Lowercase Capital 7"})
    assert response.session is not None
    signed_in = make_client(rules_server).sign_in_with_password({"email": email, "password": "Lowercase Capital 7"})
    assert signed_in.session is not None and signed_in.user.email == email
