"""The runner: phases, bound_by, barriers, pools, records, determinism."""

from __future__ import annotations

import pickle
import random
import tracemalloc

import pytest

from bench.scale import build_graph
from simulator.core import SimulationError
from simulator.graph import Flow, Phase, PoolSpec, ResourceSpec, Task, TaskGraph, TaskRecord
from simulator.runner import run


def cpu_task(i, seconds, pool="p", deps=(), slot=None, stage="work"):
    return Task(i, stage, (Phase("cpu", cpu_seconds=seconds),), deps, pool, slot=slot)


def task(i, phases, deps=()):
    return Task(i, "s", phases, deps, "p")


def test_it_runs_phases_one_after_another_with_overhead_cpu_and_flows_overlapping():
    # phase 1: 2 s overhead, then max(cpu 8 core-s / min(4 threads, 2 cores) = 4 s, 100 B at 50 B/s = 2 s)
    # phase 2: 300 B at 50 B/s = 6 s  ->  2 + 4 + 6 = 12 s, bound by the link (6 s > 4 s cpu > 2 s overhead)
    phases = (
        Phase("a", cpu_seconds=8.0, threads=4, flows=(Flow(("link",), 100.0),), overhead_s=2.0),
        Phase("b", flows=(Flow(("link",), 300.0),)),
    )
    g = TaskGraph((ResourceSpec("link", 50.0),), (PoolSpec("p", 1, cores_per_node=2),), (Task(0, "s", phases, pool="p", cores=2),))
    rec = run(g).tasks[0]
    assert (rec.start_s, rec.end_s, rec.bound_by) == (0.0, 12.0, "link")


def test_it_reports_cpu_or_overhead_as_what_bound_the_task():
    tasks = (
        task(0, (Phase("x", cpu_seconds=5.0, flows=(Flow(("link",), 100.0),)),)),  # cpu 5 s > 1 s of I/O
        task(1, (Phase("x", overhead_s=30.0, cpu_seconds=1.0),), (0,)),
    )
    r = run(TaskGraph((ResourceSpec("link", 100.0),), (PoolSpec("p", 1),), tasks))
    assert [t.bound_by for t in r.tasks] == ["cpu", "overhead"]
    assert r.tasks[1].end_s == 36.0


def test_it_completes_a_barrier_when_its_dependencies_do_at_zero_cost():
    tasks = (cpu_task(0, 10.0), cpu_task(1, 4.0), Task(2, "barrier", (), (0, 1), None), cpu_task(3, 5.0, deps=(2,)))
    r = run(TaskGraph((), (PoolSpec("p", 2),), tasks))
    b = r.tasks[2]
    assert (b.ready_s, b.start_s, b.end_s, b.node, b.bound_by, b.pool) == (10.0, 10.0, 10.0, "", "", None)
    assert (r.tasks[3].start_s, r.tasks[3].end_s) == (10.0, 15.0)
    assert r.makespan_s == 15.0


def test_it_handles_long_chains_of_barriers_without_recursion():
    n = 5000
    tasks = [cpu_task(0, 1.0)] + [Task(i, "b", (), (i - 1,), None) for i in range(1, n)] + [cpu_task(n, 2.0, deps=(n - 1,))]
    r = run(TaskGraph((), (PoolSpec("p", 1),), tuple(tasks)))
    assert r.makespan_s == 3.0


def test_it_serves_a_dynamic_pool_fifo_by_ready_time_then_task_id():
    # one slot; 0 runs first (ready at 0, lowest id).  3 becomes ready at 0 too, 1 and 2 at 1 s (after 0)
    tasks = (cpu_task(0, 1.0), cpu_task(1, 1.0, deps=(0,)), cpu_task(2, 1.0, deps=(0,)), cpu_task(3, 1.0))
    r = run(TaskGraph((), (PoolSpec("p", 1),), tasks))
    assert [t.start_s for t in r.tasks] == [0.0, 2.0, 3.0, 1.0]


def test_it_holds_a_static_pool_while_a_pinned_straggler_finishes():
    # 2 nodes x 1 slot.  Slot 0: two 10 s work units; slot 1: one 50 s straggler.
    # Unit 1 waits for slot 0 (10 s) although it is ready at 0.  The allocation is
    # held until the straggler ends at 50 s: node_seconds = 2 nodes * 50 s = 100.
    pool = PoolSpec("s", nodes=2, policy="static")
    tasks = (cpu_task(0, 10.0, "s", slot=0), cpu_task(1, 10.0, "s", slot=0), cpu_task(2, 50.0, "s", slot=1))
    r = run(TaskGraph((), (pool,), tasks))
    assert [(t.start_s, t.end_s, t.node) for t in r.tasks] == [(0.0, 10.0, "s-0"), (10.0, 20.0, "s-0"), (0.0, 50.0, "s-1")]
    (p,) = r.pools
    assert (p.requested_s, p.available_s, p.released_s, p.nodes, p.node_seconds) == (0.0, 0.0, 50.0, 2, 100.0)


def test_it_keeps_a_pinned_task_off_other_free_slots():
    # slot 1 is free from 5 s, but task 1 is pinned to slot 0 (busy until 10 s)
    pool = PoolSpec("s", nodes=1, slots_per_node=2, policy="static")
    tasks = (cpu_task(0, 10.0, "s", slot=0), cpu_task(1, 1.0, "s", slot=0), cpu_task(2, 5.0, "s", slot=1))
    r = run(TaskGraph((), (pool,), tasks))
    assert r.tasks[1].start_s == 10.0
    assert r.pools[0].node_seconds == 11.0


def test_it_delays_a_stage_by_exactly_its_queue_wait():
    # pool a: 2 nodes requested at 0, available at 120, its task runs 120..130.
    # pool b is requested when its first task is ready (130), available 130 + 60 = 190.
    pools = (PoolSpec("a", nodes=2, queue_wait_s=120.0), PoolSpec("b", nodes=3, queue_wait_s=60.0))
    tasks = (cpu_task(0, 10.0, "a"), cpu_task(1, 5.0, "b", deps=(0,)))
    r = run(TaskGraph((), pools, tasks))
    assert [(t.ready_s, t.start_s, t.end_s) for t in r.tasks] == [(0.0, 120.0, 130.0), (130.0, 190.0, 195.0)]
    a, b = r.pools
    assert (a.requested_s, a.available_s, a.released_s, a.node_seconds) == (0.0, 120.0, 130.0, 20.0)
    assert (b.requested_s, b.available_s, b.released_s, b.node_seconds) == (130.0, 190.0, 195.0, 15.0)


def test_it_staggers_elastic_launches_and_waits_for_boot():
    # at most 2 instances, launches >= 10 s apart, 5 s boot, 3 tasks of 100 s ready at 0:
    # task 0: launch 0, start 5, end 105; task 1: launch 10, start 15, end 115;
    # task 2 waits for an instance to be released (105): launch 105, start 110, end 210.
    pool = PoolSpec("e", nodes=2, policy="elastic", boot_s=5.0, launch_interval_s=10.0)
    r = run(TaskGraph((), (pool,), tuple(cpu_task(i, 100.0, "e") for i in range(3))))
    assert [(t.start_s, t.end_s, t.node) for t in r.tasks] == [(5.0, 105.0, "e-0"), (15.0, 115.0, "e-1"), (110.0, 210.0, "e-2")]
    (p,) = r.pools
    assert p.instances == ((0.0, 105.0), (10.0, 115.0), (105.0, 210.0))
    assert (p.requested_s, p.available_s, p.released_s, p.nodes, p.node_seconds) == (0.0, 5.0, 210.0, 2, 315.0)


def test_it_rate_limits_elastic_launches_even_with_free_capacity():
    pool = PoolSpec("e", nodes=10, policy="elastic", launch_interval_s=30.0)
    r = run(TaskGraph((), (pool,), tuple(cpu_task(i, 1.0, "e") for i in range(3))))
    assert [t.start_s for t in r.tasks] == [0.0, 30.0, 60.0]


def test_it_reports_progress_at_most_about_100_times_and_finally_all_done():
    calls = []
    tasks = tuple(cpu_task(i, 1.0) for i in range(1000))
    run(TaskGraph((), (PoolSpec("p", 7),), tasks), progress=lambda d, n: calls.append((d, n)))
    assert 1 <= len(calls) <= 101
    assert calls[-1] == (1000, 1000)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_it_reports_progress_at_least_every_so_many_tasks_however_large_the_graph(monkeypatch):
    from simulator import runner

    monkeypatch.setattr(runner, "PROGRESS_EVERY_TASKS", 4)
    calls = []
    run(TaskGraph((), (PoolSpec("p", 7),), tuple(cpu_task(i, 1.0) for i in range(1000))),
        progress=lambda d, n: calls.append(d))
    assert len(calls) == 250 and calls[:3] == [4, 8, 12] and calls[-1] == 1000


def test_an_exception_raised_by_progress_stops_the_run_there():
    class Stop(Exception):
        pass

    calls = []

    def progress(done, total):
        calls.append(done)
        if done >= 500:
            raise Stop()

    with pytest.raises(Stop):
        run(TaskGraph((), (PoolSpec("p", 7),), tuple(cpu_task(i, 1.0) for i in range(1000))), progress=progress)
    assert calls[-1] == 500


def test_it_skips_utilisation_when_asked():
    g = TaskGraph((ResourceSpec("l", 1.0),), (PoolSpec("p", 1),), (task(0, (Phase("x", flows=(Flow(("l",), 2.0),)),)),))
    r = run(g, record_utilisation=False)
    assert r.utilisation == {}
    assert r.moved == {"l": 2.0}
    assert r.events > 0


def test_it_rejects_a_dependency_cycle():
    tasks = (cpu_task(0, 1.0, deps=(1,)), cpu_task(1, 1.0, deps=(0,)))
    with pytest.raises(SimulationError):
        run(TaskGraph((), (PoolSpec("p", 1),), tasks))


def test_it_rejects_flows_on_undeclared_resources():
    g = TaskGraph((), (PoolSpec("p", 1),), (task(0, (Phase("x", flows=(Flow(("nope",), 1.0),)),)),))
    with pytest.raises(ValueError, match="nope"):
        run(g)


def _mixed_graph(seed: int) -> TaskGraph:
    rng = random.Random(seed)
    res = (
        ResourceSpec("store", 1e3, degrade_after=4, degrade_exponent=0.5),
        ResourceSpec("wan", 300.0, per_flow_cap=120.0),
        ResourceSpec("nic@{node}", 200.0),
        ResourceSpec("iops", 50.0, kind="iops"),
    )
    pools = (
        PoolSpec("d", nodes=3, slots_per_node=2, queue_wait_s=7.0),
        PoolSpec("s", nodes=2, slots_per_node=2, policy="static"),
        PoolSpec("e", nodes=3, policy="elastic", boot_s=3.0, launch_interval_s=2.0),
    )
    tasks = []
    for i in range(120):
        flows = []
        for _ in range(rng.randint(0, 3)):
            kind = rng.random()
            amount = rng.uniform(10, 500)
            if kind < 0.3:
                flows.append(Flow(("store", "nic@{node}"), amount))
            elif kind < 0.5:
                flows.append(Flow(("wan",), amount, cap=rng.choice([None, 40.0])))
            elif kind < 0.7:
                flows.append(Flow(("iops",), amount / 10))
            else:
                flows.append(Flow(("store",), amount))
        phases = (Phase("p", cpu_seconds=rng.uniform(0, 5), flows=tuple(flows), overhead_s=rng.choice([0.0, 1.0])),)
        deps = tuple(sorted(rng.sample(range(i), min(i, rng.randint(0, 2)))))
        pool = rng.choice(["d", "s", "e", None]) if i % 10 else "d"
        if pool is None:
            tasks.append(Task(i, "b", (), deps, None))
        else:
            slot = rng.randrange(4) if pool == "s" and rng.random() < 0.5 else None
            tasks.append(Task(i, "w", phases, deps, pool, slot=slot))
    return TaskGraph(res, pools, tuple(tasks))


def test_it_is_deterministic_bit_for_bit():
    g = _mixed_graph(7)
    a, b = run(g), run(_mixed_graph(7))
    assert repr(a) == repr(b)
    assert a.makespan_s > 0
    assert all(t.end_s >= t.start_s >= t.ready_s for t in a.tasks)


def test_it_returns_task_records_that_behave_like_a_tuple_of_records():
    tasks = tuple(cpu_task(i, 1.0 + i) for i in range(3))
    r = run(TaskGraph((), (PoolSpec("p", 1),), tasks))
    expected = (TaskRecord(0, "work", "p", "p-0", 0.0, 0.0, 1.0, "cpu"),
                TaskRecord(1, "work", "p", "p-0", 0.0, 1.0, 3.0, "cpu"),
                TaskRecord(2, "work", "p", "p-0", 0.0, 3.0, 6.0, "cpu"))
    assert len(r.tasks) == 3 and r.tasks == expected and tuple(r.tasks) == expected
    assert (r.tasks[-1], r.tasks[1:]) == (expected[2], expected[1:])
    assert list(r.tasks.end_s) == [1.0, 3.0, 6.0]
    assert pickle.loads(pickle.dumps(r)).tasks == expected
    with pytest.raises(IndexError):
        r.tasks[3]


def test_it_keeps_under_120_bytes_per_task_while_running():
    # the benchmark scenario at k = 50 (10,184 tasks); the graph itself is built before measuring
    graph = build_graph(50, 256)
    # a small run first: what the first run in a process allocates once (lazily filled caches, code objects) is not
    # per task, and left in it made the figure depend on which tests ran before (200.5 alone, under 200 after others)
    run(build_graph(1, 256), record_utilisation=False)
    tracemalloc.start()
    try:
        run(graph, record_utilisation=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak / len(graph.tasks) < 120  # 100.1 on 2026-11-27 (190.6 when slot pools kept every node's busy spans)


def test_it_runs_tasks_started_together_as_one_cohort_with_the_results_of_one_by_one():
    # the benchmark scenario at k = 10: waves of 256 INVERT tasks share one tuple of phases and start together (a
    # cohort); the same graph with every task's phases in a tuple of its own runs each task by itself
    shared = build_graph(10, 256)
    own = TaskGraph(shared.resources, shared.pools, tuple(t.with_phases(tuple(list(t.phases))) for t in shared.tasks))
    assert all(a.phases is not b.phases for a, b in zip(shared.tasks, own.tasks, strict=True) if a.phases)

    def timed(label):
        return {"seq_read": "reads", "wan": "wan"}.get(label)

    a, b = run(shared, timed_flows=timed), run(own, timed_flows=timed)
    assert a.tasks == b.tasks and a.makespan_s == b.makespan_s and a.events == b.events
    assert (a.moved, a.utilisation, a.pools) == (b.moved, b.utilisation, b.pools)
    assert {k: list(v) for k, v in a.flow_seconds.items()} == {k: list(v) for k, v in b.flow_seconds.items()}
    assert sum(1 for r in a.tasks if r.stage == "INVERT" and r.start_s == a.tasks[-2].start_s) == 1200 % 256


@pytest.mark.parametrize("queued", [3, 4, 6])
def test_a_slot_freed_while_tasks_start_goes_to_the_next_task_as_the_lowest_free_slot(queued):
    # four slots; task 0 has no phases, so it ends as it starts and its slot 0 is free again at once: the next task
    # takes slot 0 (the lowest free), the others slots 1, 2, ... (with fewer tasks than slots, or more, or as many)
    tasks = (Task(0, "s", (), (), "p"),) + tuple(cpu_task(i, 1.0) for i in range(1, queued))
    r = run(TaskGraph((), (PoolSpec("p", 4),), tasks))
    started = [t.node for t in r.tasks if t.start_s == 0.0]
    assert started == ["p-0", "p-0", "p-1", "p-2", "p-3"][:min(queued, 5)]
    assert [t.node for t in r.tasks if t.start_s == 1.0] == ["p-0"] * (queued - 5)
