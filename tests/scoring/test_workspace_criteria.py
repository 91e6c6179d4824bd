"""Criteria and weights belong to a workspace: the reference set scores a workspace until its editors copy it into
the workspace; the copy is theirs to change (viewers read it, other workspaces never see it)."""

import json

import pytest
from django.urls import reverse
from django.utils.html import escape

from apps.accounts.models import Role
from apps.accounts.workspaces import add_member, personal_workspace
from apps.scoring import services
from apps.scoring.models import Criterion

pytestmark = pytest.mark.django_db


@pytest.fixture
def team(django_user_model):
    """alice edits her workspace, vic views it, mallory has a workspace of her own."""
    alice = django_user_model.objects.create_user("alice", password="pw-123456")
    vic = django_user_model.objects.create_user("vic", password="pw-123456")
    mallory = django_user_model.objects.create_user("mallory", password="pw-123456")
    workspace = personal_workspace(alice)
    add_member(workspace, "vic", Role.VIEWER)
    return {"alice": alice, "vic": vic, "mallory": mallory, "workspace": workspace}


def _as(client, user, workspace=None):
    client.force_login(user)
    if workspace is not None:
        session = client.session
        session["skyplan_workspace"] = workspace.pk
        session.save()
    return client


def test_a_workspace_scores_with_the_reference_set_until_it_copies_it(client, team):
    ws = team["workspace"]
    reference = [c.key for c in Criterion.objects.filter(workspace__isnull=True)]
    assert len(reference) == 9
    assert list(services.criteria_of(ws)) == list(Criterion.objects.filter(workspace__isnull=True))
    r = _as(client, team["alice"]).post(reverse("scoring:criteria_customise"))
    assert r.status_code == 302
    own = Criterion.objects.filter(workspace=ws)
    assert sorted(own.values_list("key", flat=True)) == sorted(reference)
    assert set(services.criteria_of(ws)) == set(own)
    assert set(services.criteria_of(None)) == set(Criterion.objects.filter(workspace__isnull=True))


def test_an_editor_changes_the_workspace_copy_and_the_reference_set_stays(client, team):
    ws = team["workspace"]
    services.customise_criteria(ws)
    mine = Criterion.objects.get(workspace=ws, key="completion_time")
    before = list(Criterion.objects.filter(workspace__isnull=True).order_by("pk").values())
    rubric = {"kind": "thresholds", "scale": "best", "bands": [{"at": 1.25, "score": 5}, {"at": 2, "score": 3}]}
    r = _as(client, team["alice"]).post(reverse("scoring:criterion", args=[mine.pk]), {
        "key": mine.key, "label": mine.label, "metric": mine.metric, "direction": mine.direction,
        "rubric": json.dumps(rubric), "weight": "3", "position": "0", "enabled": "on"})
    assert r.status_code == 302
    mine.refresh_from_db()
    assert mine.weight == 3.0 and mine.rubric["scale"] == "best"
    assert list(Criterion.objects.filter(workspace__isnull=True).order_by("pk").values()) == before
    specs = services._specs(None, "weighted_sum", ws)
    assert next(c for c in specs if c.key == "completion_time").weight == 3.0
    assert next(c for c in services._specs(None, "weighted_sum", None) if c.key == "completion_time").weight == 1.0
    assert services.criteria_signature(ws) != services.criteria_signature(None)


def test_a_viewer_reads_the_workspace_criteria_but_cannot_change_them(client, team):
    ws = team["workspace"]
    services.customise_criteria(ws)
    mine = Criterion.objects.get(workspace=ws, key="usability")
    c = _as(client, team["vic"], ws)
    page = c.get(reverse("scoring:criteria"))
    assert page.status_code == 200 and escape(ws.name) in page.content.decode()
    assert b"Add a criterion" not in page.content
    assert c.get(reverse("scoring:criterion", args=[mine.pk])).status_code == 403
    assert c.post(reverse("scoring:criterion_delete", args=[mine.pk])).status_code == 403
    assert c.post(reverse("scoring:criteria_use_reference")).status_code == 403
    assert c.post(reverse("scoring:criteria"), {"key": "k", "label": "K", "metric": "iops", "direction": "higher",
                                                "rubric": '{"kind": "thresholds", "bands": [{"at": 1, "score": 5}]}',
                                                "weight": "1", "position": "0"}).status_code == 403
    assert Criterion.objects.filter(workspace=ws).count() == 9


def test_another_workspace_never_sees_the_copy(client, team):
    ws = team["workspace"]
    services.customise_criteria(ws)
    mine = Criterion.objects.get(workspace=ws, key="usability")
    c = _as(client, team["mallory"])
    assert c.get(reverse("scoring:criterion", args=[mine.pk])).status_code == 404
    assert c.post(reverse("scoring:criterion_delete", args=[mine.pk])).status_code == 404
    assert "usability" in [x.key for x in services.criteria_of(personal_workspace(team["mallory"]))]
    assert all(x.workspace_id is None for x in services.criteria_of(personal_workspace(team["mallory"])))


def test_an_editor_adds_a_criterion_to_the_copy_and_drops_the_copy(client, team):
    ws = team["workspace"]
    services.customise_criteria(ws)
    c = _as(client, team["alice"])
    r = c.post(reverse("scoring:criteria"), {"key": "completion_time", "label": "Again", "metric": "iops",
                                             "direction": "higher", "weight": "1", "position": "9",
                                             "rubric": '{"kind": "thresholds", "bands": [{"at": 1, "score": 5}]}'})
    assert r.status_code == 200 and "already exists" in r.content.decode()  # one key once per workspace
    r = c.post(reverse("scoring:criteria"), {"key": "fast_io", "label": "Fast I/O", "metric": "iops",
                                             "direction": "higher", "weight": "1", "position": "9",
                                             "rubric": '{"kind": "thresholds", "bands": [{"at": 1, "score": 5}]}'})
    assert r.status_code == 302
    assert Criterion.objects.get(key="fast_io").workspace == ws
    assert c.post(reverse("scoring:criteria_use_reference")).status_code == 302
    assert not Criterion.objects.filter(workspace=ws).exists()
