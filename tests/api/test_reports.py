"""Reports over the API: request (400 naming the field when refused), status, cancel, download (409 before)."""

from __future__ import annotations

import json
import uuid

import pytest

from apps.reports.models import Report
from apps.reports.services import generate_report
from apps.scenarios.services import create_demo_scenario, execute_replication, run_scenario


@pytest.fixture
def finished(catalogue, user, monkeypatch):
    from apps.scenarios import services

    monkeypatch.setattr(services, "dispatch_run", lambda run: None)
    scenario = run_scenario(create_demo_scenario(user=user))  # in ada's personal workspace
    for run in scenario.runs():
        for rep in run.replication_set.all():
            execute_replication(str(run.id), rep.index)
    return scenario


@pytest.fixture(autouse=True)
def no_dispatch(monkeypatch):
    from apps.reports import services

    monkeypatch.setattr(services, "_dispatch", lambda report, task: None)


def test_a_report_is_requested_generated_and_downloaded(api, finished):
    response = api.post("/api/v1/reports/", {"scenario": str(finished.pk), "format": "json"}, format="json")
    assert response.status_code == 202, response.json()
    report = response.json()
    assert report["status"] == "queued" and report["download"] == ""
    assert api.get(f"/api/v1/reports/{report['id']}/download/").status_code == 409

    generate_report(report["id"])
    done = api.get(f"/api/v1/reports/{report['id']}/").json()
    assert done["status"] == "succeeded" and done["finished"] and done["size_bytes"] > 0
    download = api.get(done["download"], HTTP_ACCEPT="application/pdf")
    assert download.status_code == 200
    assert json.loads(b"".join(download.streaming_content))["scenario"]


@pytest.mark.parametrize(("body", "field"), [
    ({"format": "docx"}, "format"),
    ({"scenario": str(uuid.uuid4())}, "scenario"),
    ({"scenario": "not-a-uuid"}, "scenario"),
])
def test_bad_requests_are_400_naming_the_field(api, finished, body, field):
    response = api.post("/api/v1/reports/", {"scenario": str(finished.pk), "format": "csv"} | body, format="json")
    assert response.status_code == 400
    assert list(response.json()) == [field]


def test_a_scenario_not_run_yet_cannot_be_reported(api, catalogue, user):
    draft = create_demo_scenario(user=user)
    response = api.post("/api/v1/reports/", {"scenario": str(draft.pk), "format": "csv"}, format="json")
    assert response.status_code == 400
    assert "draft" in response.json()["scenario"][0]
    assert not Report.objects.exists()


def test_a_report_can_be_cancelled_and_unknown_ones_are_404(api, finished):
    report = api.post("/api/v1/reports/", {"scenario": str(finished.pk), "format": "csv"}, format="json").json()
    assert api.post(f"/api/v1/reports/{report['id']}/cancel/").json()["status"] == "cancelled"
    assert api.get(f"/api/v1/reports/{report['id']}/download/").status_code == 409
    assert api.get(f"/api/v1/reports/{uuid.uuid4()}/").status_code == 404
