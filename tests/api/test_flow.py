"""The whole API flow against a real Celery worker and the real catalogue: token -> create a scenario -> run ->
poll its status until finished -> results -> request a report -> poll it -> download it."""

from __future__ import annotations

import json
import time

import pytest
from rest_framework.test import APIClient


def _poll(client, url, timeout=240) -> dict:
    deadline = time.monotonic() + timeout
    body: dict = {}
    while time.monotonic() < deadline:
        response = client.get(url)
        assert response.status_code == 200, response.content
        body = response.json()
        if body["finished"]:
            return body
        time.sleep(0.3)
    raise AssertionError(f"{url} still {body.get('status')} at {body.get('progress')} after {timeout} s")


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_a_client_runs_a_scenario_and_downloads_its_report(celery_worker_process, user, settings):
    from apps import settings as project_settings
    from apps.workloads.catalogue import load_catalogue

    settings.MEDIA_ROOT = project_settings.MEDIA_ROOT  # the worker writes reports under the project's MEDIA_ROOT
    load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
    client = APIClient()
    token = client.post("/api/v1/auth/token/", {"username": "ada", "password": "correct horse battery"},
                        format="json").json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")

    created = client.post("/api/v1/scenarios/", {
        "name": "Pleiades vs Magnus vs AWS", "workload": "chiles-epoch1", "replications": 2, "seed": 7,
        "platforms": [{"platform": "pleiades"}, {"platform": "magnus"}, {"platform": "aws-sydney"}],
    }, format="json")
    assert created.status_code == 201, created.json()
    scenario = created.json()["id"]
    started = client.post(f"/api/v1/scenarios/{scenario}/run/")
    assert started.status_code == 202 and started.json()["status"] == "running"

    status = _poll(client, f"/api/v1/scenarios/{scenario}/status/")
    assert status["status"] == "succeeded", status
    assert status["progress"] == 1.0 and all(p["status"] == "succeeded" for p in status["platforms"])

    results = client.get(f"/api/v1/scenarios/{scenario}/results/")
    assert results.status_code == 200
    summary = {s["platform"]: s for s in results.json()["summary"]}
    assert set(summary) == {"pleiades", "magnus", "aws-sydney"}
    assert all(s["results"]["n"] == 2 for s in summary.values())
    assert results.json()["scoring"]

    requested = client.post("/api/v1/reports/", {"scenario": scenario, "format": "json"}, format="json")
    assert requested.status_code == 202, requested.json()
    report = _poll(client, requested.json()["url"])
    assert report["status"] == "succeeded", report
    assert report["progress"] == 1.0 and report["download"]
    download = client.get(report["download"])
    assert download.status_code == 200 and download["Content-Type"] == "application/json"
    assert "attachment" in download["Content-Disposition"]
    document = json.loads(b"".join(download.streaming_content))
    assert document["recommendation"]["platform"] in summary
