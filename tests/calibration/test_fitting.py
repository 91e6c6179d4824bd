"""A calibration recovers a demand from runs the model itself produced with a known value (so a wrong fit, a wrong
prediction or a wrong in-sample flag fails), refuses what it cannot fit naming the field, and stores the fitted
value into the workspace's own workload only."""

from __future__ import annotations

import pytest

from apps.accounts.workspaces import personal_workspace
from apps.calibration.fitting import create_calibration, execute_calibration
from apps.calibration.services import InvalidObservation, record_observation
from apps.platforms.models import Platform
from apps.scenarios.adapters import platform_spec, workload_spec
from apps.scenarios.validation import default_scenario
from apps.workloads.models import Workload, WorkloadStage
from apps.workloads.services import copy_workload
from simulator.model.calibration import Demand, simulated_quantity, with_demands
from simulator.model.simulate import simulate

pytestmark = pytest.mark.django_db

SOURCE = {"kind": "measurement", "host": "our cluster", "date": "2026-11-01"}
TRUE_CPU = 1700.0  # core-seconds per compute task: what the "observed" runs were made with (the catalogue has 990)


def _observed(workload, platform_slug: str, quantity: str, stage: str = "") -> float:
    spec = with_demands(workload_spec(workload), [Demand("compute.cpu_seconds")], [TRUE_CPU])
    result = simulate(default_scenario(platform_spec(Platform.objects.get(slug=platform_slug)), spec), seed=0,
                      record_utilisation=False, vary_storage=False)
    return simulated_quantity(result, quantity, stage)


@pytest.fixture
def own(catalogue, user):
    workspace = personal_workspace(user)
    workload = copy_workload(Workload.objects.get(slug="sdp-predict-p3"), workspace, user=user)
    return workspace, workload


def _record(workspace, workload, user, platform, quantity, stage="", fit=True):
    return record_observation(workspace, label=f"{quantity} on {platform}", workload=workload.slug,
                              platform=platform, quantity=quantity, stage=stage,
                              value_s=_observed(workload, platform, quantity, stage), source=SOURCE,
                              use_for_fitting=fit, user=user)


def test_it_recovers_the_demand_and_predicts_the_other_runs(own, user):
    workspace, workload = own
    fitted_to = _record(workspace, workload, user, "magnus", "stage_time", "compute")
    other = _record(workspace, workload, user, "fornax", "makespan", fit=False)
    job = create_calibration(workspace, workload.slug, [{"name": "compute.cpu_seconds", "lower": "1 s",
                                                         "upper": "3 h"}], apply=True, user=user)
    assert execute_calibration(job.pk) == "succeeded"
    job.refresh_from_db()
    (fitted,) = job.result["fitted"]
    assert fitted["name"] == "compute.cpu_seconds" and fitted["value"] == pytest.approx(TRUE_CPU, rel=1e-3)
    rows = {p["observation"]: p for p in job.result["predictions"]}
    assert rows[fitted_to.pk]["in_sample"] is True and rows[other.pk]["in_sample"] is False
    assert abs(rows[other.pk]["error_pct"]) < 0.1, rows[other.pk]
    assert rows[other.pk]["observed_s"] == pytest.approx(other.value)
    # stored into the workspace's copy, saying what it was fitted to
    assert job.applied
    stage = WorkloadStage.objects.get(workload=workload, name="compute")
    assert stage.cpu_seconds == pytest.approx(TRUE_CPU, rel=1e-3)
    assert stage.provenance["cpu_seconds"]["kind"] == "fitted"
    assert WorkloadStage.objects.get(workload__slug="sdp-predict-p3", name="compute").cpu_seconds == 990.0


def test_a_fit_the_runs_cannot_make_fails_naming_why(own, user):
    workspace, workload = own
    _record(workspace, workload, user, "magnus", "stage_time", "stage_in")  # compute CPU does not change it
    job = create_calibration(workspace, workload.slug, [{"name": "compute.cpu_seconds", "lower": 1,
                                                         "upper": 10000}], user=user)
    assert execute_calibration(job.pk) == "failed"
    job.refresh_from_db()
    assert "cannot tell" in job.error and job.result is None


@pytest.mark.parametrize(("demands", "apply", "slug", "field"), [
    ([], False, None, "demands"),
    ([{"name": "nosuch.cpu_seconds", "lower": 1, "upper": 2}], False, None, "demands"),
    ([{"name": "compute.peak_memory", "lower": 1, "upper": 2}], False, None, "demands"),
    ([{"name": "compute.cpu_seconds", "lower": 5, "upper": 2}], False, None, "demands"),
    ([{"name": "compute.cpu_seconds", "lower": "1 GB", "upper": 2}], False, None, "demands"),
    ([{"name": "compute.cpu_seconds", "lower": 1, "upper": 2, "x": 1}], False, None, "demands"),
    ([{"name": "compute.cpu_seconds", "lower": 1, "upper": 2}], True, "sdp-predict-p3", "apply"),
    ([{"name": "compute.cpu_seconds", "lower": 1, "upper": 2}], False, "no-such", "workload"),
])
def test_a_bad_request_is_refused_naming_the_field_before_anything_runs(own, user, demands, apply, slug, field):
    workspace, workload = own
    _record(workspace, workload, user, "magnus", "makespan")
    if slug == "sdp-predict-p3":
        record_observation(workspace, label="r", workload=slug, platform="magnus", quantity="makespan", value_s=60,
                           source=SOURCE, user=user)
    with pytest.raises(InvalidObservation) as refused:
        create_calibration(workspace, slug or workload.slug, demands, apply=apply, user=user)
    assert field in refused.value.errors, refused.value.errors


def test_fitting_needs_as_many_marked_runs_as_values(own, user):
    workspace, workload = own
    _record(workspace, workload, user, "magnus", "makespan", fit=False)
    with pytest.raises(InvalidObservation) as refused:
        create_calibration(workspace, workload.slug, [{"name": "compute.cpu_seconds", "lower": 1, "upper": 1e4}],
                           user=user)
    assert "marked for fitting" in refused.value.errors["workload"][0]
