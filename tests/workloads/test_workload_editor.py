"""The workload edit page: an editor of the workload's workspace changes its parameters and its stages' demands,
each changed value with its source, adds a stage as a copy of another and removes one; the page refuses what the
API and workload files refuse, beside the field, and saves nothing then; an edited workload simulates with its new
values; the reference catalogue and viewers cannot edit; a workload is deleted on confirmation."""

from __future__ import annotations

import pytest

from apps.accounts.models import Membership
from apps.accounts.workspaces import Role, personal_workspace
from apps.workloads.files import workload_entry
from apps.workloads.models import Workload
from apps.workloads.services import copy_workload

pytestmark = pytest.mark.django_db

PAPER = {"kind": "paper", "title": "Our pipeline's profiling report", "where": "Table 2"}


@pytest.fixture
def predict(catalogue, user) -> Workload:
    """ada's copy of the SDP predict job array (three stages: stage_in -> compute -> stage_out)."""
    return copy_workload(Workload.objects.get(slug="sdp-predict-p3"), personal_workspace(user), user=user)


def _edit_data(client, workload, **changes) -> dict:
    """The edit form of ``workload`` as the page shows it (every value unchanged), then ``changes`` by input name."""
    response = client.get(f"/workloads/{workload.slug}/edit/")
    assert response.status_code == 200
    editor = response.context["editor"]
    data = {}
    for form in editor.forms():
        for name in form.fields:
            bound = form[name]
            value = bound.value()
            if value is None or value is False:
                continue
            data[bound.html_name] = value
    data.update(changes)
    return data


def _source(prefix: str, source: dict) -> dict:
    return {f"{prefix}-{key}": value for key, value in source.items()}


def _stage(workload, name):
    return workload.stages.get(name=name)


def test_an_unchanged_form_saves_nothing_and_keeps_every_value_and_source(logged_in, predict):
    before = workload_entry(Workload.objects.get(pk=predict.pk))
    response = logged_in.post(f"/workloads/{predict.slug}/edit/", _edit_data(logged_in, predict))
    assert response.status_code == 302 and response["Location"] == f"/workloads/{predict.slug}/"
    assert workload_entry(Workload.objects.get(pk=predict.pk)) == before


def test_a_changed_demand_and_parameter_are_saved_in_base_units_with_their_new_sources(logged_in, predict):
    compute = _stage(predict, "compute")
    prefix = f"stage-{compute.pk}"
    data = _edit_data(logged_in, predict, **{
        f"{prefix}-cpu_seconds": "20 min", **_source(f"{prefix}-cpu_seconds", PAPER),
        "parameters-n_jobs": "64", **_source("parameters-n_jobs", {"kind": "assumption", "reason": "two nights"}),
    })
    response = logged_in.post(f"/workloads/{predict.slug}/edit/", data)
    assert response.status_code == 302, response.context["editor"].error_summary()
    predict.refresh_from_db()
    compute.refresh_from_db()
    assert compute.cpu_seconds == 1200.0
    assert compute.source_of("cpu_seconds") == PAPER
    assert predict.parameters["n_jobs"] == 64
    assert predict.source_of("n_jobs") == {"kind": "assumption", "reason": "two nights"}
    # the other stages and values are as they were
    assert _stage(predict, "stage_in").input_read_bytes == Workload.objects.get(
        slug="sdp-predict-p3").stages.get(name="stage_in").input_read_bytes


def test_a_change_without_a_source_or_with_a_wrong_unit_is_refused_beside_its_field_and_nothing_is_saved(
        logged_in, predict):
    compute = _stage(predict, "compute")
    prefix = f"stage-{compute.pk}"
    before = workload_entry(Workload.objects.get(pk=predict.pk))
    data = _edit_data(logged_in, predict, **{f"{prefix}-cpu_seconds": "900 s",
                                             f"{prefix}-peak_memory": "12 MB/s", **_source(f"{prefix}-peak_memory",
                                                                                           PAPER)})
    response = logged_in.post(f"/workloads/{predict.slug}/edit/", data)
    assert response.status_code == 400
    summary = " | ".join(response.context["editor"].error_summary())
    assert "Stage compute · CPU per task (core-seconds): changed: give its new source" in summary
    assert "Stage compute · Peak memory:" in summary
    assert workload_entry(Workload.objects.get(pk=predict.pk)) == before


def test_a_stage_is_added_as_a_copy_of_another_and_removed(logged_in, predict):
    data = _edit_data(logged_in, predict, **{"add-name": "post_process", "add-like": "compute"})
    response = logged_in.post(f"/workloads/{predict.slug}/edit/", data)
    assert response.status_code == 302, response.context["editor"].error_summary()
    added = _stage(predict, "post_process")
    compute = _stage(predict, "compute")
    assert added.cpu_seconds == compute.cpu_seconds and added.source_of("cpu_seconds") == compute.source_of(
        "cpu_seconds")
    assert [s.name for s in predict.stages.all()] == ["stage_in", "compute", "stage_out", "post_process"]

    data = _edit_data(logged_in, predict, **{f"stage-{added.pk}-remove": "on"})
    assert logged_in.post(f"/workloads/{predict.slug}/edit/", data).status_code == 302
    assert [s.name for s in predict.stages.all()] == ["stage_in", "compute", "stage_out"]


def test_removing_a_stage_another_depends_on_is_refused_naming_the_stage_and_nothing_is_saved(logged_in, predict):
    before = workload_entry(Workload.objects.get(pk=predict.pk))
    data = _edit_data(logged_in, predict, **{f"stage-{_stage(predict, 'stage_in').pk}-remove": "on"})
    response = logged_in.post(f"/workloads/{predict.slug}/edit/", data)
    assert response.status_code == 400
    summary = " | ".join(response.context["editor"].error_summary())
    assert "Stage compute" in summary and "stage_in" in summary, summary
    assert workload_entry(Workload.objects.get(pk=predict.pk)) == before


def test_upstream_stages_are_ticked_and_a_new_dependency_needs_its_source(logged_in, predict):
    stage_out = _stage(predict, "stage_out")
    prefix = f"stage-{stage_out.pk}"
    html = logged_in.get(f"/workloads/{predict.slug}/edit/").content.decode()
    assert f'name="{prefix}-depends_on" value="compute"' in html and "checked" in html
    data = _edit_data(logged_in, predict)
    data[f"{prefix}-depends_on"] = ["compute", "stage_in"]
    data[f"{prefix}-dependency"] = "all"
    data.update(_source(f"{prefix}-depends_on", {"kind": "assumption", "reason": "outputs need every input"}))
    data.update(_source(f"{prefix}-dependency", {"kind": "assumption", "reason": "outputs need every input"}))
    response = logged_in.post(f"/workloads/{predict.slug}/edit/", data)
    assert response.status_code == 302, response.context["editor"].error_summary()
    stage_out.refresh_from_db()
    assert sorted(stage_out.depends_on) == ["compute", "stage_in"] and stage_out.dependency == "all"


def test_an_edited_workload_simulates_with_its_new_values(logged_in, predict):
    from apps.scenarios.adapters import workload_dict
    from simulator.model.catalogue import workload_from_dict

    compute = _stage(predict, "compute")
    prefix = f"stage-{compute.pk}"
    data = _edit_data(logged_in, predict, **{f"{prefix}-cpu_seconds": "1980 s",
                                             **_source(f"{prefix}-cpu_seconds", PAPER)})
    assert logged_in.post(f"/workloads/{predict.slug}/edit/", data).status_code == 302
    spec = workload_from_dict(workload_dict(Workload.objects.get(pk=predict.pk)))
    stage = next(s for s in spec.stages if s.name == "compute")
    assert stage.cpu_seconds == 1980.0


def test_the_reference_catalogue_and_viewers_cannot_edit(client, logged_in, predict, django_user_model):
    assert logged_in.get("/workloads/sdp-predict-p3/edit/").status_code == 403
    assert "Edit this workload" in logged_in.get(f"/workloads/{predict.slug}/").content.decode()
    carol = django_user_model.objects.create_user(username="carol", password="another horse battery")
    Membership.objects.create(user=carol, workspace=predict.workspace, role=Role.VIEWER)
    client.force_login(carol)
    assert client.get(f"/workloads/{predict.slug}/edit/").status_code == 403
    assert "Edit this workload" not in client.get(f"/workloads/{predict.slug}/").content.decode()


def test_a_workload_is_deleted_only_when_confirmed(logged_in, predict):
    assert logged_in.post(f"/workloads/{predict.slug}/delete/").status_code == 302
    assert Workload.objects.filter(pk=predict.pk).exists()
    response = logged_in.post(f"/workloads/{predict.slug}/delete/", {"confirm": "yes"})
    assert response.status_code == 302 and response["Location"] == "/workloads/"
    assert not Workload.objects.filter(pk=predict.pk).exists()
