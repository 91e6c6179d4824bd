"""Workloads of a workspace over the API: an editor creates, changes, copies and deletes them (in the catalogue
format, every value with a unit and a source, checked by the catalogue loader's rules), a viewer reads them, anyone
else gets a 404; the reference catalogue is read-only."""

from __future__ import annotations

import copy

import pytest

from apps.accounts.workspaces import Role, add_member, personal_workspace
from apps.scenarios.models import Scenario
from apps.workloads.models import Workload

pytestmark = pytest.mark.django_db

GUESS = {"kind": "assumption", "reason": "what our scheduler logs show"}
PAPER = {"kind": "paper", "title": "Our pipeline's design note", "where": "Table 2"}

JOB_ARRAY = {
    "name": "Spectra per file",
    "template": "job_array",
    "description": "one job per input file",
    "parameters": {"n_jobs": {"value": 394, "unit": "", "source": GUESS},
                   "slots": {"value": 24, "unit": "", "source": GUESS}},
    "stages": [
        {"name": "stage_in", "facts": {"n_tasks": {"value": 394, "unit": "", "source": GUESS},
                                       "seq_read_bytes": {"value": 0.6, "unit": "GB", "source": PAPER}}},
        {"name": "compute", "facts": {"n_tasks": {"value": 394, "unit": "", "source": GUESS},
                                      "cpu_seconds": {"value": 2, "unit": "min", "source": GUESS},
                                      "depends_on": {"value": ["stage_in"], "unit": "", "source": GUESS}}},
        {"name": "stage_out", "facts": {"n_tasks": {"value": 394, "unit": "", "source": GUESS},
                                        "seq_write_bytes": {"value": 150, "unit": "MB", "source": PAPER},
                                        "depends_on": {"value": ["compute"], "unit": "", "source": GUESS}}},
    ],
}


def _body(**changes) -> dict:
    body = copy.deepcopy(JOB_ARRAY)
    body.update(changes)
    return body


@pytest.fixture
def created(api, user) -> dict:
    response = api.post("/api/v1/workloads/", JOB_ARRAY, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def test_an_editor_creates_a_workload_in_their_workspace_with_values_in_base_units(created, api):
    assert (created["slug"], created["workspace"], created["copied_from"]) == ("spectra-per-file", "ada", None)
    stages = {s["name"]: s["facts"] for s in created["stages"]}
    assert list(stages) == ["stage_in", "compute", "stage_out"]
    assert stages["stage_in"]["seq_read_bytes"]["value"] == 6e8  # 0.6 GB
    assert stages["stage_in"]["seq_read_bytes"]["source"] == PAPER
    assert stages["compute"]["cpu_seconds"]["value"] == 120  # 2 min
    assert stages["stage_out"]["seq_write_bytes"]["value"] == 1.5e8
    assert created["parameters"]["n_jobs"]["value"] == 394
    assert api.get("/api/v1/workloads/spectra-per-file/").json() == created
    assert Workload.objects.get(slug="spectra-per-file").workspace.slug == "ada"


def test_a_taken_slug_gets_the_next_free_one(created, api):
    again = api.post("/api/v1/workloads/", JOB_ARRAY, format="json")
    assert again.status_code == 201 and again.json()["slug"] == "spectra-per-file-2"


@pytest.mark.parametrize(("change", "key", "words"), [
    (lambda b: b["stages"][1]["facts"]["cpu_seconds"].update(unit="furlongs"), "stages[1].facts.cpu_seconds.unit",
     "furlongs"),
    (lambda b: b["stages"][1]["facts"]["cpu_seconds"].update(unit="GB"), "stages[1].facts.cpu_seconds",
     "GB"),
    (lambda b: b["stages"][0]["facts"]["seq_read_bytes"].update(unit=""), "stages[0].facts.seq_read_bytes",
     "needs a unit"),
    (lambda b: b["stages"][2]["facts"]["seq_write_bytes"].pop("source"), "stages[2].facts.seq_write_bytes",
     "'source'"),
    (lambda b: b["stages"][2]["facts"]["seq_write_bytes"].update(source={"kind": "url", "url": "ftp://x"}),
     "stages[2].facts.seq_write_bytes.source", "http"),
    (lambda b: b["parameters"]["n_jobs"].update(value=-3), "", "n_jobs: must be greater than zero"),
    (lambda b: b["stages"][0].update(name="download"), "stages[0]", "stage_in, compute, stage_out"),
    (lambda b: b["stages"][1]["facts"]["depends_on"].update(value=["stage_out"]), "stages",
     "its dependencies form a cycle"),
    (lambda b: b["stages"][0]["facts"].update(id={"value": 1, "unit": "", "source": GUESS}),
     "stages[0].facts", "'id' was unexpected"),
    (lambda b: b.update(template="spreadsheet"), "template", "'spreadsheet' is not one of"),
    (lambda b: b.update(stages={"a": 1}), "stages", "is not of type 'array'"),
    (lambda b: b.update(name=""), "name", "non-empty"),
    (lambda b: b.update(name="\x00"), "name", "NUL character"),
    (lambda b: b["parameters"].update({"n\x00": b["parameters"]["n_jobs"]}), "parameters.n\\x00", "NUL character"),
])
def test_a_refused_workload_names_the_value_in_error_and_saves_nothing(api, user, change, key, words):
    body = _body()
    change(body)
    response = api.post("/api/v1/workloads/", body, format="json")

    assert response.status_code == 400
    errors = response.json()
    assert list(errors) == [key or "non_field_errors"], errors
    assert words in " ".join(errors[key or "non_field_errors"])
    assert not Workload.objects.exists()


@pytest.mark.parametrize("body", [[], "text", 3, None])
def test_a_body_that_is_no_object_is_a_400(api, user, body):
    response = api.post("/api/v1/workloads/", body, format="json")
    assert response.status_code == 400 and not Workload.objects.exists()


def test_patch_renames_and_merges_parameters_and_put_replaces_the_stages(created, api):
    patched = api.patch("/api/v1/workloads/spectra-per-file/", {
        "name": "Spectra per FITS file", "parameters": {"slots": None,
                                                        "n_jobs": {"value": 400, "unit": "", "source": GUESS}}},
        format="json")
    assert patched.status_code == 200, patched.json()
    body = patched.json()
    assert body["name"] == "Spectra per FITS file" and body["slug"] == "spectra-per-file"
    assert set(body["parameters"]) == {"n_jobs"} and body["parameters"]["n_jobs"]["value"] == 400
    assert [s["name"] for s in body["stages"]] == ["stage_in", "compute", "stage_out"]

    put = api.put("/api/v1/workloads/spectra-per-file/", _body(stages=JOB_ARRAY["stages"][:2]), format="json")
    assert put.status_code == 200, put.json()
    assert [s["name"] for s in put.json()["stages"]] == ["stage_in", "compute"]
    assert put.json()["name"] == "Spectra per file"


def test_a_refused_change_leaves_the_workload_as_it_was(created, api):
    body = _body()
    body["stages"][1]["facts"]["cpu_seconds"]["unit"] = "furlongs"
    assert api.put("/api/v1/workloads/spectra-per-file/", body, format="json").status_code == 400
    assert api.patch("/api/v1/workloads/spectra-per-file/", {"slug": "other"}, format="json").status_code == 400
    assert api.get("/api/v1/workloads/spectra-per-file/").json() == created


def test_the_reference_catalogue_is_read_only_and_copied_with_every_source(api, catalogue, user):
    for method in (api.put, api.patch):
        assert method("/api/v1/workloads/sdp-predict-p3/", {"name": "x"}, format="json").status_code == 403
    assert api.delete("/api/v1/workloads/sdp-predict-p3/").status_code == 403

    response = api.post("/api/v1/workloads/sdp-predict-p3/copy/")
    assert response.status_code == 201
    body = response.json()
    original = api.get("/api/v1/workloads/sdp-predict-p3/").json()
    assert (body["slug"], body["workspace"], body["copied_from"]) == ("sdp-predict-p3-copy", "ada", "sdp-predict-p3")
    assert body["name"] == original["name"] + " (copy)"
    assert body["parameters"] == original["parameters"] and body["stages"] == original["stages"]
    assert api.patch("/api/v1/workloads/sdp-predict-p3-copy/", {"description": "ours"},
                     format="json").status_code == 200


def test_another_workspaces_workload_is_not_found_listed_copied_or_used(created, catalogue, bob, client_of):
    client = client_of(bob)
    assert client.get("/api/v1/workloads/spectra-per-file/").status_code == 404
    assert client.patch("/api/v1/workloads/spectra-per-file/", {"name": "x"}, format="json").status_code == 404
    assert client.delete("/api/v1/workloads/spectra-per-file/").status_code == 404
    assert client.post("/api/v1/workloads/spectra-per-file/copy/").status_code == 404
    listed = {w["slug"] for w in client.get("/api/v1/workloads/?limit=100").json()["results"]}
    assert "spectra-per-file" not in listed and "chiles-epoch1" in listed
    refused = client.post("/api/v1/scenarios/", {
        "name": "x", "workload": "spectra-per-file",
        "platforms": [{"platform": "magnus"}, {"platform": "pleiades"}]}, format="json")
    assert refused.status_code == 400 and list(refused.json()) == ["workload"]


def test_a_viewer_reads_but_does_not_change(created, user, bob, client_of):
    add_member(personal_workspace(user), "bob", Role.VIEWER)
    client = client_of(bob)
    assert client.get("/api/v1/workloads/spectra-per-file/").status_code == 200
    response = client.patch("/api/v1/workloads/spectra-per-file/", {"name": "x"}, format="json")
    assert response.status_code == 403 and "editor" in response.json()["detail"]
    assert client.delete("/api/v1/workloads/spectra-per-file/").status_code == 403
    assert Workload.objects.get(slug="spectra-per-file").name == "Spectra per file"


def test_a_workload_a_scenario_uses_is_kept_until_the_scenario_goes(created, catalogue, api):
    scenario = api.post("/api/v1/scenarios/", {
        "name": "ours", "workload": "spectra-per-file",
        "platforms": [{"platform": "magnus"}, {"platform": "pleiades"}]}, format="json")
    assert scenario.status_code == 201, scenario.json()
    refused = api.delete("/api/v1/workloads/spectra-per-file/")
    assert refused.status_code == 409 and "1 scenario" in refused.json()["detail"]
    Scenario.objects.filter(pk=scenario.json()["id"]).delete()  # the API deletes no scenario
    assert api.delete("/api/v1/workloads/spectra-per-file/").status_code == 204
    assert not Workload.objects.filter(slug="spectra-per-file").exists()
