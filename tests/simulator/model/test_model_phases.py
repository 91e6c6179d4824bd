"""The general model's tasks of several phases (a stage that ``continues`` another's tasks) and a stage's own ceiling
on its read rate (``max_read_bytes_per_s``), with run times derived by hand from Magnus's catalogue facts: one
xc40 core of speed 1 per task (SLURM caps threads at 1), Lustre at 400 MB/s per client for reads, no dispatch
overhead; queue waits set to 0 and storage variability off so that only the model's arithmetic is measured."""

import pytest

from simulator.model.simulate import simulate
from simulator.model.specs import RoleIO, ScenarioSpec, StagePlacement, StageSpec, WorkloadSpec
from simulator.model.stages import build_stages, check_workload

LUSTRE = "Sonexion Lustre scratch"


def _scenario(platform, stages, nodes=1, placements=None):
    w = WorkloadSpec("w", template="stages", stages=tuple(stages))
    pls = placements if placements is not None else (
        StagePlacement("a", "xc40-compute", nodes, LUSTRE, LUSTRE, "node_hour", "dynamic", queue_wait_s=0.0),
        StagePlacement("c", "xc40-compute", nodes, LUSTRE, LUSTRE, "node_hour", "dynamic", queue_wait_s=0.0))
    return ScenarioSpec(platform=platform, workload=w, placements=pls, include_copy=False)


def _pipeline():
    return [StageSpec("a", n_tasks=2, overhead_s=10.0),
            StageSpec("b", n_tasks=2, depends_on=("a",), dependency="continues", cpu_seconds=20.0,
                      io=(RoleIO("input", read_bytes=1e9),), max_read_bytes_per_s=1e8, peak_memory_bytes=3e9),
            StageSpec("c", depends_on=("b",), overhead_s=5.0)]


def test_a_continuing_stage_adds_its_phases_to_the_tasks_it_continues(platforms):
    g = build_stages(_scenario(platforms["magnus"], _pipeline())).graph
    a = [t for t in g.tasks if t.stage == "a"]
    assert len(a) == 2 and not [t for t in g.tasks if t.stage == "b"]
    assert [ph.name for ph in a[0].phases] == ["compute", "b"]
    assert a[0].phases[1].cpu_seconds == 20.0 and a[0].memory_bytes == 3e9
    barrier = next(t for t in g.tasks if t.stage == "barrier:b")
    assert sorted(barrier.deps) == [t.id for t in a]  # what waits for b waits for the tasks b continues


@pytest.mark.parametrize("nodes, makespan", [
    (1, 2 * (10 + 20) + 5),  # the two tasks (10 s overhead, then 20 s CPU beside a 1 GB read at 100 MB/s) in turn
    (2, 10 + 20 + 5),  # side by side
])
def test_a_task_of_several_phases_runs_them_one_after_another_on_one_node(platforms, nodes, makespan):
    r = simulate(_scenario(platforms["magnus"], _pipeline(), nodes), vary_storage=False, record_utilisation=False)
    assert r.makespan_s == pytest.approx(makespan)
    assert {t.stage for t in r.tasks if t.pool} == {"a", "c"}


def test_a_stage_caps_its_reads_below_the_tiers_per_client_rate(platforms):
    read = StageSpec("a", io=(RoleIO("input", read_bytes=1e9),))
    capped = StageSpec("a", io=(RoleIO("input", read_bytes=1e9),), max_read_bytes_per_s=1e8)
    above = StageSpec("a", io=(RoleIO("input", read_bytes=1e9),), max_read_bytes_per_s=1e9)
    times = [simulate(_scenario(platforms["magnus"], [st]), vary_storage=False, record_utilisation=False).makespan_s
             for st in (read, capped, above)]
    assert times == pytest.approx([1e9 / 400e6, 1e9 / 100e6, 1e9 / 400e6])  # the tier's 400 MB/s per client stays


@pytest.mark.parametrize("stages, message", [
    ([StageSpec("a", n_tasks=2), StageSpec("x"),
      StageSpec("b", n_tasks=2, depends_on=("a", "x"), dependency="continues")], "depends on 2 .* name exactly one"),
    ([StageSpec("a", n_tasks=2), StageSpec("b", n_tasks=3, depends_on=("a",), dependency="continues")],
     "has 3 tasks and 'a' has 2"),
])
def test_a_continuation_the_stages_cannot_honour_is_refused(platforms, stages, message):
    with pytest.raises(ValueError, match=message):
        build_stages(_scenario(platforms["magnus"], stages))


def test_a_continuing_stage_runs_where_the_stage_it_continues_is_placed(platforms):
    own = (StagePlacement("a", "xc40-compute", 1, LUSTRE, policy="dynamic"),
           StagePlacement("b", "xc40-compute", 4, LUSTRE, policy="dynamic"))
    with pytest.raises(ValueError, match=r"placements\[1\]: stage 'b' continues the tasks of 'a'"):
        build_stages(_scenario(platforms["magnus"], _pipeline(), placements=own))


def test_the_workload_check_names_the_fact_at_fault():
    w = WorkloadSpec("w", template="stages", stages=(
        StageSpec("a", n_tasks=2), StageSpec("x"),
        StageSpec("b", n_tasks=2, depends_on=("a", "x"), dependency="continues", max_read_bytes_per_s=0.0),
        StageSpec("c", n_tasks=1, depends_on=("a",), dependency="continues")))
    paths = [path for path, _ in check_workload(w)]
    assert paths == ["stages[2].facts.max_read_rate"]
    w = WorkloadSpec("w", template="stages", stages=w.stages[:2] + (
        StageSpec("b", n_tasks=2, depends_on=("a", "x"), dependency="continues"), w.stages[3]))
    assert [path for path, _ in check_workload(w)] == ["stages[2].facts.depends_on", "stages[3].facts.dependency"]


def test_a_continuing_stage_follows_each_chunk_of_a_stage_whose_work_comes_in_items(platforms):
    stages = [StageSpec("cut", tasks_per="days", work_items="bands", io=(RoleIO("input", read_bytes=1e9),)),
              StageSpec("regrid", tasks_per="days", work_items="bands", depends_on=("cut",), dependency="continues",
                        cpu_seconds=2.0)]
    w = WorkloadSpec("w", template="stages", parameters={"days": 2, "bands": 5}, stages=tuple(stages))
    pl = StagePlacement("cut", "xc40-compute", 2, LUSTRE, LUSTRE, "node_hour", "dynamic", queue_wait_s=0.0,
                        subbands_per_task=2)
    g = build_stages(ScenarioSpec(platform=platforms["magnus"], workload=w, placements=(pl,))).graph
    cut = [t for t in g.tasks if t.stage == "cut"]
    # 2 + 2 + 1 bands a day: each chunk reads its bands' bytes, then regrids them
    assert [(t.phases[0].flows[0].amount, t.phases[1].cpu_seconds) for t in cut] == [
        (2e9, 4.0), (2e9, 4.0), (1e9, 2.0)] * 2
