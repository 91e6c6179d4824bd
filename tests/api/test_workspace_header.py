"""Choosing the workspace an API request acts in: ``GET /api/v1/workspaces/`` lists the user's workspaces with
their role, and the ``X-Skyplan-Workspace: <id>`` header sends what a request creates there — with the rules of
the pages (apps/accounts/workspaces.py): not a member, 404 whether or not it exists; a viewer, 403 naming the
editor role; not an id, 400 naming the header.  Without the header, the active workspace (a token's: the personal
one; a session's: the one chosen on the site).  tests/api/test_permission_matrix.py checks every create endpoint
with the header for each role."""

from __future__ import annotations

from pathlib import Path

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from apps.accounts.models import Membership, Role, Workspace
from apps.accounts.workspaces import SESSION_KEY, personal_workspace
from apps.benchmarks.models import BenchmarkRun
from apps.platforms.models import Platform
from apps.profiles.models import ProfileImport
from apps.scenarios.models import Scenario, SimulationRun

SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "profiles" / "rand_read.skyplan.csv"
HEADER = "X-Skyplan-Workspace"
SCENARIO = {"name": "Team plan", "workload": "chiles-epoch1", "replications": 1,
            "platforms": [{"platform": "magnus"}, {"platform": "aws-sydney"}]}


@pytest.fixture(autouse=True)
def no_dispatch(monkeypatch):
    from apps.benchmarks import services as benchmarks
    from apps.profiles import services as profiles
    from apps.scenarios import services as scenarios

    monkeypatch.setattr(scenarios, "dispatch_run", lambda run: None)
    monkeypatch.setattr(profiles, "dispatch_import", lambda job: None)
    monkeypatch.setattr(benchmarks, "dispatch", lambda run: None)


@pytest.fixture
def team(user, django_user_model) -> Workspace:
    """The survey team's workspace, owned by Tess: Ada (the ``api`` client's user) edits there."""
    tess = django_user_model.objects.create_user(username="tess", password="correct horse battery")
    workspace = Workspace.objects.create(name="Survey team", slug="survey-team")
    Membership.objects.create(workspace=workspace, user=tess, role=Role.ADMIN)
    Membership.objects.create(workspace=workspace, user=user, role=Role.EDITOR)
    return workspace


@pytest.fixture
def review(user) -> Workspace:
    """A workspace where Ada only reads."""
    workspace = Workspace.objects.create(name="Review board", slug="review-board")
    Membership.objects.create(workspace=workspace, user=user, role=Role.VIEWER)
    return workspace


@pytest.fixture
def hidden(django_user_model) -> Workspace:
    """A workspace Ada is not a member of."""
    owner = django_user_model.objects.create_user(username="hal", password="correct horse battery")
    workspace = Workspace.objects.create(name="Hidden project", slug="hidden-project")
    Membership.objects.create(workspace=workspace, user=owner, role=Role.ADMIN)
    return workspace


def _in(workspace: Workspace | int | str) -> dict:
    """The header as the test client takes it."""
    value = workspace.pk if isinstance(workspace, Workspace) else workspace
    return {"HTTP_X_SKYPLAN_WORKSPACE": str(value)}


def _counts() -> list[int]:
    return [m.objects.count() for m in (Scenario, SimulationRun, BenchmarkRun, ProfileImport, Platform)]


# --- the list ----------------------------------------------------------------------------------------------------

def test_the_list_shows_the_users_workspaces_with_their_role(api, user, team, review, hidden):
    response = api.get("/api/v1/workspaces/")
    assert response.status_code == 200, response.content
    body = response.json()
    mine = personal_workspace(user)
    assert body["count"] == 3 and [w["name"] for w in body["results"]] == ["Review board", "Survey team",
                                                                          "ada's workspace"]
    assert {w["id"]: (w["slug"], w["role"], w["personal"], w["active"]) for w in body["results"]} == {
        mine.pk: ("ada", "admin", True, True),
        team.pk: ("survey-team", "editor", False, False),
        review.pk: ("review-board", "viewer", False, False),
    }
    assert "Hidden project" not in response.content.decode()

    # with the header, the workspace it names is the active one
    chosen = api.get("/api/v1/workspaces/", **_in(team)).json()["results"]
    assert [w["id"] for w in chosen if w["active"]] == [team.pk]


def test_a_new_user_lists_their_personal_workspace(api, user):
    body = api.get("/api/v1/workspaces/").json()
    assert [(w["name"], w["role"], w["personal"], w["active"]) for w in body["results"]] == [
        ("ada's workspace", "admin", True, True)]


def test_another_users_personal_workspace_is_not_personal_to_a_member(api, user, django_user_model):
    tess = django_user_model.objects.create_user(username="tess", password="correct horse battery")
    Membership.objects.create(workspace=personal_workspace(tess), user=user, role=Role.VIEWER)
    listed = {w["name"]: w for w in api.get("/api/v1/workspaces/").json()["results"]}
    assert listed["tess's workspace"]["personal"] is False and listed["tess's workspace"]["role"] == "viewer"
    assert listed["ada's workspace"]["personal"] is True


def test_the_list_needs_credentials(anonymous, db):
    response = anonymous.get("/api/v1/workspaces/")
    assert response.status_code == 401 and response["WWW-Authenticate"] == "Token"


# --- creating in the workspace the header names -------------------------------------------------------------------

def test_an_editor_creates_a_scenario_in_the_team_workspace(api, user, catalogue, team):
    response = api.post("/api/v1/scenarios/", SCENARIO, format="json", **_in(team))
    assert response.status_code == 201, response.content
    assert response.json()["workspace"] == "survey-team"
    scenario = Scenario.objects.get(pk=response.json()["id"])
    assert scenario.workspace == team and scenario.created_by == user
    # the team sees it; without the header the next one goes to Ada's personal workspace, as before
    tess = APIClient()
    tess.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=team.memberships.get(role='admin').user)}")
    assert [s["id"] for s in tess.get("/api/v1/scenarios/").json()["results"]] == [str(scenario.pk)]
    personal = api.post("/api/v1/scenarios/", SCENARIO, format="json")
    assert personal.status_code == 201 and personal.json()["workspace"] == "ada"


def test_an_editor_creates_runs_benchmarks_uploads_and_copies_in_the_team_workspace(api, catalogue, team):
    run = api.post("/api/v1/runs/", {"workload": "chiles-epoch1", "platform": "magnus"}, format="json", **_in(team))
    assert run.status_code == 201, run.content
    assert SimulationRun.objects.get(pk=run.json()["id"]).workspace == team and run.json()["workspace"] == "survey-team"

    benchmark = api.post("/api/v1/benchmarks/", {"platform": "magnus", "kind": "cpu"}, format="json", **_in(team))
    assert benchmark.status_code == 202, benchmark.content
    assert BenchmarkRun.objects.get(pk=benchmark.json()["id"]).workspace == team
    assert benchmark.json()["workspace"] == "survey-team"

    with SAMPLE.open("rb") as fh:
        upload = api.post("/api/v1/profiles/imports/", {"file": fh}, format="multipart", **_in(team))
    assert upload.status_code == 202, upload.content
    assert ProfileImport.objects.get(pk=upload.json()["id"]).workspace == team
    assert upload.json()["workspace"] == "survey-team"

    copy = api.post("/api/v1/platforms/magnus/copy/", **_in(team))
    assert copy.status_code == 201, copy.content
    assert copy.json()["workspace"] == "survey-team" and Platform.objects.get(slug=copy.json()["slug"]).workspace == team


def test_a_viewer_may_not_create_there(api, catalogue, review):
    before = _counts()
    upload = SAMPLE.open("rb")
    requests = [
        ("/api/v1/scenarios/", SCENARIO, "json"),
        ("/api/v1/runs/", {"workload": "chiles-epoch1", "platform": "magnus"}, "json"),
        ("/api/v1/benchmarks/", {"platform": "magnus", "kind": "cpu"}, "json"),
        ("/api/v1/profiles/imports/", {"file": upload}, "multipart"),
        ("/api/v1/platforms/magnus/copy/", None, "json"),
    ]
    for url, data, fmt in requests:
        response = api.post(url, data, format=fmt, **_in(review))
        assert response.status_code == 403, (url, response.status_code, response.content)
        assert "needs the editor role in workspace 'Review board'; you are viewer" in response.json()["detail"], url
    upload.close()
    assert _counts() == before


def test_a_viewer_is_refused_before_the_body_is_read(api, catalogue, review):
    """The workspace is checked first: a viewer learns that they may not create there, not what is wrong with the
    body."""
    response = api.post("/api/v1/scenarios/", {"name": ""}, format="json", **_in(review))
    assert response.status_code == 403 and "editor" in response.json()["detail"]


def test_another_workspace_is_not_found_whether_or_not_it_exists(api, catalogue, hidden):
    before = _counts()
    missing = Workspace.objects.order_by("-pk").first().pk + 1000
    for url, data, fmt in [("/api/v1/scenarios/", SCENARIO, "json"), ("/api/v1/platforms/magnus/copy/", None, "json"),
                           ("/api/v1/benchmarks/", {"platform": "magnus", "kind": "cpu"}, "json")]:
        existing = api.post(url, data, format=fmt, **_in(hidden))
        made_up = api.post(url, data, format=fmt, **_in(missing))
        assert existing.status_code == made_up.status_code == 404, (url, existing.content)
        assert existing.content == made_up.content and set(existing.json()) == {"detail"}
        assert "Hidden" not in existing.content.decode() and "hidden" not in existing.content.decode()
    assert api.get("/api/v1/workspaces/", **_in(hidden)).content == api.get("/api/v1/workspaces/", **_in(missing)).content
    assert api.get("/api/v1/workspaces/", **_in(hidden)).status_code == 404
    assert api.post("/api/v1/scenarios/", SCENARIO, format="json", **_in(0)).status_code == 404
    assert _counts() == before


@pytest.mark.parametrize("value", ["", "abc", "-1", "1.5", "12abc", "0x10", "1 2", "١٢", "9" * 19, "1" * 200,
                                   "ada", "survey-team"])
def test_a_malformed_header_is_a_400_naming_it(api, catalogue, team, value):
    before = _counts()
    for response in (api.post("/api/v1/scenarios/", SCENARIO, format="json", **_in(value)),
                     api.post("/api/v1/platforms/magnus/copy/", **_in(value)),
                     api.get("/api/v1/workspaces/", **_in(value))):
        assert response.status_code == 400, (value, response.status_code, response.content)
        assert list(response.json()) == [HEADER]
        assert "not a workspace id" in response.json()[HEADER][0]
    assert _counts() == before


def test_spaces_around_the_id_do_not_matter(api, catalogue, team):
    response = api.post("/api/v1/scenarios/", SCENARIO, format="json", **_in(f" {team.pk} "))
    assert response.status_code == 201 and response.json()["workspace"] == "survey-team"


def test_the_header_overrides_a_sessions_active_workspace(user, catalogue, team):
    """A session keeps the workspace chosen on the site; the header, when sent, wins."""
    client = APIClient()
    client.force_login(user)
    session = client.session
    session[SESSION_KEY] = team.pk
    session.save()
    assert client.post("/api/v1/scenarios/", SCENARIO, format="json").json()["workspace"] == "survey-team"
    chosen = client.post("/api/v1/scenarios/", SCENARIO, format="json", **_in(personal_workspace(user)))
    assert chosen.status_code == 201 and chosen.json()["workspace"] == "ada"
    listed = client.get("/api/v1/workspaces/").json()["results"]
    assert [w["slug"] for w in listed if w["active"]] == ["survey-team"]


def test_reads_and_reports_do_not_depend_on_the_header(api, catalogue, team):
    """The header chooses where to create; lists show every workspace of the user (each object names its own), and
    a report belongs to its scenario's workspace (requesting one for this unfinished scenario is refused on the
    scenario, not on the header)."""
    created = api.post("/api/v1/scenarios/", SCENARIO, format="json", **_in(team)).json()
    api.post("/api/v1/scenarios/", SCENARIO, format="json")
    for value in (str(team.pk), "not-an-id"):
        listed = api.get("/api/v1/scenarios/", **_in(value))
        assert listed.status_code == 200 and listed.json()["count"] == 2
        assert api.get(f"/api/v1/scenarios/{created['id']}/", **_in(value)).status_code == 200
    report = api.post("/api/v1/reports/", {"scenario": created["id"], "format": "json"}, format="json",
                      **_in("not-an-id"))
    assert report.status_code == 400 and list(report.json()) == ["scenario"], report.content
