"""Platform copies over the API: the list and the details follow the workspace rules (another workspace's copy is
a 404 and absent from lists, and cannot be picked for a run), and POST /platforms/{slug}/copy/ copies a platform
into the active workspace for its editors."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from apps.accounts.workspaces import Role, add_member, personal_workspace
from apps.platforms.models import Platform
from apps.platforms.services import copy_platform


@pytest.fixture
def adas_copy(user, catalogue) -> Platform:
    return copy_platform(Platform.objects.get(slug="magnus"), personal_workspace(user), user=user)


def test_an_editor_copies_a_platform_with_every_value_and_source(api, catalogue, user):
    response = api.post("/api/v1/platforms/aws-sydney/copy/")

    assert response.status_code == 201
    body = response.json()
    assert (body["slug"], body["workspace"], body["copied_from"]) == ("aws-sydney-copy", "ada", "aws-sydney")
    assert body["name"] == Platform.objects.get(slug="aws-sydney").name + " (copy)"
    original = api.get("/api/v1/platforms/aws-sydney/").json()
    assert original["workspace"] is None and original["copied_from"] is None
    assert body["facts"] == original["facts"]  # every value with its source, unchanged
    assert body["node_types"] == original["node_types"] and body["storage_tiers"] == original["storage_tiers"]
    assert api.get("/api/v1/platforms/aws-sydney-copy/").json() == body


def test_a_viewer_of_the_active_workspace_cannot_copy(catalogue, user, bob, adas_copy):
    add_member(personal_workspace(user), "bob", Role.VIEWER)
    client = APIClient()
    client.force_login(bob)
    session = client.session
    session["skyplan_workspace"] = personal_workspace(user).pk
    session.save()
    response = client.post("/api/v1/platforms/magnus/copy/", HTTP_X_CSRFTOKEN="x")
    assert response.status_code == 403 and "editor" in response.json()["detail"]
    assert Platform.objects.exclude(workspace=None).count() == 1


def test_another_workspaces_copy_is_not_found_nor_listed_nor_copied(catalogue, bob, adas_copy, client_of):
    client = client_of(bob)
    assert client.get(f"/api/v1/platforms/{adas_copy.slug}/").status_code == 404
    assert client.post(f"/api/v1/platforms/{adas_copy.slug}/copy/").status_code == 404
    listed = {p["slug"] for p in client.get("/api/v1/platforms/?limit=100").json()["results"]}
    assert adas_copy.slug not in listed and "magnus" in listed


def test_a_member_sees_the_copy_in_the_list(api, adas_copy):
    listed = {p["slug"]: p for p in api.get("/api/v1/platforms/?limit=100").json()["results"]}
    assert listed[adas_copy.slug]["workspace"] == "ada" and listed[adas_copy.slug]["copied_from"] == "magnus"
    assert listed["magnus"]["workspace"] is None


def test_an_outsider_cannot_pick_another_workspaces_copy_for_a_run_or_a_scenario(catalogue, bob, adas_copy, client_of):
    client = client_of(bob)
    refused = client.post("/api/v1/runs/", {"workload": "chiles-epoch1", "platform": adas_copy.slug}, format="json")
    assert refused.status_code == 400 and list(refused.json()) == ["platform"]
    refused = client.post("/api/v1/scenarios/", {
        "name": "x", "workload": "chiles-epoch1",
        "platforms": [{"platform": adas_copy.slug}, {"platform": "magnus"}]}, format="json")
    assert refused.status_code == 400 and list(refused.json()) == ["platforms[0].platform"]
    refused = client.post("/api/v1/benchmarks/", {"platform": adas_copy.slug, "kind": "cpu"}, format="json")
    assert refused.status_code == 400 and list(refused.json()) == ["platform"]


def test_a_member_runs_a_simulation_on_the_copy(api, adas_copy, monkeypatch):
    from apps.scenarios import services

    monkeypatch.setattr(services, "dispatch_run", lambda run: None)
    response = api.post("/api/v1/runs/", {"workload": "chiles-epoch1", "platform": adas_copy.slug}, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["platform"] == adas_copy.slug
