"""Benchmarks over the API: dispatch a predefined kind to the platform's queue, status, results; bounded input."""

from __future__ import annotations

import uuid

import pytest

from apps.benchmarks.models import BenchmarkRun
from apps.benchmarks.services import execute

SENT = []


@pytest.fixture(autouse=True)
def no_dispatch(monkeypatch):
    from apps.benchmarks import services

    SENT.clear()
    monkeypatch.setattr(services, "dispatch", lambda run: SENT.append(run.queue))


def test_a_benchmark_goes_to_the_platforms_queue_and_reports_its_results(api, catalogue):
    response = api.post("/api/v1/benchmarks/", {"platform": "magnus", "kind": "cpu", "parameters": {"seconds": 1}},
                        format="json")
    assert response.status_code == 202, response.json()
    run = response.json()
    assert run["queue"] == "bench.magnus" == SENT[0]
    assert run["parameters"] == {"seconds": 1} and run["status"] == "queued"
    assert api.get(f"/api/v1/benchmarks/{run['id']}/results/").status_code == 409

    execute(run["id"])  # what the worker on bench.magnus does
    status = api.get(f"/api/v1/benchmarks/{run['id']}/status/").json()
    assert status == {"status": "succeeded", "progress": 1.0, "error": "", "finished": True}
    results = api.get(f"/api/v1/benchmarks/{run['id']}/results/").json()
    names = {v["name"] for v in results["measured_values"]}
    assert "grid_vis_per_s" in names
    assert all(v["source"]["kind"] == "measurement" for v in results["measured_values"])
    assert results["host"]["hostname"]


@pytest.mark.parametrize(("body", "field", "words"), [
    ({"platform": "magnus", "kind": "shell"}, "kind", "not a valid choice"),
    ({"platform": "atlantis", "kind": "cpu"}, "platform", "does not exist"),
    ({"platform": "magnus", "kind": "cpu", "parameters": {"seconds": 999}}, "parameters", "less than or equal"),
    ({"platform": "magnus", "kind": "cpu", "parameters": {"command": "rm -rf /"}}, "parameters", "unknown field"),
    ({"platform": "magnus", "kind": "cpu", "parameters": {"size_mb": 64}}, "parameters", "unknown size_mb"),
    ({"platform": "magnus", "kind": "storage", "parameters": {"directory": "relative/dir"}}, "parameters",
     "absolute path"),
])
def test_bad_requests_are_400_naming_the_field(api, catalogue, body, field, words):
    response = api.post("/api/v1/benchmarks/", body, format="json")
    assert response.status_code == 400
    assert list(response.json()) == [field] and words in str(response.json()), response.json()
    assert not BenchmarkRun.objects.exists() and not SENT


def test_a_benchmark_can_be_cancelled_and_unknown_ids_are_404(api, catalogue):
    run = api.post("/api/v1/benchmarks/", {"platform": "magnus", "kind": "cpu"}, format="json").json()
    assert api.post(f"/api/v1/benchmarks/{run['id']}/cancel/").json()["status"] == "cancelled"
    assert api.get(f"/api/v1/benchmarks/{run['id']}/results/").json()["status"] == "cancelled"
    assert api.get(f"/api/v1/benchmarks/{uuid.uuid4()}/").status_code == 404
