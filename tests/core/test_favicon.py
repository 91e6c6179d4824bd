"""The site icon: browsers ask for /favicon.ico on every page, logged in or not."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_it_sends_browsers_asking_for_favicon_ico_to_the_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("favicon.svg")
    assert client.get(response["Location"]).status_code == 200
