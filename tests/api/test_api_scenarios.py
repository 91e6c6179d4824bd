"""Scenarios and simulation runs over the API: validation as 400s naming the field, run, status, results, cancel.

Replications are executed in-process here (``execute_replication``); test_flow.py drives a real worker."""

from __future__ import annotations

import uuid

import pytest

from apps.scenarios.models import Scenario, SimulationRun
from apps.scenarios.services import execute_replication


@pytest.fixture(autouse=True)
def no_dispatch(monkeypatch):
    """Runs are queued but not sent to a broker: the tests execute the replications themselves."""
    from apps.scenarios import services

    monkeypatch.setattr(services, "dispatch_run", lambda run: None)


def _scenario(**changes) -> dict:
    return {"name": "Magnus vs AWS", "workload": "chiles-epoch1", "replications": 2, "seed": 1,
            "platforms": [{"platform": "magnus"}, {"platform": "aws-sydney"}]} | changes


def _execute(scenario_id) -> None:
    for run in Scenario.objects.get(pk=scenario_id).runs():
        for rep in run.replication_set.all():
            execute_replication(str(run.id), rep.index)


def test_a_scenario_is_created_as_a_draft(api, catalogue):
    response = api.post("/api/v1/scenarios/", _scenario(), format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["status"] == "draft"
    assert [p["platform"] for p in body["platforms"]] == ["magnus", "aws-sydney"]
    assert body["replications"] == 2 and body["url"].endswith(f"/api/v1/scenarios/{body['id']}/")
    assert Scenario.objects.get().created_by.username == "ada"
    assert api.get(f"/api/v1/scenarios/{body['id']}/").json() == body


def test_a_scenario_in_us_dollars_is_created_with_its_currency(api, catalogue):
    response = api.post("/api/v1/scenarios/", _scenario(currency="USD"), format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["currency"] == "USD"
    assert Scenario.objects.get().currency == "USD"
    assert api.post("/api/v1/scenarios/", _scenario(), format="json").json()["currency"] == "AUD"


@pytest.mark.parametrize(("changes", "field", "words"), [
    ({"platforms": [{"platform": "magnus"}]}, "platforms", "choose at least 2 platforms"),
    ({"platforms": [{"platform": "magnus"}, {"platform": "magnus"}]}, "platforms", "once"),
    ({"platforms": [{"platform": "magnus"}, {"platform": "atlantis"}]}, "platforms[1].platform", "does not exist"),
    ({"workload": "nope"}, "workload", "does not exist"),
    ({"replications": 0}, "replications", "greater than or equal to 1"),
    ({"replications": 1001}, "replications", "less than or equal to 1000"),
    ({"workload_overrides": {"n_days": -1}}, "workload_overrides.n_days", "greater than 0"),
    ({"workload_overrides": {"bogus": 2}}, "workload_overrides.bogus", "not a parameter of chiles-epoch1"),
    ({"platforms": [{"platform": "magnus", "options": {"placements": [{"stage": "dance"}]}},
                    {"platform": "aws-sydney"}]}, "platforms[0].options.placements[0].stage", "not a stage"),
    ({"platforms": [{"platform": "magnus"}, {"platform": "aws-sydney", "options": {"placements": [
        {"stage": "invert", "nodes": 0}]}}]}, "platforms[1].options.placements[0].nodes", "greater than or equal to 1"),
    ({"platforms": [{"platform": "magnus", "options": {"warp": True}}, {"platform": "aws-sydney"}]},
     "platforms[0].options.warp", "unknown field"),
    ({"platforms": [{"platform": "magnus", "platform_overrides": {"facts": {"capex": 1}}},
                    {"platform": "aws-sydney"}]}, "platforms[0].platform_overrides.facts.capex", "queue_wait_median"),
    ({"platforms": [{"platform": "magnus", "platform_overrides": {"storage_tiers": {"tape": {"iops": 2}}}},
                    {"platform": "aws-sydney"}]}, "platforms[0].platform_overrides.storage_tiers.tape", "no storage"),
    ({"name": ""}, "name", "at least 1 character"),
    ({"seed": 1.5}, "seed", "valid integer"),
    ({"colour": "red"}, "colour", "unknown field"),
    ({"currency": "EUR"}, "currency", "the catalogue has no EUR exchange rate: choose AUD, USD"),
    ({"currency": "DOUBLOONS"}, "currency", "at most 3 characters"),
])
def test_invalid_scenarios_are_400_naming_the_field(api, catalogue, changes, field, words):
    response = api.post("/api/v1/scenarios/", _scenario(**changes), format="json")
    assert response.status_code == 400
    body = response.json()
    assert list(body) == [field], body
    assert words in str(body[field]), body
    assert not Scenario.objects.exists()


def test_a_scenario_runs_reports_status_and_results(api, catalogue):
    scenario_id = api.post("/api/v1/scenarios/", _scenario(), format="json").json()["id"]
    assert api.get(f"/api/v1/scenarios/{scenario_id}/results/").status_code == 409  # not run yet

    response = api.post(f"/api/v1/scenarios/{scenario_id}/run/")
    assert response.status_code == 202
    assert response.json()["status"] == "running" and response.json()["progress"] == 0.0
    busy = api.get(f"/api/v1/scenarios/{scenario_id}/results/")
    assert busy.status_code == 409 and busy.json()["status"] == "running"
    assert api.post(f"/api/v1/scenarios/{scenario_id}/run/").status_code == 400  # already running

    _execute(scenario_id)
    status = api.get(f"/api/v1/scenarios/{scenario_id}/status/").json()
    assert status["status"] == "succeeded" and status["finished"] and status["progress"] == 1.0
    runs = {str(r.id) for r in Scenario.objects.get(pk=scenario_id).runs()}
    assert {p["run"] for p in status["platforms"]} == runs

    results = api.get(f"/api/v1/scenarios/{scenario_id}/results/").json()
    assert [s["platform"] for s in results["summary"]] == ["magnus", "aws-sydney"]
    assert all(s["results"]["makespan_p50_s"] > 0 for s in results["summary"])
    assert results["scoring"] and "figures" not in results
    with_figures = api.get(f"/api/v1/scenarios/{scenario_id}/results/?figures=true").json()
    assert with_figures["figures"]["gantt"]["data"]


def test_a_running_scenario_can_be_cancelled(api, catalogue):
    scenario_id = api.post("/api/v1/scenarios/", _scenario(run=True), format="json").json()["id"]
    response = api.post(f"/api/v1/scenarios/{scenario_id}/cancel/")
    assert response.json() == {"cancelled": 2, "status": "cancelled"}
    assert api.post(f"/api/v1/scenarios/{scenario_id}/cancel/").json() == {"cancelled": 0, "status": "cancelled"}


def test_unknown_scenarios_and_runs_are_404(api, db):
    for url in (f"/api/v1/scenarios/{uuid.uuid4()}/", f"/api/v1/scenarios/{uuid.uuid4()}/status/",
                f"/api/v1/runs/{uuid.uuid4()}/", f"/api/v1/runs/{uuid.uuid4()}/status/"):
        assert api.get(url).status_code == 404, url
    assert api.post(f"/api/v1/scenarios/{uuid.uuid4()}/run/").status_code == 404


def test_a_run_is_created_followed_and_cancelled(api, catalogue):
    response = api.post("/api/v1/runs/", {"workload": "chiles-epoch1", "platform": "aws-sydney", "replications": 2,
                                          "seed": 3, "options": {"include_copy": False}}, format="json")
    assert response.status_code == 201, response.json()
    run = response.json()
    assert run["status"] == "queued" and run["options"] == {"include_copy": False}
    assert api.get(f"/api/v1/runs/{run['id']}/status/").json() == {
        "status": "queued", "progress": 0.0, "error": "", "finished": False}
    cancelled = api.post(f"/api/v1/runs/{run['id']}/cancel/").json()
    assert cancelled["status"] == "cancelled" and cancelled["finished"]
    assert api.get("/api/v1/runs/").json()["count"] == 1


def test_a_run_finishes_with_results(api, catalogue):
    run_id = api.post("/api/v1/runs/", {"workload": "chiles-epoch1", "platform": "magnus"}, format="json").json()["id"]
    execute_replication(run_id, 0)
    body = api.get(f"/api/v1/runs/{run_id}/").json()
    assert body["status"] == "succeeded" and body["progress"] == 1.0
    assert body["results"]["makespan_p50_s"] == SimulationRun.objects.get().results["makespan_p50_s"]


def test_a_run_option_the_simulator_refuses_is_400_on_options(api, catalogue):
    response = api.post("/api/v1/runs/", {"workload": "chiles-epoch1", "platform": "magnus", "options": {
        "placements": [{"stage": "invert", "node_type": "quantum"}]}}, format="json")
    assert response.status_code == 400
    assert "quantum" in response.json()["options.placements[0].node_type"][0]
    assert not SimulationRun.objects.exists()


def test_bodies_are_json(api, catalogue):
    response = api.post("/api/v1/scenarios/", {"name": "form"}, format="multipart")
    assert response.status_code == 415
    assert not Scenario.objects.exists()


def test_pagination_refuses_an_invalid_offset_or_limit_naming_it(db, django_user_model):
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    user = django_user_model.objects.create_user("pager", password="x")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    for query in ("offset=99999999999999999999999", "limit=99999999999999999999999", "limit=0", "offset=-5",
                  "limit=abc", "limit=501", "offset=1.5", "limit=", "limit=%C2%B2"):
        response = client.get(f"/api/v1/benchmarks/?{query}")
        assert response.status_code == 400, (query, response.status_code)
        assert list(response.json()) == [query.split("=")[0]], query
    for query in ("limit=500", "offset=1000000000000", "limit=1&offset=0"):
        response = client.get(f"/api/v1/benchmarks/?{query}")
        assert response.status_code == 200 and response.json()["results"] == [], query


def test_a_per_stage_queue_wait_one_allocation_cannot_honour_is_a_400_naming_the_placement(api, catalogue):
    options = {"placements": [{"stage": "split", "queue_wait_s": 3600}, {"stage": "invert", "queue_wait_s": 60}]}
    response = api.post("/api/v1/runs/", {"workload": "chiles-epoch1", "platform": "magnus", "options": options},
                        format="json")
    assert response.status_code == 400, response.json()
    assert list(response.json()) == ["options.placements[0].queue_wait_s"]
    assert "with single_allocation" in response.json()["options.placements[0].queue_wait_s"][0]
    assert api.get("/api/v1/runs/").json()["count"] == 0
    options["single_allocation"] = False  # each stage queues on its own: both waits are honoured
    ok = api.post("/api/v1/runs/", {"workload": "chiles-epoch1", "platform": "magnus", "options": options},
                  format="json")
    assert ok.status_code == 201, ok.json()
