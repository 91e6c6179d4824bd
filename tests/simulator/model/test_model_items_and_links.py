"""The general model's task sizes known by mean, min and max (``spread``), stages whose tasks' work comes in items
split into chunks (``work_items`` and a placement's items per task), a stage's tasks assigned a priori to the nodes
of a static pool, and stages bringing data in over the WAN (``link``), with expectations derived by hand from the
catalogue's facts (Magnus: Lustre 125 MB/s per client for writes, WAN 1.25 GB/s; AWS: WAN 125 MB/s)."""

import pytest

from simulator.model.simulate import simulate
from simulator.model.specs import RoleIO, ScenarioSpec, StagePlacement, StageSpec, WorkloadSpec
from simulator.model.stages import build_stages, check_workload, size_factors

LUSTRE = "Sonexion Lustre scratch"
GB = 1e9


def _scenario(platform, stages, placements=(), parameters=None, **kw):
    w = WorkloadSpec("w", template="stages", parameters=parameters or {}, stages=tuple(stages))
    return ScenarioSpec(platform=platform, workload=w, placements=tuple(placements), **kw)


def test_spread_sizes_have_the_given_mean_min_and_max_over_the_reference():
    st = StageSpec("s", size_distribution="spread", size_mean=330 * GB, size_min=45 * GB, size_max=803 * GB,
                   size_reference=400 * GB)
    f = size_factors(st, 42, seed=0)
    assert sum(f) / 42 * 400 == pytest.approx(330)
    assert (f[0], f[1]) == pytest.approx((803 / 400, 45 / 400))  # largest, smallest, next largest, ...
    assert f[2] > f[4] > f[3] and max(f) == f[0] and min(f) == f[1]
    assert size_factors(st, 1, seed=0) == [pytest.approx(330 / 400)]
    no_reference = StageSpec("s", size_distribution="spread", size_mean=2.0, size_min=1.0, size_max=4.0)
    assert sum(size_factors(no_reference, 5, seed=0)) == pytest.approx(5)  # multipliers of mean 1


@pytest.mark.parametrize("facts, message", [
    ({"size_min": 1.0, "size_max": 4.0}, "spread sizes need size_mean"),
    ({"size_mean": 5.0, "size_min": 1.0, "size_max": 4.0}, "size_mean 5 is not between size_min 1 and size_max 4"),
])
def test_spread_sizes_without_a_mean_inside_the_range_are_refused(facts, message):
    with pytest.raises(ValueError, match=message):
        size_factors(StageSpec("s", size_distribution="spread", **facts), 3, seed=0)


def test_a_stages_work_items_are_split_into_tasks_of_the_placements_items_per_task(platforms):
    p = platforms["magnus"]
    stages = [StageSpec("fetch", tasks_per="days", cpu_seconds=1.0),
              StageSpec("cut", tasks_per="days", work_items="bands", cpu_seconds=2.0, depends_on=("fetch",),
                        dependency="one_to_one")]
    params = {"days": 2, "bands": 10}
    g = build_stages(_scenario(p, stages, parameters=params)).graph
    cut = [t for t in g.tasks if t.stage == "cut"]
    assert [t.phases[0].cpu_seconds for t in cut] == [20.0, 20.0]  # every item of a day in one task
    pl = StagePlacement("cut", None, 3, LUSTRE, policy="dynamic", subbands_per_task=4)
    g = build_stages(_scenario(p, stages, (pl,), parameters=params)).graph
    fetch = [t.id for t in g.tasks if t.stage == "fetch"]
    cut = [t for t in g.tasks if t.stage == "cut"]
    assert [t.phases[0].cpu_seconds for t in cut] == [8.0, 8.0, 4.0] * 2  # 4 + 4 + 2 items a day
    assert [t.deps for t in cut] == [(fetch[0],)] * 3 + [(fetch[1],)] * 3  # each chunk waits for its own day


def test_each_stage_assigns_its_tasks_to_the_nodes_of_a_static_pool_in_turn(platforms):
    stages = [StageSpec("a", n_tasks=3, cpu_seconds=1.0), StageSpec("b", n_tasks=2, cpu_seconds=1.0,
                                                                    depends_on=("a",))]
    pls = [StagePlacement(s, "xc40-compute", 2, LUSTRE, LUSTRE, "node_hour", "static", queue_wait_s=0.0)
           for s in ("a", "b")]
    g = build_stages(_scenario(platforms["magnus"], stages, pls)).graph
    assert len(g.pools) == 1  # one allocation shared by both stages
    assert [(t.stage, t.slot) for t in g.tasks if t.pool] == [("a", 0), ("a", 1), ("a", 0), ("b", 0), ("b", 1)]


def test_on_a_cluster_a_stage_over_the_wan_runs_on_the_unbilled_data_transfer_node(platforms):
    p = platforms["magnus"]
    copy = StageSpec("copy", n_tasks=2, link="wan", io=(RoleIO("output", write_bytes=1 * GB),))
    work = StageSpec("work", n_tasks=2, cpu_seconds=10.0, depends_on=("copy",), dependency="one_to_one")
    pls = [StagePlacement(s, "xc40-compute", 2, LUSTRE, LUSTRE, "node_hour", "static",
                          queue_wait_s=None if s == "copy" else 0.0) for s in ("copy", "work")]
    r = simulate(_scenario(p, [copy, work], pls), vary_storage=False, record_utilisation=False)
    copies = [t for t in r.tasks if t.stage == "copy"]
    assert {t.pool for t in copies} == {"dtn"}
    # one node, one day after the other, each at Lustre's 125 MB/s per client (the 1.25 GB/s WAN is not the bound)
    assert [x for t in copies for x in (t.start_s, t.end_s)] == pytest.approx([0, 8, 8, 16])
    assert r.makespan_s == pytest.approx(8 + 8 + 10)
    # the dtn is not billed; the allocation's 2 nodes are, from its first task (8 s) to its last (26 s)
    (line,) = [c for c in r.cost_lines if c.category == "compute"]
    assert line.quantity == pytest.approx(2 * (26 - 8) / 3600)


def test_on_the_cloud_a_stage_over_the_wan_writes_fresh_volumes_at_the_links_rate_and_keeps_snapshots(platforms):
    p = platforms["aws-sydney"]
    piops = "EBS Provisioned IOPS (SSD)"
    copy = StageSpec("copy", n_tasks=2, link="wan", io=(RoleIO("output", write_bytes=1 * GB),))
    pl = StagePlacement("copy", "m3.medium", 2, None, piops, "on_demand", "dynamic")
    sc = _scenario(p, [copy], (pl,), seed=0)
    built = build_stages(sc)
    flows = [t.phases[0].flows for t in built.graph.tasks]
    assert all(f == ((flows[0][0]),) and f[0].resources == ("wan",) and f[0].cap is None for f in flows)
    labels = [(o.tier, o.deleted_by, o.at_start) for o in built.data_objects]
    assert labels == [(piops, 0, True), ("EBS snapshots", None, False), (piops, 1, True), ("EBS snapshots", None, False)]
    r = simulate(sc, vary_storage=False, record_utilisation=False)
    # both days share the 125 MB/s link (the WAN varies between replications: its factor is drawn from the seed)
    wan = next(res for res in r.bytes_moved if res == "wan")
    assert r.bytes_moved[wan] == pytest.approx(2 * GB)
    assert [t.end_s - t.start_s for t in r.tasks] == pytest.approx([r.makespan_s] * 2)


def test_the_workload_check_names_unknown_links_and_work_items():
    w = WorkloadSpec("w", template="stages", parameters={"days": 3}, stages=(
        StageSpec("a", link="ftp"), StageSpec("b", tasks_per="days", work_items="bands"),
        StageSpec("c", size_distribution="spread", size_mean=1.0, size_min=2.0)))
    assert [path for path, _ in check_workload(w)] == ["stages[0].facts.link", "stages[1].facts.work_items",
                                                        "stages[2].facts.size_mean"]


@pytest.mark.parametrize("include_copy", [True, False])
def test_a_stage_reading_the_links_fresh_volumes_restores_them_or_finds_the_data_there(platforms, include_copy):
    p = platforms["aws-sydney"]
    piops = "EBS Provisioned IOPS (SSD)"  # snapshot_restore_time 3 s
    copy = StageSpec("copy", n_tasks=2, link="wan", io=(RoleIO("output", write_bytes=1 * GB),))
    work = StageSpec("work", n_tasks=2, depends_on=("copy",), dependency="one_to_one", cpu_seconds=10.0,
                     io=(RoleIO("input", read_bytes=0.5 * GB),))
    pls = (StagePlacement("copy", "m3.medium", 2, None, piops, "on_demand", "dynamic"),
           StagePlacement("work", "m3.medium", 2, piops, piops, "on_demand", "elastic"))
    built = build_stages(_scenario(p, [copy, work], pls, include_copy=include_copy))
    tasks = [t for t in built.graph.tasks if t.stage == "work"]
    assert len(built.graph.tasks) == (4 if include_copy else 2)
    assert [ph.name for ph in tasks[0].phases] == (["volume_from_snapshot", "compute"] if include_copy else ["compute"])
    if include_copy:
        assert tasks[0].phases[0].overhead_s == 3.0
    volumes = [(o.bytes, o.created_by, o.deleted_by, o.at_start) for o in built.data_objects
               if o.tier == piops and o.created_by in {t.id for t in tasks}]
    assert volumes == [(1 * GB, t.id, t.id, True) for t in tasks]  # each holds its day's volume while it runs


@pytest.mark.parametrize("single_allocation, pools", [(True, 1), (False, 2)])
def test_without_a_single_allocation_each_stage_queues_for_its_own(platforms, single_allocation, pools):
    stages = [StageSpec("a", n_tasks=2, cpu_seconds=1.0), StageSpec("b", n_tasks=2, cpu_seconds=1.0,
                                                                    depends_on=("a",))]
    pls = [StagePlacement(s, "xc40-compute", 2, LUSTRE, LUSTRE, "node_hour", "static") for s in ("a", "b")]
    built = build_stages(_scenario(platforms["magnus"], stages, pls, single_allocation=single_allocation))
    assert len(built.graph.pools) == pools and len(built.wait_draws) == pools  # one queue-wait draw each
