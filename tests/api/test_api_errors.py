"""API errors: JSON nested 1,000 deep is a 400 naming the bound on every JSON POST (the token endpoint included) and in
the pages' JSON fields, not a RecursionError (500); a path under /api/ that no route matches is a JSON 404."""

from __future__ import annotations

import pytest
from django.urls import reverse

from apps.core.jsonbounds import MAX_JSON_DEPTH, TooDeep, depth, loads

DEEP = "[" * 1000 + "]" * 1000  # 2 kB, the attack's body
DEEP_OBJECT = '{"a":' * 1000 + "1" + "}" * 1000


def test_loads_refuses_deep_nesting_and_keeps_the_rest():
    for text in (DEEP, DEEP_OBJECT, "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)):
        with pytest.raises(TooDeep):
            loads(text)
    ok = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert depth(loads(ok)) == MAX_JSON_DEPTH
    assert loads('{"stages": {"invert": {"nodes": 10}}}') == {"stages": {"invert": {"nodes": 10}}}
    assert depth(1) == 0 and depth([]) == 1 and depth({"a": [1, {"b": 2}]}) == 3


def _json_posts(openapi) -> list[str]:
    """Every operation taking a JSON body whose path has no parameter (those answer 404 for a made-up id)."""
    return sorted(path for path, ops in openapi["paths"].items() if "{" not in path and "post" in ops
                  and "application/json" in (ops["post"].get("requestBody") or {}).get("content", {}))


def test_every_json_post_answers_400_naming_the_bound(api, anonymous, openapi, db):
    paths = _json_posts(openapi)
    assert "/api/v1/auth/token/" in paths and "/api/v1/scenarios/" in paths
    for path in paths:
        for client in (api, anonymous):
            for body in (DEEP, DEEP_OBJECT):
                response = client.generic("POST", path, body, content_type="application/json")
                if client is anonymous and path != "/api/v1/auth/token/":
                    assert response.status_code == 401, (path, response.status_code)
                    continue
                assert response.status_code == 400, (path, response.status_code)
                assert f"nested deeper than {MAX_JSON_DEPTH} levels" in response.json()["detail"], path


def test_a_deep_json_option_on_the_pages_is_a_form_error(logged_in, staff, client, catalogue):
    response = logged_in.get(reverse("scoring:rerank"), {"ranks": DEEP, "weights": "1"})
    assert response.status_code == 400 and "nested deeper" in response.json()["error"]
    # the run form's options are labelled fields now; the configuration search's space is still JSON
    response = logged_in.post(reverse("scoring:searches"), {"workload": "chiles-epoch1", "platform": "magnus",
                                                            "space": DEEP_OBJECT, "seed": "0"})
    assert response.status_code == 200 and b"nested deeper than" in response.content
    client.force_login(staff)
    response = client.post(reverse("scoring:criteria"), {"key": "k", "label": "K", "metric": "iops",
                                                         "direction": "higher", "rubric": DEEP, "weight": "1",
                                                         "position": "0"})
    assert response.status_code == 200 and b"nested deeper than" in response.content


def test_an_unknown_api_path_is_a_json_404_not_an_html_page(api, anonymous, db):
    for client in (api, anonymous):
        for path in ("/api/v1/nothing/", "/api/v1/scenarios/not-a-uuid/", "/api/v2/", "/api/v1/profiles/x/"):
            response = client.get(path)
            assert response.status_code == 404 and response["Content-Type"] == "application/json", path
            assert response.json() == {"detail": "Not found."}
    assert "text/html" in anonymous.get("/nothing/").get("Content-Type", "text/html")
