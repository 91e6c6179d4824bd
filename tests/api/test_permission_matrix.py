"""The permission matrix of the REST API, as tests/accounts/test_workspace_permissions.py is the pages'.

Every URL name of the ``api:`` namespace is classified — workspace-owned, a list, the shared catalogue or public —
and every HTTP method its view accepts is checked, so that a new endpoint (or a new method on one) cannot slip
through.  Each workspace-owned endpoint is called, with a real token, by an anonymous client, an outsider (a member
of another workspace only), a viewer, an editor and an admin of the object's workspace:

- anonymous: 401 (JSON, ``WWW-Authenticate: Token``), nothing changed;
- outsider: 404, none of the object's content in the body, nothing changed;
- viewer: reads (200); a change is a 403 naming the editor role, nothing changed;
- editor and admin: the endpoint's documented answer (200, 201, 202).

Lists never show the outsider another workspace's objects and do show its members.  Creating goes to the workspace
the ``X-Skyplan-Workspace`` header names (an outsider's: 404, no content), else to the active workspace (a token's is
the user's personal one; a site session may choose another), and an object named in a request body follows the same
rules (another workspace's: 400 on that field).

The world is built once for the module in a transaction rolled back at the end; every case runs in its own
savepoint, so a case's changes (a cancel, a copy) do not reach the next.  Nothing is sent to a Celery worker.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from django.test import override_settings
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from url_walk import named_patterns

from apps.accounts.models import Invitation, Membership, Role
from apps.accounts.workspaces import SESSION_KEY, personal_workspace
from apps.api.pagination import BoundedLimitOffsetPagination

PASSWORD = "correct horse battery"
ROLES = ("anonymous", "outsider", "viewer", "editor", "admin")
MEMBERS = ("viewer", "editor", "admin")
RANK = {"viewer": 1, "editor": 2, "admin": 3}
SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "profiles" / "rand_read.skyplan.csv"
METHODS = ("get", "post", "put", "patch", "delete")

#: the largest page the API serves: every object of these small worlds on one page
WHOLE_PAGE = BoundedLimitOffsetPagination.max_limit

# --- the classification ------------------------------------------------------------------------------------------

#: workspace-owned endpoints: URL name -> {method: (the object, least role, the documented answer when allowed)}.
#: The world's run is queued (cancelling it cancels it); its scenario, report, benchmark and import have finished
#: (results and the download answer 200; cancelling a finished job leaves it as it is and answers 200).
OWNED = {
    "api:scenario-detail": {"get": ("scenario", "viewer", 200)},
    "api:scenario-status": {"get": ("scenario", "viewer", 200)},
    "api:scenario-results": {"get": ("scenario", "viewer", 200)},
    "api:scenario-run": {"post": ("scenario", "editor", 202)},
    "api:scenario-cancel": {"post": ("scenario", "editor", 200)},
    "api:run-detail": {"get": ("run", "viewer", 200)},
    "api:run-status": {"get": ("run", "viewer", 200)},
    "api:run-cancel": {"post": ("run", "editor", 200)},
    "api:profile-detail": {"get": ("profile", "viewer", 200)},
    "api:profile-file": {"get": ("profile", "viewer", 200)},
    "api:profile-import-detail": {"get": ("job", "viewer", 200)},
    "api:profile-import-cancel": {"post": ("job", "editor", 200)},
    "api:benchmark-detail": {"get": ("benchmark", "viewer", 200)},
    "api:benchmark-status": {"get": ("benchmark", "viewer", 200)},
    "api:benchmark-results": {"get": ("benchmark", "viewer", 200)},
    "api:benchmark-cancel": {"post": ("benchmark", "editor", 200)},
    "api:report-detail": {"get": ("report", "viewer", 200)},
    "api:report-download": {"get": ("report", "viewer", 200)},
    "api:report-cancel": {"post": ("report", "editor", 200)},
    # a workspace's copy of a platform: its members read it and copy it on into their own active workspace (a
    # token's is their personal one, where they edit), as on the platform's page
    # its editors change it; deleting it is refused while the world's benchmark run uses it (409)
    "api:platform-detail": {"get": ("platform", "viewer", 200), "put": ("platform", "editor", 200),
                            "patch": ("platform", "editor", 200), "delete": ("platform", "editor", 409)},
    "api:platform-copy": {"post": ("platform", "viewer", 201)},
    # a workspace's own workload: its members read and copy it, its editors change and delete it
    "api:workload-detail": {"get": ("workload", "viewer", 200), "put": ("workload", "editor", 200),
                            "patch": ("workload", "editor", 200), "delete": ("workload", "editor", 204)},
    "api:workload-copy": {"post": ("workload", "viewer", 201)},
    # an observed run recorded in the workspace: its members read it, its editors delete it
    "api:observation-detail": {"get": ("observation", "viewer", 200), "delete": ("observation", "editor", 204)},
    "api:calibration-detail": {"get": ("calibration", "viewer", 200)},
    "api:calibration-cancel": {"post": ("calibration", "editor", 200)},
    # inviting a user to the workspace: its admins only, as on the site (the reply is the same whether or not the
    # user exists: tests/api/test_invitations.py)
    "api:workspace-invitations": {"post": ("workspace", "admin", 202)},
}
#: lists filtered to the user's workspaces (and shared objects): URL name -> the world's objects it lists
LISTS = {
    "api:scenario-list": ("scenario",),
    "api:run-list": ("run",),
    "api:profile-list": ("profile",),
    "api:profile-import-list": ("job",),
    "api:benchmark-list": ("benchmark",),
    "api:report-list": ("report",),
    "api:platform-list": ("platform",),
    "api:workload-list": ("workload",),
    "api:workspace-list": ("workspace",),
    "api:observation-list": ("observation",),
    "api:calibration-list": ("calibration",),  # the user's workspaces (their role there: test_workspace_header.py)
}
#: the lists' POST creates: URL name -> (the documented answer, the field a request naming another workspace's
#: object is refused on, the least role in the workspace of the object the body names, or None when the new object
#: only needs the editor role in the active workspace)
CREATES = {
    "api:scenario-list": (201, "platforms[0].platform", None),
    "api:run-list": (201, "platform", None),
    "api:profile-import-list": (202, "platform", None),
    "api:benchmark-list": (202, "platform", None),
    "api:observation-list": (201, "platform", None),
    # names a workload (Alice's own, in the outsider's and members' requests) instead of a platform
    "api:calibration-list": (202, "workload", None),
    # a report belongs to its scenario's workspace: requesting one needs the editor role there
    "api:report-list": (202, "scenario", "editor"),
}
#: the shared catalogue: the same for every signed-in user (platform detail and copy on a reference platform)
SHARED = {
    "api:workload-list": {"get": 200},
    "api:workload-detail": {"get": 200},
    "api:platform-detail": {"get": 200},
    "api:platform-copy": {"post": 201},
    "api:platform-list": {"get": 200},
    "api:workload-copy": {"post": 201},
}
#: creating in the active workspace (a token's is the user's personal one, where they are admin) from a body that
#: names no other object: URL name -> the documented answer
OWN_CREATES = {"api:workload-list": 201, "api:platform-list": 201}
#: the user's own invitations: URL name -> {method: the invitee's answer}.  Erin, invited to Alice's workspace, sees
#: and answers hers; anyone else (Alice who invited her included) gets a 404 and does not see it listed
INVITEE = {
    "api:invitation-list": {"get": 200},
    "api:invitation-accept": {"post": 200},
    "api:invitation-decline": {"post": 200},
}
#: public: no credentials needed (URL name -> methods)
PUBLIC = {"api:token": {"post"}, "api:schema": {"get"}, "api:docs": {"get"}, "api:redoc": {"get"}}


def _api_views() -> dict[str, set[str]]:
    """Every URL name of the ``api:`` namespace -> the HTTP methods its view answers (beyond HEAD and OPTIONS)."""
    out = {}
    for name, pattern in named_patterns():
        if name.startswith("api:"):
            view = pattern.callback.cls
            out[name] = {m for m in METHODS if hasattr(view, m) and m in view.http_method_names}
    return out


def _checked() -> dict[str, set[str]]:
    checked: dict[str, set[str]] = {}
    for table in (OWNED, SHARED, INVITEE):
        for name, methods in table.items():
            checked.setdefault(name, set()).update(methods)
    for name in LISTS:
        checked.setdefault(name, set()).add("get")
    for name in (*CREATES, *OWN_CREATES):
        checked.setdefault(name, set()).add("post")
    for name, methods in PUBLIC.items():
        checked.setdefault(name, set()).update(methods)
    return checked


def test_every_api_endpoint_and_method_is_classified():
    views = _api_views()
    checked = _checked()
    assert views, "no api: URL found"
    unclassified = sorted(f"{m.upper()} {n}" for n, methods in views.items() for m in methods - checked.get(n, set()))
    assert not unclassified, f"classify these endpoints in the API permission matrix: {unclassified}"
    stale = sorted(f"{m.upper()} {n}" for n, methods in checked.items() for m in methods - views.get(n, set()))
    assert not stale, f"the matrix names endpoints that no longer exist: {stale}"


# --- the world ---------------------------------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def _isolated_media():
    """The module's world keeps its files (the report, the profile) in the module's own MEDIA_ROOT (set by
    ``world``); the per-test one of tests/conftest.py would hide them."""


@pytest.fixture(autouse=True)
def _no_dispatch(monkeypatch):
    """Creating a run, an import or a benchmark over the API sends it to a worker: not here (scenario runs and
    reports are sent on commit, which never comes inside the test's transaction)."""
    from apps.benchmarks import services as benchmarks
    from apps.calibration import fitting
    from apps.profiles import services as profiles
    from apps.scenarios import services as scenarios

    monkeypatch.setattr(scenarios, "dispatch_run", lambda run: None)
    monkeypatch.setattr(profiles, "dispatch_import", lambda job: None)
    monkeypatch.setattr(benchmarks, "dispatch", lambda run: None)
    monkeypatch.setattr(fitting, "dispatch_calibration", lambda job: None)


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, tmp_path_factory):
    """Alice's workspace holds a finished scenario (one replication per platform, run here) with its report, a
    queued run, a finished benchmark, a profile import and its profile and a copy of Magnus; Carol views it, Dave
    edits it, Bob is only in his own workspace.  Built once, in a transaction rolled back after the module."""
    from django.db import transaction

    with override_settings(MEDIA_ROOT=tmp_path_factory.mktemp("media")), django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            yield _build()
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


def _build() -> dict:
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from apps.benchmarks.models import BenchmarkRun
    from apps.benchmarks.services import create_benchmark
    from apps.calibration.models import CalibrationJob
    from apps.calibration.services import record_observation
    from apps.platforms.models import Platform
    from apps.platforms.services import copy_platform
    from apps.profiles.services import import_file
    from apps.reports.services import generate_report, request_report
    from apps.scenarios.models import Scenario
    from apps.scenarios.services import create_run, create_scenario, execute_replication, run_scenario
    from apps.workloads.catalogue import load_catalogue
    from apps.workloads.models import Workload
    from apps.workloads.services import copy_workload

    load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
    users = {name: get_user_model().objects.create_user(username=name, password=PASSWORD)
             for name in ("alice", "bob", "carol", "dave", "erin")}
    workspace = personal_workspace(users["alice"])
    personal_workspace(users["bob"])
    Membership.objects.create(workspace=workspace, user=users["carol"], role=Role.VIEWER)
    Membership.objects.create(workspace=workspace, user=users["dave"], role=Role.EDITOR)
    invitation = Invitation.objects.create(workspace=workspace, user=users["erin"], role=Role.EDITOR,
                                           invited_by=users["alice"])
    alice = users["alice"]
    magnus, aws = Platform.objects.get(slug="magnus"), Platform.objects.get(slug="aws-sydney")
    workload = Workload.objects.get(slug="chiles-epoch1")

    scenario = create_scenario(name="Confidential survey plan of Alice", workload=workload,
                               entries=[(magnus, {}, {}), (aws, {}, {})], replications=1, user=alice)
    run_scenario(scenario, user=alice, dispatch=False)
    for scenario_run in Scenario.objects.get(pk=scenario.pk).runs():
        execute_replication(str(scenario_run.pk), 0)
    report = request_report(scenario, "json", user=alice)
    generate_report(report.pk)
    report.refresh_from_db()
    assert report.status == "succeeded", report.error

    run = create_run(platform=magnus, workload=workload, user=alice, label="Confidential run of Alice")
    platform = copy_platform(magnus, workspace, user=alice)
    platform.name = "Confidential Magnus of Alice"
    platform.save(update_fields=["name"])
    own_workload = copy_workload(Workload.objects.get(slug="sdp-predict-p3"), workspace, user=alice)
    own_workload.name = "Confidential pipeline of Alice"
    own_workload.save(update_fields=["name"])
    benchmark = create_benchmark(platform=platform, kind="cpu", user=alice)
    BenchmarkRun.objects.filter(pk=benchmark.pk).update(
        status="succeeded", progress=1.0, started_at=timezone.now(), finished_at=timezone.now(),
        host={"hostname": "confidential-host-of-alice"}, result={"seconds": 1.0, "note": "confidential result"})
    benchmark.refresh_from_db()
    job = import_file(SAMPLE, user=alice, workspace=workspace, filename="confidential-alice.skyplan.csv")
    assert job.status == "succeeded", job.error
    profile = job.profile
    profile.name = "Confidential profile of Alice"
    profile.save(update_fields=["name"])
    measured = {"kind": "measurement", "host": "magnus", "date": "2026-11-01"}
    observation = record_observation(workspace, label="Confidential observed run of Alice",
                                     workload=own_workload.slug, platform="magnus", quantity="makespan",
                                     value_s=3600.0, source=measured, user=alice)
    record_observation(workspace, label="Confidential reference run of Alice", workload="sdp-predict-p3",
                       platform="magnus", quantity="makespan", value_s=3600.0, source=measured, user=alice)
    calibration = CalibrationJob.objects.create(
        workspace=workspace, workload=own_workload, created_by=alice, status="succeeded", progress=1.0,
        demands=[{"name": "compute.cpu_seconds", "lower": 1.0, "upper": 1e4}], finished_at=timezone.now())

    as_role = {"outsider": users["bob"], "viewer": users["carol"], "editor": users["dave"], "admin": alice,
               "invitee": users["erin"]}
    return {
        "users": as_role, "tokens": {role: Token.objects.create(user=u).key for role, u in as_role.items()},
        "workspace": workspace, "scenario": scenario, "run": run, "report": report, "benchmark": benchmark,
        "job": job, "profile": profile, "platform": platform, "workload": own_workload, "observation": observation,
        "calibration": calibration, "invitation": invitation,
        # what an outsider must never see: every name and id of Alice's objects
        "secrets": [workspace.name, scenario.name, run.label, platform.name, platform.slug, profile.name, job.filename,
                    own_workload.name, own_workload.slug, observation.label,
                    "confidential-host-of-alice", "confidential result", str(scenario.pk), str(run.pk),
                    str(report.pk), str(benchmark.pk), str(job.pk), *(str(r.pk) for r in scenario.runs())],
    }


def _personal(world, role: str):
    """The user's personal workspace as the database has it now (a case may have created it; the module's user
    objects would remember one of a rolled-back case)."""
    from apps.accounts.models import Workspace

    return Workspace.objects.get(personal_of=world["users"][role])


def _client(world, role: str) -> APIClient:
    client = APIClient()
    if role != "anonymous":
        client.credentials(HTTP_AUTHORIZATION=f"Token {world['tokens'][role]}")
    return client


def _state(world) -> dict:
    """What a refused request must leave as it was: how many objects of each kind, and the world's jobs' states."""
    from apps.benchmarks.models import BenchmarkRun
    from apps.calibration.models import CalibrationJob, Observation
    from apps.platforms.models import Platform
    from apps.profiles.models import ProfileImport
    from apps.reports.models import Report
    from apps.scenarios.models import Scenario, SimulationRun
    from apps.workloads.models import Workload

    return {
        "counts": [m.objects.count() for m in (Scenario, SimulationRun, Report, BenchmarkRun, ProfileImport, Platform,
                                               Workload, Observation, CalibrationJob)],
        "workload": list(Workload.objects.filter(pk=world["workload"].pk).values_list("name", "description")),
        "platform": list(Platform.objects.filter(pk=world["platform"].pk).values_list("name", "description")),
        "runs": sorted(SimulationRun.objects.values_list("id", "status")),
        "jobs": [type(world[k]).objects.filter(pk=world[k].pk).values_list("status").get()
                 for k in ("report", "benchmark", "job", "calibration")],
        "cancel_requested": type(world["job"]).objects.filter(pk=world["job"].pk)
        .values_list("cancel_requested", flat=True).get(),
        # Alice's workspace's members (a request may create its caller's personal workspace, on first use)
        "members": sorted(world["workspace"].memberships.values_list("user_id", "role")),
        "invitations": sorted(Invitation.objects.values_list("workspace_id", "user_id", "role")),
    }


#: the URL keyword of each kind of object
KWARGS = {"scenario": "scenario_id", "run": "run_id", "benchmark": "run_id", "report": "report_id",
          "profile": "profile_id", "job": "job_id", "observation": "observation_id",
          "calibration": "calibration_id", "workspace": "workspace_id", "invitation": "invitation_id"}


def _url(name: str, world, which: str) -> str:
    if which in ("platform", "workload"):
        return reverse(name, kwargs={"slug": world[which].slug})
    return reverse(name, kwargs={KWARGS[which]: world[which].pk})


def _call(client, method: str, url: str, data=None, fmt="json"):
    if method == "get":
        return client.get(url)
    if method in ("put", "patch", "delete"):
        return getattr(client, method)(url, data, format=fmt)
    return client.post(url, data, format=fmt) if data is not None else client.post(url)


def _body(world, name: str, method: str):
    """A valid body for a change of the world's workload or platform: a new description (all of it for a PUT)."""
    from apps.workloads.files import workload_entry
    from apps.workloads.platform_entries import platform_entry

    if name == "api:workspace-invitations":
        return {"username": world["users"]["outsider"].username, "role": "viewer"}
    if method == "patch":
        return {"description": "changed"}
    if method == "put":
        entry = platform_entry(world["platform"]) if name == "api:platform-detail" else workload_entry(
            world["workload"])
        return {**entry, "description": "changed"}
    return None


def _refused_with_401(response):
    assert response.status_code == 401, response.status_code
    assert response["Content-Type"] == "application/json"
    assert response["WWW-Authenticate"] == "Token"


def _no_secret(world, response):
    body = response.content.decode()
    leaked = [s for s in world["secrets"] if s in body]
    assert not leaked, f"the body reveals {leaked}: {body[:500]}"


# --- workspace-owned endpoints -----------------------------------------------------------------------------------

OWNED_CASES = [(name, method, role) for name in sorted(OWNED) for method in sorted(OWNED[name]) for role in ROLES]


def _expected(role: str, need: str, allowed: int) -> int:
    if role == "anonymous":
        return 401
    if role == "outsider":
        return 404
    return allowed if RANK[role] >= RANK[need] else 403


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "method", "role"), OWNED_CASES, ids=[" ".join(c) for c in OWNED_CASES])
def test_the_matrix_of_roles_for_each_workspace_owned_endpoint(world, name, method, role):
    which, need, allowed = OWNED[name][method]
    url = _url(name, world, which)
    before = _state(world)
    response = _call(_client(world, role), method, url, _body(world, name, method))
    expected = _expected(role, need, allowed)

    assert response.status_code == expected, (role, response.status_code, response.content[:300])
    if expected == 401:
        _refused_with_401(response)
    elif expected == 404:
        _no_secret(world, response)
        assert set(response.json()) == {"detail"}
    elif expected == 403:
        assert f"needs the {need} role" in response.json()["detail"], response.json()
    if expected != allowed or method == "get":
        assert _state(world) == before, "a refused request (or a read) changed something"
    else:
        _check_allowed_change(world, name, role, response, method)


def _check_allowed_change(world, name, role, response, method="post"):
    """An editor's or admin's change did what the endpoint says (and a copy went to their own workspace)."""
    from apps.platforms.models import Platform
    from apps.scenarios.models import SimulationRun

    body = response.json() if response.content else None
    if name == "api:run-cancel":
        assert body["status"] == "cancelled"
        assert SimulationRun.objects.get(pk=world["run"].pk).status == "cancelled"
    elif name == "api:scenario-run":  # new runs, queued (sent to the workers on commit)
        from apps.scenarios.models import Scenario

        assert {p["status"] for p in body["platforms"]} == {"queued"}, body
        assert {r.status for r in Scenario.objects.get(pk=world["scenario"].pk).runs()} == {"queued"}
    elif name == "api:platform-copy":
        copy = Platform.objects.get(slug=body["slug"])
        assert copy.copied_from_id == world["platform"].pk
        assert copy.workspace == _personal(world, role), "a copy goes to the active workspace"
    elif name == "api:workload-copy":
        from apps.workloads.models import Workload

        copy = Workload.objects.get(slug=body["slug"])
        assert copy.copied_from_id == world["workload"].pk
        assert copy.workspace == _personal(world, role), "a copy goes to the active workspace"
    elif name == "api:platform-detail":
        left = Platform.objects.get(pk=world["platform"].pk)  # a delete is refused: a benchmark run uses it
        assert left.description == ("changed" if method in ("put", "patch") else world["platform"].description)
    elif name == "api:workload-detail":
        from apps.workloads.models import Workload

        left = Workload.objects.filter(pk=world["workload"].pk)
        assert (not left.exists()) if method == "delete" else left.get().description == "changed"
    elif name == "api:observation-detail":
        from apps.calibration.models import Observation

        assert not Observation.objects.filter(pk=world["observation"].pk).exists()
    elif name == "api:workspace-invitations":  # Bob is invited, not a member until he accepts
        assert body["role"] == "viewer" and body["workspace"]["id"] == world["workspace"].pk
        invitation = Invitation.objects.get(workspace=world["workspace"], user=world["users"]["outsider"])
        assert (invitation.role, invitation.invited_by) == ("viewer", world["users"][role])
        assert world["workspace"].role_of(world["users"]["outsider"]) is None
    elif name in ("api:report-cancel", "api:benchmark-cancel", "api:profile-import-cancel", "api:calibration-cancel"):
        assert body["status"] == "succeeded", "a finished job is left as it is"


# --- the user's own invitations ----------------------------------------------------------------------------------

INVITEE_CASES = [(name, method, role) for name in sorted(INVITEE) for method in sorted(INVITEE[name])
                 for role in (*ROLES, "invitee")]


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "method", "role"), INVITEE_CASES, ids=[" ".join(c) for c in INVITEE_CASES])
def test_only_the_invitee_sees_and_answers_an_invitation(world, name, method, role):
    """Erin alone lists, accepts (becoming an editor of Alice's workspace) or declines (staying out) her invitation;
    everyone else, the members of the workspace and Alice who invited her included, gets a 404 without its content
    and an empty list, and nothing changes."""
    invitation, erin = world["invitation"], world["users"]["invitee"]
    kwargs = {} if name == "api:invitation-list" else {"invitation_id": invitation.pk}
    before = _state(world)
    response = _call(_client(world, role), method, reverse(name, kwargs=kwargs))
    if role == "anonymous":
        _refused_with_401(response)
    elif role != "invitee" and name == "api:invitation-list":
        assert response.status_code == 200 and response.json()["count"] == 0, (role, response.content[:300])
    elif role != "invitee":
        assert response.status_code == 404 and response.json() == {"detail": "no such invitation"}, role
        if role == "outsider":
            _no_secret(world, response)
    else:
        assert response.status_code == INVITEE[name][method], (response.status_code, response.content[:300])
        body = response.json()
        if name == "api:invitation-list":
            assert [(i["id"], i["role"], i["invited_by"], i["workspace"]["id"]) for i in body["results"]] == [
                (invitation.pk, "editor", "alice", world["workspace"].pk)]
        else:
            accepted = name == "api:invitation-accept"
            assert body["member"] is accepted and not Invitation.objects.filter(pk=invitation.pk).exists()
            assert world["workspace"].role_of(erin) == (Role.EDITOR if accepted else None)
            return
    assert _state(world) == before, "a refused request (or a read) changed something"


# --- the shared catalogue ----------------------------------------------------------------------------------------

SHARED_OBJECTS = {"api:workload-detail": {"slug": "chiles-epoch1"}, "api:platform-detail": {"slug": "magnus"},
                  "api:platform-copy": {"slug": "magnus"}, "api:workload-copy": {"slug": "chiles-epoch1"}}
SHARED_CASES = [(name, method, role) for name in sorted(SHARED) for method in sorted(SHARED[name]) for role in ROLES]


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "method", "role"), SHARED_CASES, ids=[" ".join(c) for c in SHARED_CASES])
def test_the_shared_catalogue_is_the_same_for_every_signed_in_user(world, name, method, role):
    from apps.platforms.models import Platform

    response = _call(_client(world, role), method, reverse(name, kwargs=SHARED_OBJECTS.get(name)))
    if role == "anonymous":
        _refused_with_401(response)
        return
    assert response.status_code == SHARED[name][method], (role, response.status_code, response.content[:300])
    if name in ("api:platform-copy", "api:workload-copy"):  # a token's active workspace: the personal one
        from apps.workloads.models import Workload

        model = Platform if name == "api:platform-copy" else Workload
        copy = model.objects.get(slug=response.json()["slug"])
        assert copy.workspace == _personal(world, role) and copy.copied_from.slug == SHARED_OBJECTS[name]["slug"]


OWN_CREATE_CASES = [(name, role) for name in sorted(OWN_CREATES) for role in ROLES]


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "role"), OWN_CREATE_CASES, ids=[" ".join(c) for c in OWN_CREATE_CASES])
def test_creating_from_a_body_that_names_nothing_goes_to_the_users_own_workspace(world, name, role):
    from apps.platforms.models import Platform
    from apps.workloads.files import workload_entry
    from apps.workloads.models import Workload
    from apps.workloads.platform_entries import platform_entry

    if name == "api:platform-list":
        model, body = Platform, {**platform_entry(world["platform"]), "name": "A new cluster", "slug": "a-new-cluster"}
    else:
        model, body = Workload, {**workload_entry(world["workload"]), "name": "A new pipeline", "slug": "a-new-pipeline"}
    response = _client(world, role).post(reverse(name), body, format="json")
    if role == "anonymous":
        _refused_with_401(response)
        return
    assert response.status_code == OWN_CREATES[name], (role, response.status_code, response.content[:300])
    _no_secret(world, response)
    assert model.objects.get(slug=response.json()["slug"]).workspace == _personal(world, role)


# --- lists -------------------------------------------------------------------------------------------------------

LIST_CASES = [(name, role) for name in sorted(LISTS) for role in ROLES]


def _ids(world, which) -> str:
    obj = world[which]
    return obj.slug if which in ("platform", "workspace", "workload") else str(obj.pk)


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "role"), LIST_CASES, ids=[" ".join(c) for c in LIST_CASES])
def test_lists_show_a_workspaces_objects_to_its_members_only(world, name, role):
    response = _client(world, role).get(reverse(name), {"limit": WHOLE_PAGE})
    if role == "anonymous":
        _refused_with_401(response)
        return
    assert response.status_code == 200, (role, response.status_code)
    body = response.json()
    listed = {str(item.get("slug") or item["id"]) for item in body["results"]}
    assert body["count"] == len(body["results"])
    if role == "outsider":
        _no_secret(world, response)
    else:
        assert {_ids(world, which) for which in LISTS[name]} <= listed, (role, listed)


# --- creating: the active workspace and the objects a body names -------------------------------------------------

def _create_request(world, name: str, platform: str) -> tuple[dict, str]:
    """A valid minimal body for the list's POST naming ``platform`` (Alice's report request names her scenario)."""
    if name == "api:scenario-list":
        return {"name": "A new plan", "workload": "chiles-epoch1", "replications": 1,
                "platforms": [{"platform": platform}, {"platform": "aws-sydney"}]}, "json"
    if name == "api:run-list":
        return {"workload": "chiles-epoch1", "platform": platform, "label": "a new run"}, "json"
    if name == "api:profile-import-list":
        return {"file": SAMPLE.open("rb"), "platform": platform}, "multipart"
    if name == "api:benchmark-list":
        return {"platform": platform, "kind": "cpu"}, "json"
    if name == "api:report-list":
        return {"scenario": str(world["scenario"].pk), "format": "json"}, "json"
    if name == "api:calibration-list":  # Alice's workload where her platform is named; the reference one for magnus
        slug = {world["platform"].slug: world["workload"].slug, "magnus": "sdp-predict-p3"}.get(platform, platform)
        return {"workload": slug, "demands": [{"name": "compute.cpu_seconds", "lower": 1, "upper": 10000}]}, "json"
    if name == "api:observation-list":
        return {"label": "a new observed run", "workload": "chiles-epoch1", "platform": platform,
                "quantity": "makespan", "value": "7 min", "source": {"kind": "assumption", "reason": "a test"}}, "json"
    raise AssertionError(name)


def _created(name: str, body: dict):
    from apps.benchmarks.models import BenchmarkRun
    from apps.calibration.models import CalibrationJob, Observation
    from apps.profiles.models import ProfileImport
    from apps.reports.models import Report
    from apps.scenarios.models import Scenario, SimulationRun

    model = {"api:observation-list": Observation, "api:calibration-list": CalibrationJob, "api:scenario-list": Scenario, "api:run-list": SimulationRun, "api:profile-import-list": ProfileImport,
             "api:benchmark-list": BenchmarkRun, "api:report-list": Report}[name]
    return model.objects.get(pk=body["id"])


CREATE_CASES = [(name, role) for name in sorted(CREATES) for role in ROLES]


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "role"), CREATE_CASES, ids=[" ".join(c) for c in CREATE_CASES])
def test_creating_with_a_token_names_only_the_users_objects(world, name, role):
    """With a token the active workspace is the user's personal one: the new object goes there.  The body names
    Alice's copy of Magnus (or, for a report, her scenario): an outsider is refused on that field, as if it did not
    exist; her workspace's other members are refused on that field too, told to copy it into their own (a workspace's
    platform is used only there), and Alice may pick it (a report needs the editor role in the scenario's
    workspace)."""
    allowed, field, need = CREATES[name]
    data, fmt = _create_request(world, name, world["platform"].slug)
    before = _state(world)
    response = _client(world, role).post(reverse(name), data, format=fmt)
    if role == "anonymous":
        _refused_with_401(response)
    elif role == "outsider":
        assert response.status_code == 400, (response.status_code, response.content[:300])
        assert list(response.json()) == [field]
        # the very answer a made-up name gets: the body echoes what was sent, nothing more
        named = (str(world["scenario"].pk) if name == "api:report-list"
                 else world["workload"].slug if name == "api:calibration-list" else world["platform"].slug)
        made_up = str(uuid.uuid4()) if name == "api:report-list" else "no-such-platform"
        data, fmt = _create_request(world, name, "no-such-platform")
        if name == "api:report-list":
            data["scenario"] = made_up
        unknown = _client(world, role).post(reverse(name), data, format=fmt)
        assert response.content.decode().replace(named, made_up) == unknown.content.decode()
    elif need and RANK[role] < RANK[need]:
        assert response.status_code == 403, (response.status_code, response.content[:300])
        assert f"needs the {need} role" in response.json()["detail"]
    elif name in ("api:run-list", "api:scenario-list", "api:observation-list", "api:calibration-list") and _personal(world, role) != world["platform"].workspace:
        assert response.status_code == 400, (role, response.status_code, response.content[:300])
        assert list(response.json()) == [field]
        assert "belongs to another workspace: copy it into this one" in str(response.json()[field])
    else:
        assert response.status_code == allowed, (role, response.status_code, response.content[:300])
        obj = _created(name, response.json())
        if name == "api:report-list":
            assert obj.scenario_id == world["scenario"].pk
        else:
            assert obj.workspace == _personal(world, role), "not in the active workspace"
            assert obj.created_by == world["users"][role]
        return
    assert _state(world) == before


ACTIVE_CASES = [(name, role, how) for name in sorted({*CREATES, "api:platform-copy"} - {"api:report-list"})
                for role in ROLES[1:] for how in ("session", "header")]


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "role", "how"), ACTIVE_CASES, ids=[" ".join(c) for c in ACTIVE_CASES])
def test_creating_in_the_chosen_workspace_needs_the_editor_role_there(world, name, role, how):
    """Alice's workspace chosen as the one to create in — signed in on the site with it as the active one (a
    session), or with a token naming it in the X-Skyplan-Workspace header: a viewer may not create there (403 naming
    the role), its editors and admins may.  An outsider's stale session choice of it is ignored (their personal
    workspace is used); an outsider's header naming it is a 404 without its content.  The body names only the
    reference catalogue."""
    if how == "session":
        client = APIClient()
        client.force_login(world["users"][role])
        session = client.session
        session[SESSION_KEY] = world["workspace"].pk
        session.save()
    else:
        client = _client(world, role)
        client.credentials(HTTP_AUTHORIZATION=f"Token {world['tokens'][role]}",
                           HTTP_X_SKYPLAN_WORKSPACE=str(world["workspace"].pk))
    if name == "api:platform-copy":
        url, data, fmt = reverse(name, kwargs={"slug": "magnus"}), None, "json"
    else:
        url = reverse(name)
        data, fmt = _create_request(world, name, "magnus")
    before = _state(world)
    response = client.post(url, data, format=fmt)
    if role == "outsider" and how == "header":
        assert response.status_code == 404, (response.status_code, response.content[:300])
        assert set(response.json()) == {"detail"}
        _no_secret(world, response)
        assert _state(world) == before
        return
    if role == "viewer":
        assert response.status_code == 403, (response.status_code, response.content[:300])
        assert "needs the editor role" in response.json()["detail"]
        assert _state(world) == before
        return
    if name == "api:calibration-list" and role == "outsider":  # their own workspace has no observed runs to fit
        assert response.status_code == 400 and "marked for fitting" in response.json()["workload"][0]
        assert _state(world) == before
        return
    allowed = 201 if name == "api:platform-copy" else CREATES[name][0]
    assert response.status_code == allowed, (role, response.status_code, response.content[:300])
    if name == "api:platform-copy":
        from apps.platforms.models import Platform

        obj = Platform.objects.get(slug=response.json()["slug"])
    else:
        obj = _created(name, response.json())
    expected = _personal(world, role) if role == "outsider" else world["workspace"]
    assert obj.workspace == expected


# --- public endpoints --------------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_the_token_endpoint_needs_only_a_user_name_and_password(world):
    client = APIClient()
    response = client.post(reverse("api:token"), {"username": "alice", "password": PASSWORD}, format="json")
    assert response.status_code == 200 and response.json() == {"token": world["tokens"]["admin"]}
    # a stale or malformed Authorization header does not stop a new login
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    response = client.post(reverse("api:token"), {"username": "alice", "password": PASSWORD}, format="json")
    assert response.status_code == 200
    response = APIClient().post(reverse("api:token"), {"username": "alice", "password": "wrong"}, format="json")
    assert response.status_code == 400 and "token" not in response.json()
    assert APIClient().get(reverse("api:token")).status_code == 405


PUBLIC_CASES = [(name, who) for name in ("api:docs", "api:redoc", "api:schema") for who in (*ROLES, "bad token")]


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "who"), PUBLIC_CASES, ids=[" ".join(c) for c in PUBLIC_CASES])
def test_the_schema_and_its_docs_are_public(world, name, who):
    """Anyone reads them, signed in or not, and they hold no workspace's data.  A request that does send an
    unknown token is refused (401), as everywhere in the API but the token endpoint: these views authenticate the
    credentials they are given."""
    if who == "bad token":
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
        assert client.get(reverse(name)).status_code == 401
        return
    response = _client(world, who).get(reverse(name))
    assert response.status_code == 200, (who, response.status_code)
    _no_secret(world, response)


@pytest.mark.django_db
def test_a_copy_of_another_workspaces_copy_does_not_name_its_origin(world):
    """Carol (a viewer of Alice's workspace) copies Alice's copy into her own workspace; Bob, a member of Carol's
    workspace only, sees Carol's copy but not where it came from (as the platform pages do)."""
    copy = _client(world, "viewer").post(_url("api:platform-copy", world, "platform"))
    assert copy.status_code == 201 and copy.json()["copied_from"] == world["platform"].slug
    Membership.objects.create(workspace=_personal(world, "viewer"), user=world["users"]["outsider"], role=Role.VIEWER)
    bob = _client(world, "outsider")
    detail = bob.get(reverse("api:platform-detail", kwargs={"slug": copy.json()["slug"]}))
    assert detail.status_code == 200 and detail.json()["copied_from"] is None
    listed = {p["slug"]: p for p in bob.get(reverse("api:platform-list"), {"limit": WHOLE_PAGE}).json()["results"]}
    assert listed[copy.json()["slug"]]["copied_from"] is None and world["platform"].slug not in listed
