"""Calibrations over the API on a real Celery worker: one fits and answers every observation's prediction; a long
one is cancelled mid-fit and its task stops by itself (the fitter's progress callback raises), saving nothing."""

from __future__ import annotations

import pytest
from celery.result import AsyncResult
from worker_processes import wait_for

from apps.accounts.workspaces import personal_workspace
from apps.calibration.models import CalibrationJob
from apps.calibration.services import record_observation
from apps.workloads.models import Workload, WorkloadStage
from apps.workloads.services import copy_workload

SOURCE = {"kind": "paper", "title": "Our pipeline's run log", "where": "Table 1"}


@pytest.fixture
def own(catalogue, user):
    return copy_workload(Workload.objects.get(slug="sdp-predict-p3"), personal_workspace(user), user=user)


def _observe(api, workload, platform, quantity, value, stage="", fit=True):
    response = api.post("/api/v1/observations/", {
        "label": f"{quantity} on {platform}", "workload": workload.slug, "platform": platform, "quantity": quantity,
        "stage": stage, "value": value, "source": SOURCE, "use_for_fitting": fit}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def _finished(api, job_id):
    body = api.get(f"/api/v1/calibrations/{job_id}/").json()
    return body if body["finished"] else None


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_a_worker_fits_and_answers_every_observations_prediction(celery_worker_process, api, own):
    fitted_to = _observe(api, own, "magnus", "stage_time", "40 min", stage="compute")
    other = _observe(api, own, "fornax", "makespan", "3 h", fit=False)
    response = api.post("/api/v1/calibrations/", {"workload": own.slug, "apply": True, "demands": [
        {"name": "compute.cpu_seconds", "lower": "1 s", "upper": "10 h"}]}, format="json")
    assert response.status_code == 202, response.content
    body = wait_for(lambda: _finished(api, response.json()["id"]), 120, "the calibration to finish")
    assert body["status"] == "succeeded", body["error"]
    assert body["applied"] and body["progress"] == 1.0
    (fitted,) = body["result"]["fitted"]
    rows = {p["observation"]: p for p in body["result"]["predictions"]}
    assert rows[fitted_to]["in_sample"] and not rows[other]["in_sample"]
    # fitted to the one stage time: it reproduces it; the other run is predicted, its error reported as it is
    assert rows[fitted_to]["predicted_s"] == pytest.approx(2400.0, rel=1e-3)
    assert rows[other]["predicted_s"] > 0 and rows[other]["error_pct"] == pytest.approx(
        100 * (rows[other]["predicted_s"] - 10800.0) / 10800.0)
    assert WorkloadStage.objects.get(workload=own, name="compute").cpu_seconds == pytest.approx(fitted["value"])


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_a_cancelled_calibration_stops_on_the_worker_and_saves_nothing(celery_worker_process, api, user, own):
    workspace = personal_workspace(user)
    for i in range(40):  # 40 marked runs: each of the fit's simulations rounds is 40 simulations
        record_observation(workspace, label=f"run {i}", workload=own.slug, platform="magnus", quantity="makespan",
                           value_s=3600.0 + i, source=SOURCE, user=user)
    response = api.post("/api/v1/calibrations/", {"workload": own.slug, "apply": True, "demands": [
        {"name": "compute.cpu_seconds", "lower": 1, "upper": 36000}]}, format="json")
    job_id = response.json()["id"]
    wait_for(lambda: CalibrationJob.objects.get(pk=job_id).progress > 0, 120, "the fit to report progress")
    cancelled = api.post(f"/api/v1/calibrations/{job_id}/cancel/")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    job = CalibrationJob.objects.get(pk=job_id)
    # the task ends by itself, answering the job's status (a terminated task would not return)
    assert AsyncResult(job.task_id).get(timeout=60) == "cancelled"
    job.refresh_from_db()
    assert job.status == "cancelled" and job.result is None and not job.applied
    # it stopped inside the fit (the progress callback raised), not after finishing it
    log = celery_worker_process["log"].read_text(errors="replace")
    assert f"calibration {job_id} stopped during the fit" in log
    assert WorkloadStage.objects.get(workload=own, name="compute").cpu_seconds == 990.0
