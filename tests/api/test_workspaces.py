"""The API keeps the UI's workspace rules: another workspace's objects are 404s (and absent from lists), a viewer
reads but cannot run, cancel or export (403)."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from apps.accounts.workspaces import Role, add_member, personal_workspace


@pytest.fixture(autouse=True)
def no_dispatch(monkeypatch):
    from apps.scenarios import services

    monkeypatch.setattr(services, "dispatch_run", lambda run: None)


@pytest.fixture
def bob(django_user_model) -> APIClient:
    user = django_user_model.objects.create_user(username="bob", password="another horse battery")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


@pytest.fixture
def adas_scenario(api, catalogue) -> dict:
    body = {"name": "Ada's", "workload": "chiles-epoch1", "replications": 1,
            "platforms": [{"platform": "magnus"}, {"platform": "aws-sydney"}]}
    scenario = api.post("/api/v1/scenarios/", body, format="json").json()
    assert scenario["workspace"] == "ada"
    return scenario


def test_another_workspaces_scenario_is_not_found(bob, adas_scenario):
    sid = adas_scenario["id"]
    for url in (f"/api/v1/scenarios/{sid}/", f"/api/v1/scenarios/{sid}/status/", f"/api/v1/scenarios/{sid}/results/"):
        assert bob.get(url).status_code == 404, url
    assert bob.post(f"/api/v1/scenarios/{sid}/run/").status_code == 404
    assert bob.get("/api/v1/scenarios/").json()["count"] == 0
    refused = bob.post("/api/v1/reports/", {"scenario": sid, "format": "json"}, format="json")
    assert refused.status_code == 400 and list(refused.json()) == ["scenario"]


def test_a_viewer_reads_but_cannot_run(bob, adas_scenario, user):
    add_member(personal_workspace(user), "bob", Role.VIEWER)
    sid = adas_scenario["id"]
    assert bob.get(f"/api/v1/scenarios/{sid}/").status_code == 200
    assert bob.get("/api/v1/scenarios/").json()["count"] == 1
    refused = bob.post(f"/api/v1/scenarios/{sid}/run/")
    assert refused.status_code == 403 and "editor" in refused.json()["detail"]


def test_an_editor_runs_and_the_runs_are_in_the_scenarios_workspace(bob, adas_scenario, user):
    add_member(personal_workspace(user), "bob", Role.EDITOR)
    assert bob.post(f"/api/v1/scenarios/{adas_scenario['id']}/run/").status_code == 202
    runs = bob.get("/api/v1/runs/").json()
    assert runs["count"] == 2


def test_another_workspaces_benchmark_is_not_found(api, bob, catalogue, monkeypatch):
    from apps.benchmarks import services

    monkeypatch.setattr(services, "dispatch", lambda run: None)
    run = api.post("/api/v1/benchmarks/", {"platform": "magnus", "kind": "cpu"}, format="json").json()
    assert bob.get(f"/api/v1/benchmarks/{run['id']}/").status_code == 404
    assert bob.get("/api/v1/benchmarks/").json()["count"] == 0
    assert api.get("/api/v1/benchmarks/").json()["count"] == 1
