"""A workspace's observed runs over the API: an editor records one (value with a unit, a source of any kind the
provenance contract knows, the workload and platform of the reference catalogue or the workspace's own), a viewer
reads it, a refusal names each field in error and saves nothing, the list shows only the user's workspaces'."""

from __future__ import annotations

import pytest

from apps.accounts.workspaces import Role, add_member, personal_workspace
from apps.calibration.models import Observation
from apps.platforms.models import Platform
from apps.platforms.services import copy_platform

pytestmark = pytest.mark.django_db

PAPER = {"kind": "paper", "title": "Our pipeline's design note", "where": "Table 2"}
RUN = {"label": "394 jobs in March", "workload": "sdp-predict-p3", "platform": "magnus", "quantity": "makespan",
       "value": "7 min", "source": PAPER}


def test_an_editor_records_an_observed_run_with_its_unit_and_source(catalogue, api, user):
    response = api.post("/api/v1/observations/", RUN, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["value_s"] == 420.0 and body["use_for_fitting"] is True
    assert body["workload"] == "sdp-predict-p3" and body["platform"] == "magnus"
    assert "Table 2" in body["source_text"]
    obs = Observation.objects.get(pk=body["id"])
    assert obs.workspace == personal_workspace(user) and obs.created_by == user
    assert api.get(f"/api/v1/observations/{obs.pk}/").json()["label"] == "394 jobs in March"
    assert [o["id"] for o in api.get("/api/v1/observations/").json()["results"]] == [obs.pk]
    assert api.delete(f"/api/v1/observations/{obs.pk}/").status_code == 204
    assert not Observation.objects.exists()


def test_a_stage_time_names_a_stage_of_the_workload_and_a_copy_of_a_platform_may_be_used(catalogue, api, user):
    copy = copy_platform(Platform.objects.get(slug="magnus"), personal_workspace(user), user=user)
    ok = api.post("/api/v1/observations/", {**RUN, "platform": copy.slug, "quantity": "stage_time",
                                              "stage": "stage_in", "value": "90 s", "use_for_fitting": False},
                  format="json")
    assert ok.status_code == 201, ok.content
    assert ok.json()["stage"] == "stage_in" and ok.json()["use_for_fitting"] is False
    bad = api.post("/api/v1/observations/", {**RUN, "quantity": "stage_time", "stage": "no_such"}, format="json")
    assert bad.status_code == 400 and list(bad.json()) == ["stage"]
    assert "stage_in" in bad.json()["stage"][0]
    assert api.post("/api/v1/observations/", {**RUN, "stage": "stage_in"}, format="json").json() == {
        "stage": ["only a stage time names a stage"]}


@pytest.mark.parametrize(("change", "fields"), [
    ({"value": "7"}, {"value"}),                    # a bare number: no unit
    ({"value": "7 GB"}, {"value"}),                 # not a time
    ({"value": "0 s"}, {"value"}),
    ({"quantity": "throughput"}, {"quantity"}),
    ({"workload": "no-such-workload"}, {"workload"}),
    ({"platform": "no-such-platform", "workload": "no-such-workload"}, {"platform", "workload"}),
    ({"label": " "}, {"label"}),
    ({"source": {"kind": "paper", "title": "x"}}, {"source"}),      # a paper needs where
    ({"source": {"kind": "seed", "file": "000.txt", "where": "x"}}, {"source"}),  # the project's own only
    ({"source": "a friend said so"}, {"source"}),
])
def test_a_refusal_names_each_field_and_saves_nothing(catalogue, api, change, fields):
    response = api.post("/api/v1/observations/", {**RUN, **change}, format="json")
    assert response.status_code == 400, response.content
    assert set(response.json()) == fields, response.json()
    assert not Observation.objects.exists()


def test_viewers_read_editors_delete_and_others_see_nothing(catalogue, api, user, django_user_model, client_of):
    obs = api.post("/api/v1/observations/", RUN, format="json").json()
    viewer = django_user_model.objects.create_user(username="vic", password="correct horse battery")
    outsider = django_user_model.objects.create_user(username="oli", password="correct horse battery")
    add_member(personal_workspace(user), "vic", Role.VIEWER)
    url = f"/api/v1/observations/{obs['id']}/"
    assert client_of(viewer).get(url).status_code == 200
    assert client_of(viewer).delete(url).status_code == 403
    assert client_of(outsider).get(url).status_code == 404
    assert client_of(outsider).delete(url).status_code == 404
    assert client_of(outsider).get("/api/v1/observations/").json()["count"] == 0
    assert Observation.objects.filter(pk=obs["id"]).exists()
