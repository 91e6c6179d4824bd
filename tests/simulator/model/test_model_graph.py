"""The CHILES graph's structure (data of the general model), catalogue conversion and generic templates."""

import dataclasses
import json
import math

import pytest

from simulator.model.catalogue import fact_value, platform_from_dict, workload_from_dict
from simulator.model.custom_dag import build_custom_dag
from simulator.model.job_array import build_job_array
from simulator.model.simulate import build
from simulator.model.specs import ScenarioSpec, StagePlacement, StageSpec, WorkloadSpec
from simulator.model.stages import size_factors


def _counts(graph):
    out = {}
    for t in graph.tasks:
        out[t.stage] = out.get(t.stage, 0) + 1
    return out


def test_it_builds_the_chiles_graph_with_one_task_per_day_subband_and_group(platforms, chiles):
    w = chiles
    p = platforms["magnus"]
    b = build(ScenarioSpec(platform=p, workload=w, include_copy=True))
    c = _counts(b.graph)
    assert w.param("n_subbands") == 120
    assert c["copy"] == 42 and c["split"] == 42  # a day's sub-bands in one task off the cloud
    assert c["invert"] == 120
    assert c["concat"] == math.ceil(120 / 12) == w.stage("concat").n_tasks == 10
    assert c["barrier:split"] == 1
    barrier = next(t for t in b.graph.tasks if t.stage == "barrier:split")
    assert barrier.pool is None and barrier.phases == ()
    assert sorted(barrier.deps) == sorted(t.id for t in b.graph.tasks if t.stage == "split")
    for t in b.graph.tasks:
        if t.stage == "invert":
            assert t.deps == (barrier.id,)
            assert t.cores == 1  # Magnus: one usable thread under SLURM
            assert [ph.name for ph in t.phases][1:] == ["invert_grid_serial", "invert_grid_parallel",
                                                        "invert_deconvolve", "invert_finalise"]
    # static work-units cycle over the 44 nodes
    inv = [t for t in b.graph.tasks if t.stage == "invert"]
    assert inv[44].slot == 0 and inv[45].slot == 1


def test_it_splits_cloud_days_into_chunks_of_subbands(platforms, chiles):
    w = chiles
    p = platforms["aws-sydney"]
    b = build(ScenarioSpec(platform=p, workload=w))
    c = _counts(b.graph)
    assert c["split"] == 42 * 30  # 4 sub-bands per instance (§5.2.2)
    assert c["invert"] == 120 and c["concat"] == 10 and c["copy"] == 42
    names = {r.name for r in b.graph.resources}
    assert "wan" in names and "EBS Provisioned IOPS (SSD)@{node}" in names
    assert "Instance store (ephemeral SSD):iops@{node}" in names
    inv = next(t for t in b.graph.tasks if t.stage == "invert")
    assert "stage_in" in [ph.name for ph in inv.phases] and inv.cores == 4


def test_it_spreads_day_sizes_with_the_published_mean_min_and_max(chiles):
    st = chiles.stage("copy")
    xs = [f * st.size_reference for f in size_factors(st, 42, seed=0)]
    assert len(xs) == 42
    assert min(xs) == pytest.approx(45e9)
    assert max(xs) == pytest.approx(803e9)
    assert sum(xs) / 42 == pytest.approx(330e9, rel=1e-6)


def test_it_converts_catalogue_facts_to_base_units_and_tolerates_nulls():
    src = {"kind": "seed", "file": "000", "where": "x"}
    d = {"slug": "x", "name": "X", "kind": "hpc_centre",
         "facts": {"wan_bandwidth": {"value": 10, "unit": "Gb/s", "source": src},
                   "node_hour_rate": {"value": 0.67, "unit": "AUD/node-hour", "source": src},
                   "queue_wait_median": {"value": 170, "unit": "h", "source": src},
                   "queue_wait_model": {"value": "lognormal", "unit": "", "source": src},
                   "usable_threads_per_task": {"value": None, "unit": "", "source": src}},
         "node_types": [{"name": "n", "facts": {"cores": {"value": 24, "unit": "", "source": src},
                                                "memory": {"value": 64, "unit": "GB", "source": src}}}],
         "storage_tiers": [{"name": "lustre", "kind": "parallel_fs",
                            "facts": {"read_bw": {"value": 70, "unit": "GB/s", "source": src},
                                      "iops": {"value": None, "unit": "IOPS", "source": src}}}]}
    p = platform_from_dict(d)
    assert p.wan.bytes_per_s == pytest.approx(1.25e9)
    assert p.pricing.node_hour_aud == 0.67
    assert p.scheduler.queue_wait.median_seconds == 170 * 3600
    assert p.scheduler.usable_threads_per_task is None
    assert p.node_types[0].memory_bytes == 64e9
    assert p.storage[0].read_bytes_per_s == 70e9 and p.storage[0].iops is None
    assert fact_value({"a": {"value": [1, 2], "unit": "h"}}, "a") == (3600.0, 7200.0)
    w = workload_from_dict({"slug": "w", "template": "custom_dag",
                            "parameters": {"n_days": {"value": 42, "unit": ""}},
                            "stages": [{"name": "a", "facts": {"cpu_seconds": {"value": 2, "unit": "min"},
                                                               "peak_memory": {"value": 1, "unit": "GB"}}}]})
    assert w.parameters["n_days"] == 42 and w.stages[0].cpu_seconds == 120.0
    assert w.stages[0].peak_memory_bytes == 1e9


def test_it_wires_custom_dags_one_to_one_or_through_barriers(platforms):
    p = platforms["magnus"]
    w = WorkloadSpec("d", template="custom_dag", stages=(
        StageSpec("a", cpu_seconds=1, n_tasks=3), StageSpec("b", cpu_seconds=1, n_tasks=3, depends_on=("a",)),
        StageSpec("c", cpu_seconds=1, n_tasks=1, depends_on=("b",))))
    pls = tuple(StagePlacement(s, None, 2, "Sonexion Lustre scratch", None, "node_hour", "dynamic") for s in "abc")
    g = build_custom_dag(ScenarioSpec(platform=p, workload=w, placements=pls)).graph
    a = [t for t in g.tasks if t.stage == "a"]
    b = [t for t in g.tasks if t.stage == "b"]
    assert [t.deps for t in b] == [(a[i].id,) for i in range(3)]
    barrier = next(t for t in g.tasks if t.stage == "barrier:b")
    c = next(t for t in g.tasks if t.stage == "c")
    assert c.deps == (barrier.id,) and sorted(barrier.deps) == [t.id for t in b]


def test_a_job_array_runs_every_stage_chained_one_to_one(platforms):
    p = platforms["aws-sydney"]
    w = WorkloadSpec("j", template="job_array", parameters={"n_jobs": 5},
                     stages=(StageSpec("in", seq_read_bytes=1e9), StageSpec("run", cpu_seconds=10),
                             StageSpec("out", seq_write_bytes=1e8)))
    pls = tuple(StagePlacement(s, "m3.xlarge", 2, "S3 Reduced Redundancy", "S3 Reduced Redundancy", "spot", "elastic")
                for s in ("in", "run", "out"))
    g = build_job_array(ScenarioSpec(platform=p, workload=w, placements=pls)).graph
    assert _counts(g) == {"in": 5, "run": 5, "out": 5}
    ins = [t for t in g.tasks if t.stage == "in"]
    runs = [t for t in g.tasks if t.stage == "run"]
    assert [t.deps for t in runs] == [(ins[i].id,) for i in range(5)]
    assert len(g.pools) == 1 and g.pools[0].policy == "elastic" and g.pools[0].nodes == 2
    json.dumps(dataclasses.asdict(g))
