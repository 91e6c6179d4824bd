"""Starting a workload on the site with no copy: the new-workload page (name, template, a first stage, each value
with its unit and source) creates it in the active workspace through the API's service and opens its edit page;
refusals sit beside their field and save nothing; a workload file uploaded on the site loads as ``manage.py
import_workload`` loads it, a refusal naming the file, the line or value and the field; viewers may do neither."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.accounts.models import Workspace
from apps.accounts.workspaces import personal_workspace
from apps.workloads.files import dump, workload_entry
from apps.workloads.models import Workload

pytestmark = pytest.mark.django_db

LOG = {"kind": "measurement", "host": "campus-login1", "date": "2026-11-02"}


def _source(prefix: str, source: dict) -> dict:
    return {f"{prefix}-{key}": value for key, value in source.items()}


def _new(**changes) -> dict:
    data = {"workload-name": "Spectra per file", "workload-description": "one spectrum per input file",
            "workload-template": "stages", "workload-stage": "compute",
            "stage-n_tasks": "48", **_source("stage-n_tasks", {"kind": "assumption", "reason": "one per file"}),
            "stage-cpu_seconds": "1 min", **_source("stage-cpu_seconds", LOG),
            "stage-input_read_bytes": "0.6 GB", **_source("stage-input_read_bytes", LOG)}
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def test_the_list_offers_a_new_workload_and_an_import_to_an_editor(logged_in):
    page = logged_in.get("/workloads/").content.decode()
    assert 'href="/workloads/new/"' in page and 'href="/workloads/import/"' in page


def test_a_new_workload_is_created_in_the_active_workspace_with_its_sources_and_opens_its_edit_page(
        logged_in, catalogue, user):
    response = logged_in.post("/workloads/new/", _new())
    assert response.status_code == 302, response.context["editor"].error_summary()
    workload = Workload.objects.get(name="Spectra per file")
    assert response["Location"] == f"/workloads/{workload.slug}/edit/"
    assert workload.workspace == personal_workspace(user) and workload.template == "stages"
    assert workload.description == "one spectrum per input file"
    (stage,) = workload.stages.all()
    assert (stage.name, stage.n_tasks, stage.cpu_seconds, stage.input_read_bytes) == ("compute", 48, 60.0, 0.6e9)
    assert stage.source_of("cpu_seconds") == LOG
    assert logged_in.get(response["Location"]).status_code == 200


def test_a_job_array_takes_its_number_of_jobs_from_the_page(logged_in, catalogue):
    response = logged_in.post("/workloads/new/", _new(**{
        "workload-template": "job_array", "parameters-n_jobs": "48",
        **_source("parameters-n_jobs", {"kind": "assumption", "reason": "one per file"})}))
    assert response.status_code == 302, response.context["editor"].error_summary()
    workload = Workload.objects.get(name="Spectra per file")
    assert workload.template == "job_array" and workload.parameters == {"n_jobs": 48}


def test_a_job_array_without_its_number_of_jobs_is_refused_by_the_service_beside_the_field(logged_in, catalogue):
    response = logged_in.post("/workloads/new/", _new(**{"workload-template": "job_array"}))
    assert response.status_code == 400
    editor = response.context["editor"]
    assert "n_jobs" in " ".join(editor.error_summary())
    assert not Workload.objects.filter(name="Spectra per file").exists()


@pytest.mark.parametrize(("changes", "form", "field", "words"), [
    ({"stage-cpu_seconds-kind": ""}, "stage", "cpu_seconds", "give its new source"),
    ({"stage-cpu_seconds": "1 GB"}, "stage", "cpu_seconds", "unit"),
    ({"workload-template": "job_array", "workload-stage": "crunch", "parameters-n_jobs": "48",
      **_source("parameters-n_jobs", {"kind": "assumption", "reason": "one per file"})}, "identity", "stage",
     "stage_in"),
    ({"workload-name": ""}, "identity", "name", "required"),
])
def test_a_refusal_sits_beside_its_field_and_nothing_is_saved(logged_in, catalogue, changes, form, field, words):
    response = logged_in.post("/workloads/new/", _new(**changes))
    assert response.status_code == 400
    errors = getattr(response.context["editor"], form).errors
    assert field in errors, response.context["editor"].error_summary()
    assert words in " ".join(errors[field])
    assert not Workload.objects.filter(workspace__isnull=False).exists()


def test_a_workload_named_like_a_page_gets_a_slug_of_its_own(logged_in, catalogue):
    assert logged_in.post("/workloads/new/", _new(**{"workload-name": "New"})).status_code == 302
    assert Workload.objects.get(name="New").slug == "new-workload"


def test_a_viewer_cannot_create_or_import_a_workload(as_viewer, catalogue, user):
    client, shared = as_viewer, personal_workspace(user)
    assert 'href="/workloads/new/"' not in client.get("/workloads/").content.decode()
    assert client.get("/workloads/new/").status_code == 403
    assert client.post("/workloads/new/", _new()).status_code == 403
    assert client.post("/workloads/import/", {"file": SimpleUploadedFile("w.json", b"{}")}).status_code == 403
    assert not Workload.objects.filter(workspace=shared).exists()


def _exported(slug: str, fmt: str) -> bytes:
    entry = workload_entry(Workload.objects.get(slug=slug))
    entry["slug"] = "predict-imported"
    entry["name"] = "Predict imported"
    return dump(entry, fmt).encode()


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_an_uploaded_workload_file_is_loaded_into_the_workspace_and_opens_its_edit_page(logged_in, catalogue, user,
                                                                                        fmt):
    upload = SimpleUploadedFile(f"predict.{fmt}", _exported("sdp-predict-p3", fmt))
    response = logged_in.post("/workloads/import/", {"file": upload})
    assert response.status_code == 302, response.context["form"].errors
    workload = Workload.objects.get(slug="predict-imported")
    assert response["Location"] == "/workloads/predict-imported/edit/"
    assert workload.workspace == personal_workspace(user)
    reference = workload_entry(Workload.objects.get(slug="sdp-predict-p3"))
    assert workload_entry(workload)["stages"] == reference["stages"]


def test_a_bad_line_in_an_uploaded_file_is_named_and_nothing_is_saved(logged_in, catalogue):
    text = b'{\n "name": "Broken",\n "template": "stages"\n "stages": []\n}\n'
    response = logged_in.post("/workloads/import/", {"file": SimpleUploadedFile("broken.json", text)})
    assert response.status_code == 400
    (error,) = response.context["form"].errors["file"]
    assert error.startswith("Nothing was imported. broken.json: line 4 column 2:")
    assert not Workload.objects.filter(name="Broken").exists()


def test_a_bad_value_in_the_second_workload_of_a_file_saves_neither(logged_in, catalogue):
    first = json.loads(_exported("sdp-predict-p3", "json"))
    second = {**first, "slug": "second", "name": "Second"}
    second["stages"] = [dict(s) for s in second["stages"]]
    second["stages"][1] = {**second["stages"][1], "facts": {**second["stages"][1]["facts"],
                                                            "cpu_seconds": {"value": 60, "unit": "GB",
                                                                            "source": LOG}}}
    body = json.dumps({"workloads": [first, second]}).encode()
    response = logged_in.post("/workloads/import/", {"file": SimpleUploadedFile("two.json", body)})
    assert response.status_code == 400
    (error,) = response.context["form"].errors["file"]
    assert "two.json: $.workloads[1].stages[1].facts.cpu_seconds" in error
    assert not Workload.objects.filter(slug__in=["predict-imported", "second"]).exists()


def test_a_file_that_is_not_json_or_yaml_is_refused_by_name(logged_in, catalogue):
    response = logged_in.post("/workloads/import/", {"file": SimpleUploadedFile("notes.txt", b"hello")})
    assert response.status_code == 400
    assert "notes.txt: expected a .json, .yaml or .yml workload file" in response.context["form"].errors["file"][0]
    assert Workspace.objects.exists()
