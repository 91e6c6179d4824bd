"""The permission matrix: every URL of the project is classified, and every workspace-owned page is checked for
an anonymous visitor, an outsider (a member of another workspace), a viewer, an editor and an admin.

An outsider gets 404 for another workspace's object (never its content); a viewer reads but may not change;
an editor may; anonymous visitors are sent to the login page.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse
from django.utils.html import escape
from url_walk import named_patterns

from apps.accounts.models import Membership, Role
from apps.accounts.workspaces import personal_workspace
from apps.benchmarks.services import create_benchmark
from apps.calibration.models import CalibrationJob
from apps.platforms.models import Platform
from apps.platforms.services import copy_platform
from apps.profiles.models import Calibration
from apps.profiles.services import import_file
from apps.reports.models import Report
from apps.scenarios.services import create_demo_scenario, create_run
from apps.scoring.forms import DEMO_SPACE
from apps.scoring.services import create_search
from apps.workloads.models import Workload, WorkloadStage
from apps.workloads.services import copy_workload

PASSWORD = "correct horse battery"
ROLES = ("outsider", "viewer", "editor", "admin")
#: changes to the shared reference catalogue: staff only, whatever the workspace role
MAINTAINER = "maintainer"
SAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "profiles"


@pytest.fixture
def world(db, catalogue, django_user_model):
    """Alice's workspace holds a scenario, a run, a report and a search; Carol views it, Dave edits it, Bob is
    only in his own workspace."""
    users = {name: django_user_model.objects.create_user(username=name, password=PASSWORD)
             for name in ("alice", "bob", "carol", "dave")}
    workspace = personal_workspace(users["alice"])
    personal_workspace(users["bob"])
    Membership.objects.create(workspace=workspace, user=users["carol"], role=Role.VIEWER)
    Membership.objects.create(workspace=workspace, user=users["dave"], role=Role.EDITOR)
    scenario = create_demo_scenario(users["alice"])
    scenario.name = "Confidential survey plan of Alice"
    scenario.save(update_fields=["name"])
    run = create_run(platform=Platform.objects.get(slug="magnus"), workload=Workload.objects.get(slug="chiles-epoch1"),
                     user=users["alice"])
    report = Report.objects.create(scenario=scenario, format="json", created_by=users["alice"])
    search = create_search(platform=Platform.objects.get(slug="aws-sydney"),
                           workload=Workload.objects.get(slug="chiles-epoch1"), space=DEMO_SPACE, user=users["alice"])
    job = import_file(SAMPLES / "rand_read.strace", user=users["alice"], workspace=workspace)
    calibration = Calibration.objects.create(
        stage=WorkloadStage.objects.get(workload__slug="chiles-epoch1", name="split"),
        platform=Platform.objects.get(slug="magnus"), node_type="x", storage_tier="", demands={"overhead": 1.0},
        measured_s=10.0, method="a test calibration", workspace=workspace)
    benchmark = create_benchmark(platform=Platform.objects.get(slug="magnus"), kind="cpu", user=users["alice"])
    platform = copy_platform(Platform.objects.get(slug="magnus"), workspace, user=users["alice"])
    platform.name = "Confidential Magnus of Alice"
    platform.save(update_fields=["name"])
    workload = copy_workload(Workload.objects.get(slug="sdp-predict-p3"), workspace, user=users["alice"])
    workload.name = "Confidential pipeline of Alice"
    workload.save(update_fields=["name"])
    calibration_job = CalibrationJob.objects.create(workspace=workspace, workload=workload, created_by=users["alice"],
                                                    demands=[{"name": "compute.cpu_seconds", "lower": 1, "upper": 2}])
    as_role = {"outsider": users["bob"], "viewer": users["carol"], "editor": users["dave"], "admin": users["alice"]}
    return {"calibration_job": calibration_job, "users": as_role, "workspace": workspace, "scenario": scenario, "run": run, "report": report,
            "search": search, "job": job, "profile": job.profile, "calibration": calibration, "benchmark": benchmark,
            "platform": platform, "workload": workload}


#: URL name -> (method, which object's id, least role, POST data); every workspace-owned URL of the project
OWNED = {
    "scenarios:run": ("get", "run", Role.VIEWER, None),
    "scenarios:run_status": ("get", "run", Role.VIEWER, None),
    "scenarios:run_cancel": ("post", "run", Role.EDITOR, {}),
    "scenarios:scenario": ("get", "scenario", Role.VIEWER, None),
    "scenarios:scenario_status": ("get", "scenario", Role.VIEWER, None),
    "scenarios:recommendation": ("get", "scenario", Role.VIEWER, None),
    "scenarios:scenario_run": ("post", "scenario", Role.EDITOR, {}),
    "scenarios:scenario_cancel": ("post", "scenario", Role.EDITOR, {}),
    "scenarios:scenario_what_if": ("post", "scenario", Role.EDITOR, {"kind": "queue", "target": "magnus",
                                                                     "factor": "0.5"}),
    "reports:request": ("post", "scenario", Role.EDITOR, {"format": "json"}),
    "reports:detail": ("get", "report", Role.VIEWER, None),
    "reports:status": ("get", "report", Role.VIEWER, None),
    "reports:cancel": ("post", "report", Role.EDITOR, {}),
    "reports:download": ("get", "report", Role.VIEWER, None),
    "scoring:search": ("get", "search", Role.VIEWER, None),
    "scoring:search_status": ("get", "search", Role.VIEWER, None),
    "scoring:search_cancel": ("post", "search", Role.EDITOR, {}),
    "profiles:detail": ("get", "profile", Role.VIEWER, None),
    "profiles:file": ("get", "profile", Role.VIEWER, None),
    "profiles:calibrate": ("post", "profile", Role.EDITOR, {}),
    "profiles:measure_tier": ("post", "profile", MAINTAINER, {}),
    "profiles:import": ("get", "job", Role.VIEWER, None),
    "profiles:import_status": ("get", "job", Role.VIEWER, None),
    "profiles:import_cancel": ("post", "job", Role.EDITOR, {}),
    "profiles:calibration": ("get", "calibration", Role.VIEWER, None),
    "profiles:calibration_apply": ("post", "calibration", MAINTAINER, {}),
    "benchmarks:run": ("get", "benchmark", Role.VIEWER, None),
    "benchmarks:run_status": ("get", "benchmark", Role.VIEWER, None),
    "benchmarks:run_cancel": ("post", "benchmark", Role.EDITOR, {}),
    "benchmarks:run_apply": ("post", "benchmark", MAINTAINER, {}),
    # members who read the run make a platform from its host in their own active workspace (where they edit)
    "benchmarks:run_new_platform": ("post", "benchmark", Role.VIEWER, {}),
    # a workspace's copy of a platform: members read it and copy it on (into their own active workspace, where they
    # edit); its editors change and delete it (deleting needs a confirmation the matrix does not send)
    "platforms:detail": ("get", "platform", Role.VIEWER, None),
    "platforms:copy": ("post", "platform", Role.VIEWER, {}),
    "platforms:edit": ("get", "platform", Role.EDITOR, None),
    "platform_structure": ("get", "platform", Role.EDITOR, None),
    "platforms:delete": ("post", "platform", Role.EDITOR, {}),
    # a workspace's own workload: members read it and copy it on into their own active workspace; its editors
    # change and delete it (deleting needs a confirmation the matrix does not send)
    "workloads:detail": ("get", "workload", Role.VIEWER, None),
    "workloads:copy": ("post", "workload", Role.VIEWER, {}),
    "workloads:edit": ("get", "workload", Role.EDITOR, None),
    "workloads:delete": ("post", "workload", Role.EDITOR, {}),
    # a calibration fitted to a workspace's observed runs: its members read its result
    "calibration:detail": ("get", "calibration_job", Role.VIEWER, None),
}
#: URLs that are not about one workspace's object: lists (filtered to the user's workspaces), the shared
#: read-only catalogue, the builder (creates in the active workspace) and the user's own workspace pages
NOT_OWNED = {
    "home", "health", "favicon", "login", "logout", "workspaces", "workspace_switch", "workspace_create", "member_add",
    "invitation_accept", "invitation_decline",  # the user's own invitations (another user's: 404, tested below)
    "member_remove", "platforms:list", "workloads:list",
    "workloads:observations", "scenarios:runs", "scenarios:validation", "scenarios:scenarios",
    "scenarios:scenario_new", "scenarios:scenario_demo", "scenarios:compare", "scoring:index", "scoring:score",
    "scoring:tco", "scoring:report_status", "scoring:rerank", "scoring:searches", "profiles:list", "profiles:measurements",
    "benchmarks:list", "calibration:list",
    # the active workspace's own copy of the criteria: editor role checked in tests/scoring/test_workspace_criteria
    "scoring:criteria_customise", "scoring:criteria_use_reference",
    # a workload or platform made from scratch (or a workload file loaded) in the active workspace: editor role
    # checked in tests/workloads/test_new_workload_pages and tests/platforms/test_new_platform_page
    "workloads:new", "workloads:import", "platform_new",
}
#: URLs that change what every workspace shares (not one workspace's object): staff only, whatever the workspace
#: role.  URL name -> (method, whether it takes a criterion's pk, POST data); a GET of a list (the criteria page)
#: stays open to every signed-in user, its POST is the change checked here
STAFF_ONLY = {
    "scoring:criteria": ("post", False, {"key": "k", "label": "=1+1", "metric": "iops", "direction": "higher",
                                         "rubric": '{"kind": "thresholds", "bands": [{"at": 1, "score": 5}]}',
                                         "weight": "0", "position": "0"}),
    "scoring:criterion": ("get", True, None),
    "scoring:criterion_delete": ("post", True, {}),
    "scoring:criteria_reset": ("post", False, {}),
}
#: covered elsewhere: the REST API (tests/api, the same rules through the same lookups) and the Django admin (staff
#: only); listed so that a new URL cannot slip through unclassified
NOT_YET_SCOPED_PREFIXES = ("api", "admin:", "schema", "swagger", "redoc")


def test_every_url_of_the_project_is_classified():
    names = {name for name, _ in named_patterns()}
    classified = set(OWNED) | NOT_OWNED | set(STAFF_ONLY)
    unclassified = {n for n in names - classified if not n.startswith(NOT_YET_SCOPED_PREFIXES)}
    assert not unclassified, f"classify these URLs in the permission matrix: {sorted(unclassified)}"
    assert not (set(OWNED) | set(STAFF_ONLY)) - names, "the matrix names URLs that no longer exist"
    assert not (set(OWNED) & NOT_OWNED) and not (set(STAFF_ONLY) & (set(OWNED) | NOT_OWNED)), "classified twice"


@pytest.mark.parametrize("name", sorted(STAFF_ONLY))
def test_only_staff_change_what_every_workspace_shares(client, db, django_user_model, name):
    """The attack: any signed-in user rewrote the global scoring criteria every workspace's reports use."""
    from apps.scoring.models import Criterion

    method, takes_pk, data = STAFF_ONLY[name]
    pk = Criterion.objects.order_by("pk").values_list("pk", flat=True).first()
    url = reverse(name, args=[pk] if takes_pk else [])

    def call():
        return client.get(url) if method == "get" else client.post(url, data or {})

    before = list(Criterion.objects.order_by("pk").values())
    response = call()
    assert response.status_code == 302 and "/accounts/login/" in response["Location"], "anonymous"
    client.force_login(django_user_model.objects.create_user(username="eve", password=PASSWORD))
    assert call().status_code == 403, "a signed-in user who is not staff"
    assert list(Criterion.objects.order_by("pk").values()) == before
    client.force_login(django_user_model.objects.create_superuser(username="root", password=PASSWORD))
    assert call().status_code in (200, 302), "staff"


def _url(name, world):
    method, which, need, data = OWNED[name]
    obj = world[which]
    if which in ("platform", "workload"):
        return reverse(name, kwargs={"slug": obj.slug}), method, need, data
    kwarg = {"run": "run_id", "scenario": "scenario_id", "report": "report_id", "search": "search_id",
             "profile": "profile_id", "job": "job_id", "calibration": "cal_id", "benchmark": "run_id",
             "calibration_job": "calibration_id"}[which]
    return reverse(name, kwargs={kwarg: obj.pk}), method, need, data


def _expected(role: str, need: str) -> str:
    if role == "outsider":
        return "404"
    if need == MAINTAINER:
        return "403"
    rank = {"viewer": 1, "editor": 2, "admin": 3}
    return "allowed" if rank[role] >= rank[need] else "403"


@pytest.mark.parametrize("name", sorted(OWNED))
def test_the_matrix_of_roles_for_each_workspace_owned_url(client, world, name, settings):
    url, method, need, data = _url(name, world)
    response = client.get(url) if method == "get" else client.post(url, data or {})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"], "anonymous"
    secrets = (world["scenario"].name, world["platform"].name, world["workload"].name)
    for role in ROLES:
        client.force_login(world["users"][role])
        response = client.get(url) if method == "get" else client.post(url, data or {})
        expected = _expected(role, need)
        if expected == "404":
            assert response.status_code == 404, (role, response.status_code)
            assert not any(secret.encode() in response.content for secret in secrets)
        elif expected == "403":
            assert response.status_code == 403, (role, response.status_code)
        else:
            # allowed: the page, its JSON, a redirect after a change, (the unfinished report) nothing to download, or
            # (the scenario not yet run) no recommendation to re-rank yet
            allowed = {200, 302} | ({404} if name == "reports:download" else set()) | (
                {409} if name == "scenarios:recommendation" else set())
            assert response.status_code in allowed, (role, response.status_code)
        client.logout()


def test_lists_show_only_the_users_workspaces(client, world):
    client.force_login(world["users"]["outsider"])
    for url in ("/scenarios/", "/runs/", "/scoring/searches/", "/scenarios/compare/"):
        body = client.get(url).content.decode()
        assert world["scenario"].name not in body and str(world["run"].pk) not in body, url
        assert str(world["search"].pk) not in body and str(world["scenario"].pk) not in body, url
    assert str(world["benchmark"].pk) not in client.get("/benchmarks/").content.decode()
    body = client.get("/profiles/").content.decode()
    assert world["profile"].get_absolute_url() not in body and str(world["job"].pk) not in body
    client.force_login(world["users"]["viewer"])
    assert world["profile"].get_absolute_url() in client.get("/profiles/").content.decode()
    assert world["scenario"].name in client.get("/scenarios/").content.decode()
    assert str(world["run"].pk) in client.get("/runs/").content.decode()


def test_a_viewer_cannot_create_in_a_workspace_they_only_view(client, world):
    viewer = world["users"]["viewer"]
    client.force_login(viewer)
    response = client.post("/accounts/workspaces/switch/", {"workspace": world["workspace"].pk})
    assert response.status_code == 302
    assert client.post("/scenarios/demo/").status_code == 403
    assert client.post("/runs/", {"workload": "chiles-epoch1", "platform": "magnus", "replications": "1",
                                  "seed": "0", "options": ""}).status_code == 403
    # in their own workspace they may
    client.post("/accounts/workspaces/switch/", {"workspace": personal_workspace(viewer).pk})
    response = client.post("/scenarios/demo/")
    assert response.status_code == 302
    from apps.scenarios.models import Scenario

    assert Scenario.objects.filter(workspace=personal_workspace(viewer)).count() == 1


def test_an_outsider_cannot_switch_to_or_manage_another_workspace(client, world):
    client.force_login(world["users"]["outsider"])
    ws = world["workspace"]
    assert client.post("/accounts/workspaces/switch/", {"workspace": ws.pk}).status_code == 404
    assert client.post("/accounts/workspaces/members/add/", {"workspace": ws.pk, "username": "bob",
                                                             "role": "admin"}).status_code == 404
    assert not ws.memberships.filter(user=world["users"]["outsider"]).exists()
    client.force_login(world["users"]["editor"])
    assert client.post("/accounts/workspaces/members/add/", {"workspace": ws.pk, "username": "bob",
                                                             "role": "viewer"}).status_code == 403


def test_an_admin_invites_and_removes_members_with_clear_errors(client, world):
    ws = world["workspace"]
    bob = world["users"]["outsider"]
    client.force_login(world["users"]["admin"])
    page = client.post("/accounts/workspaces/members/add/", {"workspace": ws.pk, "username": "bob",
                                                             "role": "owner"}, follow=True).content.decode()
    assert "Member not added: role: one of viewer, editor, admin" in page
    client.post("/accounts/workspaces/members/add/", {"workspace": ws.pk, "username": "bob", "role": "viewer"})
    assert ws.role_of(bob) is None, "invited, not a member until bob accepts"
    client.force_login(bob)
    invitation = bob.invitations.get()
    page = client.get("/accounts/workspaces/").content.decode()
    assert 'id="invitation-table"' in page and escape(ws.name) in page
    assert client.post(f"/accounts/workspaces/invitations/{invitation.pk}/accept/").status_code == 302
    assert ws.role_of(bob) == Role.VIEWER and not bob.invitations.exists()
    client.force_login(world["users"]["admin"])
    membership = ws.memberships.get(user=bob)
    client.post("/accounts/workspaces/members/remove/", {"workspace": ws.pk, "membership": membership.pk})
    assert ws.role_of(bob) is None
    owner = ws.memberships.get(user=world["users"]["admin"])
    page = client.post("/accounts/workspaces/members/remove/", {"workspace": ws.pk, "membership": owner.pk},
                       follow=True).content.decode()
    assert "the owner of a personal workspace stays in it" in page


def test_membership_needs_the_invitees_consent_and_the_reply_does_not_reveal_who_exists(client, world):
    """The attack: any admin added any user name to their workspace, and the reply said whether the name existed."""
    ws = world["workspace"]
    bob = world["users"]["outsider"]
    client.force_login(world["users"]["admin"])
    replies = {}
    for name in ("bob", "nobody-by-this-name"):
        page = client.post("/accounts/workspaces/members/add/", {"workspace": ws.pk, "username": name,
                                                                 "role": "editor"}, follow=True).content.decode()
        replies[name] = [line.replace(name, "NAME") for line in page.splitlines() if 'class="message"' in line]
    assert replies["bob"] == replies["nobody-by-this-name"], "the same answer whether or not the user exists"
    assert ws.role_of(bob) is None
    invitation = bob.invitations.get()
    # nobody but the invitee answers it: another user gets a 404, and nothing changes
    client.force_login(world["users"]["viewer"])
    for action in ("accept", "decline"):
        assert client.post(f"/accounts/workspaces/invitations/{invitation.pk}/{action}/").status_code == 404
    assert ws.role_of(world["users"]["viewer"]) == Role.VIEWER and bob.invitations.exists()
    client.force_login(bob)
    assert client.post(f"/accounts/workspaces/invitations/{invitation.pk}/decline/").status_code == 302
    assert ws.role_of(bob) is None and not bob.invitations.exists()


def test_a_new_workspace_becomes_active_and_new_scenarios_go_there(client, world):
    client.force_login(world["users"]["outsider"])
    page = client.post("/accounts/workspaces/new/", {"name": "CHILES imaging team"}, follow=True).content.decode()
    assert "Workspace: CHILES imaging team" in page
    client.post("/scenarios/demo/")
    from apps.scenarios.models import Scenario

    assert Scenario.objects.filter(workspace__name="CHILES imaging team").count() == 1
    page = client.post("/accounts/workspaces/new/", {"name": "  "}, follow=True).content.decode()
    assert "name: give the workspace a name" in page


def test_a_profiles_companion_choices_hold_only_the_users_workspaces_profiles(client, world):
    """The calibrate form offers companion profiles of the same run: never another workspace's (their names are
    their file names, which may say what the run was)."""
    alices = world["profile"]  # a strace trace in Alice's workspace
    alices.name = "Confidential trace of Alice"
    alices.save(update_fields=["name"])
    bob, alice = world["users"]["outsider"], world["users"]["admin"]
    bobs = import_file(SAMPLES / "rand_read.chiles.csv", user=bob, workspace=personal_workspace(bob)).profile
    client.force_login(bob)
    page = client.get(bobs.get_absolute_url()).content.decode()
    assert 'name="companion"' in page and "Confidential trace of Alice" not in page
    # a samples file of Alice's own is offered her trace
    hers = import_file(SAMPLES / "rand_read.chiles.csv", user=alice, workspace=world["workspace"]).profile
    client.force_login(alice)
    assert "Confidential trace of Alice" in client.get(hers.get_absolute_url()).content.decode()
