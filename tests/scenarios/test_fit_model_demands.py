"""``fit_model`` with demands: any workload's stage demand fitted to its observed runs marked for fitting, stored
with provenance "fitted"; nothing saved when the fit cannot be made."""

import pytest

from apps.platforms.models import Platform
from apps.scenarios.validation import fit_model
from apps.workloads.models import ReferenceObservation, Workload
from simulator.model.calibration import Demand

SOURCE = {"kind": "measurement", "host": "our cluster", "date": "2026-11-20"}


def _observe(workload, platform, quantity, seconds, fit="mine"):
    return ReferenceObservation.objects.create(
        key=f"{quantity}.{platform}", quantity=quantity, platform=Platform.objects.get(slug=platform),
        workload=workload, value=seconds, unit="s", base_value=seconds, source=SOURCE, fit=fit)


def test_it_fits_a_stage_demand_of_a_general_workload_and_stores_it_with_its_source(catalogue):
    w = Workload.objects.get(slug="sdp-predict-p3")
    # one compute task on a Magnus core (speed 1, CPU-bound): its stage time is its core-seconds; 22 min observed
    _observe(w, "magnus", "stage_time:compute", 1320.0)
    _observe(w, "aws-sydney", "stage_time:compute", 1500.0, fit="")  # compared only, never fitted to
    params_before = dict(w.parameters)
    (f,) = fit_model("sdp-predict-p3", [Demand("compute.cpu_seconds", 1.0, 1e6)])
    assert f.name == "compute.cpu_seconds" and f.value == pytest.approx(1320.0, rel=1e-5)
    stage = Workload.objects.get(slug="sdp-predict-p3").stages.get(name="compute")
    assert float(stage.cpu_seconds) == pytest.approx(1320.0, rel=1e-5)
    src = stage.provenance["cpu_seconds"]
    assert src["kind"] == "fitted" and src["observations"] == ["stage_time:compute.magnus"]
    assert Workload.objects.get(slug="sdp-predict-p3").parameters == params_before


def test_it_saves_nothing_when_the_fit_cannot_be_made(catalogue):
    w = Workload.objects.get(slug="sdp-predict-p3")
    before = float(w.stages.get(name="compute").cpu_seconds)
    _observe(w, "magnus", "stage_time:compute", 1320.0, fit="")  # nothing marked for fitting
    with pytest.raises(ValueError, match="at least as many observations marked"):
        fit_model("sdp-predict-p3", [Demand("compute.cpu_seconds", 1.0, 1e6)])
    with pytest.raises(ValueError, match="no stage 'nope'"):
        fit_model("sdp-predict-p3", [Demand("nope.cpu_seconds")])
    with pytest.raises(ValueError, match="name the demands to fit"):
        fit_model("sdp-predict-p3")
    assert float(w.stages.get(name="compute").cpu_seconds) == before
