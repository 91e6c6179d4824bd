"""``fit_model`` with demands: any workload's stage demand fitted to its observed runs marked for fitting, stored
with provenance "fitted"; nothing saved when the fit cannot be made."""

import json

import pytest

from apps.platforms.models import Platform
from apps.scenarios.validation import fit_model, write_fitted_to_fixtures
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


def test_the_invert_cpu_split_of_the_chiles_record_refits_to_its_stored_values(catalogue, settings, tmp_path):
    """With no demands named, a workload with observations marked ``invert_cpu`` gets the INVERT CPU split fitted:
    its invert task's serial and parallel phases (over all its days), stored in the stages' facts in the database
    and, with ``--write-fixtures``, in the catalogue file."""
    w = Workload.objects.get(slug="chiles-epoch1")
    before = {st.name: float(st.cpu_seconds) for st in w.stages.filter(name__startswith="invert_grid")}
    fitted = fit_model("chiles-epoch1")
    assert [f.name for f in fitted] == ["invert_grid_serial.cpu_seconds", "invert_grid_parallel.cpu_seconds"]
    assert {f.observations for f in fitted} == {("invert_single_time.aws-sydney", "invert_single_time.magnus")}
    for st in Workload.objects.get(slug="chiles-epoch1").stages.filter(name__startswith="invert_grid"):
        assert float(st.cpu_seconds) == pytest.approx(before[st.name], rel=1e-5)
        assert st.provenance["cpu_seconds"]["kind"] == "fitted"
    (tmp_path / "workloads.json").write_text((settings.BASE_DIR / "fixtures" / "catalogue" / "workloads.json").read_text())
    write_fitted_to_fixtures(tmp_path, "chiles-epoch1", fitted)
    written = {s["name"]: s["facts"] for s in json.loads((tmp_path / "workloads.json").read_text())["workloads"][0][
        "stages"]}
    assert written["invert_grid_serial"]["cpu_seconds"]["value"] == fitted[0].value
    assert written["invert_grid_parallel"]["cpu_seconds"]["source"]["kind"] == "fitted"
