"""Brute force and token lifetime: wrong passwords lock a user name out from an address (429) on the login page and
the token endpoint; tokens expire and are revoked when the user logs out.

The attack: 260 wrong passwords on the web login and the token endpoint, no 429 and no lockout (each ~300 ms of
CPU); tokens never expired and survived logout."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

PASSWORD = "correct horse battery"


@pytest.fixture
def limit(settings):
    settings.AXES_FAILURE_LIMIT = 5
    return 5


def test_the_login_page_locks_a_user_name_out_after_the_limit(client, user, limit):
    for _ in range(limit - 1):
        assert client.post("/accounts/login/", {"username": "ada", "password": "wrong"}).status_code == 200
    assert client.post("/accounts/login/", {"username": "ada", "password": "wrong"}).status_code == 429
    # locked out: even the right password is refused until the cool-off
    response = client.post("/accounts/login/", {"username": "ada", "password": PASSWORD})
    assert response.status_code == 429 and "_auth_user_id" not in client.session
    # another address is not locked out (the lock is on the user name from that address)
    other = Client(REMOTE_ADDR="10.0.0.2")
    assert other.post("/accounts/login/", {"username": "ada", "password": PASSWORD}).status_code == 302


def test_the_token_endpoint_locks_out_too_and_says_so(user, limit):
    api = APIClient()
    for _ in range(limit - 1):
        assert api.post("/api/v1/auth/token/", {"username": "ada", "password": "wrong"}, format="json").status_code == 400
    response = api.post("/api/v1/auth/token/", {"username": "ada", "password": "wrong"}, format="json")
    assert response.status_code == 429
    response = api.post("/api/v1/auth/token/", {"username": "ada", "password": PASSWORD}, format="json")
    assert response.status_code == 429 and "Too many failed logins" in response.json()["detail"]


def test_a_right_password_resets_the_count(client, user, limit):
    for _ in range(limit - 2):
        client.post("/accounts/login/", {"username": "ada", "password": "wrong"})
    assert client.post("/accounts/login/", {"username": "ada", "password": PASSWORD}).status_code == 302
    client.logout()
    for _ in range(limit - 2):
        assert client.post("/accounts/login/", {"username": "ada", "password": "wrong"}).status_code == 200


def _token(api) -> str:
    response = api.post("/api/v1/auth/token/", {"username": "ada", "password": PASSWORD}, format="json")
    assert response.status_code == 200, response.content
    return response.json()["token"]


def test_an_expired_token_is_refused_and_the_endpoint_hands_out_a_new_one(user, settings):
    settings.SKYPLAN_TOKEN_TTL_HOURS = 24
    api = APIClient()
    key = _token(api)
    Token.objects.filter(key=key).update(created=timezone.now() - timedelta(hours=25))
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    response = api.get("/api/v1/platforms/")
    assert response.status_code == 401 and "expired" in response.json()["detail"]
    fresh = _token(APIClient())
    assert fresh != key
    api.credentials(HTTP_AUTHORIZATION=f"Token {fresh}")
    assert api.get("/api/v1/platforms/").status_code == 200


def test_tokens_do_not_expire_when_the_lifetime_is_zero(user, settings):
    settings.SKYPLAN_TOKEN_TTL_HOURS = 0
    key = _token(APIClient())
    Token.objects.filter(key=key).update(created=timezone.now() - timedelta(days=3650))
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/v1/platforms/").status_code == 200


@pytest.mark.parametrize("revoke", [True, False])
def test_logging_out_of_the_site_revokes_the_token_when_configured(client, user, settings, revoke):
    settings.SKYPLAN_TOKEN_REVOKE_ON_LOGOUT = revoke
    key = _token(APIClient())
    client.post("/accounts/login/", {"username": "ada", "password": PASSWORD})
    client.post("/accounts/logout/")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/v1/platforms/").status_code == (401 if revoke else 200)
