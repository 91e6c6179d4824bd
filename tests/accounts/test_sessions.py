"""A malformed session cookie is no session, never a server error."""

import pytest


@pytest.mark.parametrize("key", ["abc\x00defghijklmnopqrstuvwxyz012345", "ZZZ'; DROP TABLE x;--aaaaaaaaaaaa", "é" * 32])
def test_a_malformed_session_cookie_is_treated_as_no_session(client, db, key):
    client.cookies["sessionid"] = key
    response = client.get("/scenarios/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert client.get("/accounts/login/").status_code == 200


def test_the_test_clients_login_still_works(client, user):
    assert client.login(username="ada", password="correct horse battery")
    assert client.get("/scenarios/").status_code == 200


def test_a_real_session_still_works(client, user):
    response = client.post("/accounts/login/", {"username": "ada", "password": "correct horse battery"})
    assert response.status_code == 302
    assert client.get("/scenarios/").status_code == 200
