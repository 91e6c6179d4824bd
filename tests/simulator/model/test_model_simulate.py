"""simulate / replicate / summarise, the fit and the validation of the paper's scenarios, and what the model
refuses, all on the shipped catalogue (through the one conversion) or on small specs built here."""

import dataclasses
import json
from pathlib import Path

import pytest

from simulator.model.calibration import fit_invert_cpu, split_instance_time
from simulator.model.catalogue import platform_from_dict
from simulator.model.simulate import replicate, replication_seed, simulate, summarise
from simulator.model.specs import ScenarioSpec, StagePlacement
from simulator.model.validation import validate

CATALOGUE = Path(__file__).resolve().parents[3] / "fixtures" / "catalogue"


@pytest.fixture(scope="module")
def rows(specs):
    platforms, workloads, observations = specs
    # the observations the shipped fitted values were fitted to, as their provenance in the catalogue says
    shipped = json.loads((CATALOGUE / "workloads.json").read_text())["workloads"]
    record = next(w for w in shipped if w["slug"] == "chiles-epoch1")
    values = [*record["parameters"].values(), *(f for st in record["stages"] for f in st["facts"].values())]
    fitted_from = {key for v in values if v["source"].get("kind") == "fitted"
                   for key in v["source"].get("observations", ())}
    # ... and those the platforms' fitted facts were fitted to (the object store's rate, Magnus' storage scatter)
    shipped_platforms = json.loads((CATALOGUE / "platforms.json").read_text())["platforms"]
    fitted_from |= {key for p in shipped_platforms for e in (p, *p.get("node_types", ()), *p.get("storage_tiers", ()))
                    for fact in e.get("facts", {}).values() if isinstance(fact, dict)
                    and (fact.get("source") or {}).get("kind") == "fitted" for key in fact["source"].get("observations", ())}
    return {(r.quantity, r.platform): r
            for r in validate(platforms, workloads["chiles-epoch1"], observations, fitted_from=fitted_from)}


def test_it_returns_a_json_serialisable_result_with_progress(platforms, chiles):
    seen = []
    sc = ScenarioSpec(platform=platforms["aws-sydney"], workload=chiles)
    r = simulate(sc, progress=lambda d, t: seen.append((d, t)))
    json.dumps(dataclasses.asdict(r))
    assert seen[0] == (0, 4) and seen[-1] == (4, 4)
    assert {s.stage for s in r.stages} == {"copy", "split", "invert", "concat"}
    assert r.total_cost_aud == pytest.approx(sum(c.aud for c in r.cost_lines))
    assert r.tasks and all(t.end_s >= t.start_s for t in r.tasks)


def test_it_replicates_deterministically_with_independent_seeds(platforms, chiles):
    sc = ScenarioSpec(platform=platforms["magnus"], workload=chiles, include_copy=False)
    a = replicate(sc, 5, 1)
    b = replicate(sc, 5, 1)
    c = replicate(sc, 5, 2)
    assert a.makespan_s == b.makespan_s and a.queue_wait_s == b.queue_wait_s
    assert a.queue_wait_s != c.queue_wait_s  # the queue wait is drawn per replication
    assert replication_seed(5, 1) != replication_seed(5, 2) == replication_seed(5, 2)
    s = summarise([a, b, c])
    assert s.n == 3 and s.makespan_p10_s <= s.makespan_p50_s <= s.makespan_p90_s


def test_it_reruns_interrupted_spot_tasks(platforms, chiles):
    sc = ScenarioSpec(platform=platforms["aws-sydney"], workload=chiles,
                      spot_interruptions=True, spot_interruption_rate_per_hour=0.2)
    base = simulate(dataclasses.replace(sc, spot_interruptions=False), record_utilisation=False)
    r = simulate(sc, record_utilisation=False)
    assert r.notes and r.node_hours_used > base.node_hours_used


def test_each_single_invert_time_is_predicted_by_a_fit_to_the_other_platforms_where_they_identify_it(rows, specs):
    marked = {(o.quantity, o.platform) for o in specs[2] if o.fit}
    assert marked == {("invert_single_time", "aws-sydney"), ("invert_single_time", "magnus")}
    # AWS: refitted to Magnus (1 thread) + Pleiades (4 threads), so a prediction, no longer reproduced exactly
    aws = rows[("invert_single_time", "aws-sydney")]
    assert not aws.in_sample and abs(aws.error_pct) > 1.0 and "refitted without this platform" in aws.assumptions
    # Magnus: AWS and Pleiades both run 4 threads and cannot separate serial from parallel CPU: the catalogue's fit
    # (which used Magnus) stands, and the row says it is in sample
    magnus = rows[("invert_single_time", "magnus")]
    assert magnus.in_sample and abs(magnus.error_pct) < 0.01 and "cannot separate" in magnus.assumptions
    # in sample besides: the queue wait's median and Pleiades' price (inputs), the INVERT staging time (the object
    # store's rate is fitted to it) and the INVERT scaling exponents (the CPU law's parameters)
    exponents = {(q, slug) for q in ("invert_time_visibility_exponent", "invert_time_channel_exponent")
                 for slug in ("aws-sydney", "magnus", "pleiades")}
    assert {k for k, r in rows.items() if r.in_sample} == {
        ("invert_single_time", "magnus"), ("queue_wait", "magnus"), ("capital_cost", "pleiades"),
        ("invert_s3_transfer_time", "aws-sydney"), ("parallel_vs_sequential", "pleiades")} | exponents
    assert not rows[("capital_cost", "magnus")].in_sample and not rows[("invert_speedup_vs_magnus", "aws-sydney")].in_sample


def test_the_catalogue_keeps_the_values_a_refit_gives(specs, chiles):
    platforms, _, observations = specs
    fitted = {f.name: f for f in fit_invert_cpu(platforms, chiles, observations)}
    for name in ("invert_grid_serial.cpu_seconds", "invert_grid_parallel.cpu_seconds"):
        assert chiles.stage(name.split(".")[0]).cpu_seconds == pytest.approx(fitted[name].value, rel=1e-6)
        assert fitted[name].observations == ("invert_single_time.aws-sydney", "invert_single_time.magnus")


def test_the_fit_needs_two_marked_observations(specs, chiles):
    platforms, _, observations = specs
    one = [o if o.platform != "magnus" else dataclasses.replace(o, fit="") for o in observations]
    with pytest.raises(ValueError, match="needs two single INVERT times"):
        fit_invert_cpu(platforms, chiles, one)


def test_it_predicts_the_out_of_sample_rows_it_met_before_the_fit_moved_to_the_catalogue(rows):
    for key in [("split_single_time", "magnus"), ("split_single_time", "pleiades"),
                ("invert_single_time", "pleiades"), ("epoch_run_time", "aws-sydney"),
                ("sequential_estimate", "pleiades"), ("compute_hours", "aws-sydney"), ("s3_cost", "aws-sydney")]:
        assert rows[key].met, rows[key]
        assert not rows[key].in_sample
    # met, but made true by the NFS volume's degradation exponent, chosen so that it holds: in sample
    parallel = rows[("parallel_vs_sequential", "pleiades")]
    assert parallel.simulated > 1.0 and parallel.in_sample and parallel.observation == "parallel_run_completed.pleiades"


def test_it_explains_every_missed_target(rows):
    assert len(rows) == 31
    for row in rows.values():
        assert row.simulated == row.simulated  # not NaN
        if not row.met:
            assert len(row.explanation) > 40, row


def test_one_split_instance_of_a_large_day_reads_its_sub_bands_one_after_the_other_at_its_volume_rate(rows, platforms,
                                                                                                         chiles):
    # §5.2.2 "The 700GB MeasurementSets could take an hour to process": the epoch's own SPLIT instance for such a day,
    # by hand: each of its sub-bands reads the selection and flag-table phases (scaled with the day) and its 32 MHz
    # window, at the Provisioned IOPS volume's rate
    row = rows[("split_instance_time", "aws-sydney")]
    aws = platforms["aws-sydney"]
    day = float(chiles.param("split_instance_day_size"))
    phases = [chiles.stage(s) for s in ("split", "split_flag")]
    reads = sum(io.read_bytes for st in phases for io in st.role_io() if io.role == "input")
    per_subband = (reads * day / chiles.stage("split").size_reference
                   + day * float(chiles.param("spw_width")) / float(chiles.param("bandwidth")))
    volume = aws.storage_tier(kind="block_piops").read_bytes_per_s
    subbands = int(chiles.stage("split").cloud_items_per_task)
    assert row.simulated == pytest.approx(subbands * per_subband / volume / 3600.0, rel=0.02)
    assert "EBS Provisioned IOPS" in row.assumptions and not row.in_sample
    # reported as it falls: about twice the published hour, out of sample
    assert row.published == 1.0 and not row.met and row.error_pct > 50.0
    assert split_instance_time(platforms["magnus"], chiles, day) is None


def test_a_cluster_runs_on_its_compute_partition_not_its_data_transfer_node(platforms):
    assert platforms["pleiades"].node_type().name == "x5650-compute"
    assert platforms["aws-sydney"].node_type().name == platforms["aws-sydney"].node_types[0].name


def _tier(**facts):
    src = {"kind": "assumption", "reason": "test"}
    return {"name": "raid", "kind": "nfs_raid", "facts": {k: {"value": v, "unit": "", "source": src}
                                                          for k, v in facts.items()}}


@pytest.mark.parametrize("facts, message", [
    ({"degrade_after_streams": 1, "degrade_exponent": -0.5}, "degrade_exponent must be 0 .* or more"),
    ({"degrade_exponent": 1.5}, "degrade_exponent is 1.5 but degrade_after_streams is not set"),
    ({"degrade_after_streams": 0, "degrade_exponent": 1.0}, "degrade_after_streams must be at least 1"),
])
def test_a_degradation_the_engine_cannot_apply_is_refused_naming_the_tier(facts, message):
    d = {"slug": "x", "name": "X", "kind": "cluster", "storage_tiers": [_tier(**facts)]}
    with pytest.raises(ValueError, match=f"storage tier 'raid': {message}"):
        platform_from_dict(d)


def test_an_exponent_of_zero_means_no_degradation_and_is_kept():
    p = platform_from_dict({"slug": "x", "name": "X", "kind": "cluster",
                            "storage_tiers": [_tier(degrade_after_streams=1, degrade_exponent=0)]})
    assert p.storage[0].degrade_exponent == 0.0


def test_a_per_stage_queue_wait_one_allocation_cannot_honour_is_refused(platforms, chiles):
    p = platforms["magnus"]
    t = p.storage[0].name

    def sc(waits, single=True):
        pls = tuple(StagePlacement(s, None, 2, t, t, "node_hour", "static", queue_wait_s=w)
                    for s, w in zip(("split", "invert", "concat"), waits, strict=True))
        return ScenarioSpec(platform=p, workload=chiles, placements=pls, include_copy=False, single_allocation=single)

    with pytest.raises(ValueError, match=r"placements\[\d\]\.queue_wait_s: with single_allocation"):
        simulate(sc((3600.0, None, None)))
    assert simulate(sc((3600.0,) * 3), record_utilisation=False).queue_wait_s == 3600.0
    per_stage = simulate(sc((3600.0, 7200.0, 0.0), single=False), record_utilisation=False)
    assert per_stage.queue_wait_s == 7200.0  # each stage queued on its own; the longest is reported
    cloud = ScenarioSpec(platform=platforms["aws-sydney"], workload=chiles, placements=(
        StagePlacement("invert", "r3.4xlarge", 1, None, None, "spot", "elastic", queue_wait_s=60.0),))
    with pytest.raises(ValueError, match="do not queue"):
        simulate(cloud)
