"""Fluid sharing through the runner, with hand-computed finish times."""

from __future__ import annotations

import pytest

from simulator.fluid import decimate, max_min_fair
from simulator.graph import Flow, Phase, PoolSpec, ResourceSpec, Task, TaskGraph
from simulator.runner import run

POOL = PoolSpec("p", nodes=8)


def flow_task(i, *flows, cpu=0.0, pool="p", deps=()):
    return Task(i, f"t{i}", (Phase("io", cpu_seconds=cpu, flows=tuple(flows)),), deps, pool)


def ends(result):
    return [round(t.end_s, 9) for t in result.tasks]


def test_it_finishes_two_flows_sharing_a_link_at_hand_computed_times():
    # 100 B/s shared: both at 50 B/s; A (100 B) ends at 2 s, then B (300 B, 200 left) alone: 2 + 2 = 4 s
    g = TaskGraph(
        (ResourceSpec("link", 100.0),),
        (POOL,),
        (flow_task(0, Flow(("link",), 100.0)), flow_task(1, Flow(("link",), 300.0))),
    )
    r = run(g)
    assert ends(r) == [2.0, 4.0]
    assert r.moved == {"link": 400.0}
    assert r.utilisation["link"] == ((0.0, 100.0), (4.0, 0.0))


def test_it_gives_the_capacity_a_capped_flow_leaves_to_the_other_flow():
    # A capped at 20 B/s moves 40 B in 2 s; B gets 80 B/s (160 B by 2 s), then 100 B/s for 240 B: 4.4 s
    g = TaskGraph(
        (ResourceSpec("link", 100.0),),
        (POOL,),
        (flow_task(0, Flow(("link",), 40.0, cap=20.0)), flow_task(1, Flow(("link",), 400.0))),
    )
    assert ends(run(g)) == [2.0, 4.4]


def test_it_applies_the_resource_per_flow_cap_to_every_flow():
    # two flows at min(100/2, 30) = 30 B/s: 90 B takes 3 s; 60 of 100 B/s used
    g = TaskGraph(
        (ResourceSpec("link", 100.0, per_flow_cap=30.0),),
        (POOL,),
        (flow_task(0, Flow(("link",), 90.0)), flow_task(1, Flow(("link",), 90.0))),
    )
    r = run(g)
    assert ends(r) == [3.0, 3.0]
    assert r.utilisation["link"] == ((0.0, 60.0), (3.0, 0.0))


def test_it_makes_random_io_iops_bound_and_streaming_io_bandwidth_bound():
    res = (ResourceSpec("disk_bw", 1e9), ResourceSpec("disk_iops", 1000.0, kind="iops"))
    # random reads: 5000 ops at 1000 IOPS (5 s) beat 1 GB at 1 GB/s (1 s)
    rand = flow_task(0, Flow(("disk_iops",), 5000.0, label="rand_read"), Flow(("disk_bw",), 1e9, label="rand_read"))
    # streaming: 10 GB at 1 GB/s (10 s) beat 100 ops (0.1 s)
    seq = flow_task(1, Flow(("disk_iops",), 100.0, label="seq_read"), Flow(("disk_bw",), 1e10, label="seq_read"), deps=(0,))
    r = run(TaskGraph(res, (POOL,), (rand, seq)))
    assert (r.tasks[0].end_s, r.tasks[0].bound_by) == (5.0, "disk_iops")
    assert (r.tasks[1].end_s, r.tasks[1].bound_by) == (15.0, "disk_bw")


def test_it_makes_eight_concurrent_streams_slower_in_aggregate_than_two():
    # degrade after 2 flows, exponent 1: 2 x 400 B at 400 B/s each end at 1 s (800 B/s in all);
    # 8 x 100 B share 800 * (2/8) = 200 B/s, 25 B/s each: the same 800 B take 4 s
    spec = ResourceSpec("nfs", 800.0, degrade_after=2, degrade_exponent=1.0)
    two = run(TaskGraph((spec,), (POOL,), tuple(flow_task(i, Flow(("nfs",), 400.0)) for i in range(2))))
    eight = run(TaskGraph((spec,), (POOL,), tuple(flow_task(i, Flow(("nfs",), 100.0)) for i in range(8))))
    assert two.makespan_s == pytest.approx(1.0)
    assert eight.makespan_s == pytest.approx(4.0)
    assert eight.utilisation["nfs"][0] == (0.0, pytest.approx(200.0))


def test_it_degrades_flows_on_the_water_filling_path_too():
    # same as above, but a capped flow puts the resource on the general path
    spec = ResourceSpec("nfs", 800.0, degrade_after=2, degrade_exponent=1.0)
    tasks = tuple(flow_task(i, Flow(("nfs",), 100.0, cap=50.0)) for i in range(8))
    assert run(TaskGraph((spec,), (POOL,), tasks)).makespan_s == pytest.approx(4.0)


def test_it_limits_a_multi_resource_flow_by_its_tightest_resource():
    # store 1000 B/s + NIC 100 B/s: the 500 B flow runs at 100 B/s (5 s); the store-only
    # flow gets the remaining 900 B/s and moves 900 B in 1 s
    res = (ResourceSpec("store", 1000.0), ResourceSpec("nic@{node}", 100.0))
    g = TaskGraph(
        res,
        (POOL,),
        (flow_task(0, Flow(("store", "nic@{node}"), 500.0)), flow_task(1, Flow(("store",), 900.0))),
    )
    r = run(g)
    assert ends(r) == [5.0, 1.0]
    assert r.tasks[0].bound_by == "nic@p-0"
    assert r.moved == {"store": 1400.0, "nic@p-0": 500.0}


def test_it_instantiates_a_node_template_once_per_node():
    # each task has its own NIC: no sharing, both end at 1 s
    res = (ResourceSpec("nic@{node}", 100.0),)
    pool = PoolSpec("p", nodes=2, slots_per_node=1)
    g = TaskGraph(res, (pool,), (flow_task(0, Flow(("nic@{node}",), 100.0)), flow_task(1, Flow(("nic@{node}",), 100.0))))
    r = run(g)
    assert ends(r) == [1.0, 1.0]
    assert [t.node for t in r.tasks] == ["p-0", "p-1"]
    assert set(r.moved) == {"nic@p-0", "nic@p-1"}


def test_it_shares_a_node_template_between_slots_of_the_same_node():
    res = (ResourceSpec("nic@{node}", 100.0),)
    pool = PoolSpec("p", nodes=1, slots_per_node=2)
    g = TaskGraph(res, (pool,), (flow_task(0, Flow(("nic@{node}",), 100.0)), flow_task(1, Flow(("nic@{node}",), 100.0))))
    assert ends(run(g)) == [2.0, 2.0]


def test_it_allocates_max_min_fair_rates_by_progressive_filling():
    # classic example: f0 crosses a and b, f1 only a, f2 only b; a = 10, b = 4
    # b is the bottleneck (4 / 2 = 2): f0 = f2 = 2; f1 gets the rest of a: 8
    rates = max_min_fair({"a": 10.0, "b": 4.0}, [(("a", "b"), None), (("a",), None), (("b",), None)])
    assert rates == [2.0, 8.0, 2.0]
    # a cap below the fair share frees capacity for the others
    assert max_min_fair({"a": 10.0}, [(("a",), 1.0), (("a",), None)]) == [1.0, 9.0]


def test_it_merges_identical_concurrent_flows_without_changing_rates():
    # one task reads 4 x 25 B, another 100 B on a 100 B/s link: 5 flows at 20 B/s;
    # the four small ones end at 1.25 s, then the big one (75 B left) alone: 1.25 + 0.75 = 2 s
    g = TaskGraph(
        (ResourceSpec("link", 100.0),),
        (POOL,),
        (flow_task(0, *([Flow(("link",), 25.0)] * 4)), flow_task(1, Flow(("link",), 100.0))),
    )
    assert ends(run(g)) == [1.25, 2.0]


def test_it_decimates_a_long_step_function_preserving_its_area():
    times = [float(i) for i in range(1000)]
    rates = [float(i % 7) for i in range(1000)]
    out = decimate(times, rates, 1000.0, 50)
    assert len(out) <= 52
    area = sum(r * ((out[k + 1][0] if k + 1 < len(out) else 1000.0) - t) for k, (t, r) in enumerate(out))
    assert area == pytest.approx(sum(rates))


#: 2**24 s (194 days) into a run the clock's resolution is 3.7e-9 s: a finish under half that away rounds to now
LATE = 2.0**24


@pytest.mark.parametrize(("cap", "extra"), [(None, 3e-9), (1.0, 1.5e-9)], ids=["shared-equally", "capped-flows"])
def test_a_flow_left_with_less_than_the_clocks_resolution_finishes_late_in_a_long_run(cap, extra):
    # two flows start at LATE: one moves 1 unit, the other 1 + extra.  When the first ends (LATE + 1) the other has
    # 1.5e-9 s left (alone it gets the whole 2 units/s; capped, 1): more than TIME_EPS, yet LATE + 1 + 1.5e-9 rounds
    # to LATE + 1.  It must finish there, not be woken at that instant for ever.
    phase = Phase("io", overhead_s=LATE, flows=(Flow(("disk",), 1.0, cap), Flow(("disk",), 1.0 + extra, cap)))
    g = TaskGraph((ResourceSpec("disk", 2.0),), (POOL,), (Task(0, "t", (phase,), (), "p"),))
    r = run(g)
    assert r.makespan_s == LATE + 1.0 and r.events < 10
