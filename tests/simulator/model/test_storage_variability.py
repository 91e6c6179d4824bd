"""Storage performance varies per task in Monte Carlo replications, calibrated on seed 000's measured scatter."""

import dataclasses
from pathlib import Path

import pytest

from simulator.model.calibration import fit_storage_cv, work_unit_spread, work_unit_time
from simulator.model.catalogue import load_catalogue, platform_from_dict

CATALOGUE = Path(__file__).resolve().parents[3] / "fixtures" / "catalogue"
LUSTRE = "Sonexion Lustre scratch"


@pytest.fixture(scope="module")
def shipped():
    return load_catalogue(CATALOGUE)


def test_magnus_invert_work_units_scatter_as_published_and_the_catalogue_keeps_the_fitted_value(shipped):
    platforms, workloads, observations = shipped
    magnus, chiles = platforms["magnus"], workloads["chiles-epoch1"]
    published = next(o for o in observations if o.key == "invert_single_time.magnus")
    assert published.scatter == pytest.approx(877.0)
    cv = next(t for t in magnus.storage if t.name == LUSTRE).performance_cv
    assert cv == pytest.approx(fit_storage_cv(magnus, chiles, published, LUSTRE), abs=2e-3)
    mean, sd = work_unit_spread(magnus, chiles, "invert", cv, LUSTRE)
    assert sd == pytest.approx(877.0, rel=0.02)
    # the factor has mean 1: the replications centre on the expected run validation compares with
    assert mean == pytest.approx(work_unit_time(magnus, chiles, "invert")[0], rel=0.03)


def test_without_a_coefficient_of_variation_replications_do_not_differ(shipped):
    platforms, workloads, _ = shipped
    _, sd = work_unit_spread(platforms["magnus"], workloads["chiles-epoch1"], "invert", 0.0, LUSTRE, replications=5)
    assert sd == 0.0


def test_a_coefficient_of_variation_out_of_range_is_refused_naming_the_tier():
    tier = {"name": "scratch", "kind": "parallel_fs", "facts": {
        "read_bw": {"value": 1, "unit": "GB/s"}, "performance_cv": {"value": -0.1, "unit": ""}}}
    d = {"slug": "p", "name": "p", "kind": "hpc", "facts": {}, "node_types": [{"name": "n", "facts": {
        "cores": {"value": 4, "unit": ""}, "count": {"value": 2, "unit": ""}}}], "storage_tiers": [tier]}
    with pytest.raises(ValueError, match="storage tier 'scratch': performance_cv must be between 0"):
        platform_from_dict(d)
    tier["facts"]["performance_cv"]["value"] = 0.3
    assert dataclasses.asdict(platform_from_dict(d))["storage"][0]["performance_cv"] == 0.3
