"""Fluid sharing through the runner, with hand-computed finish times."""

from __future__ import annotations

import math
import random
from array import array

import pytest

from simulator.core import NORMAL, URGENT, Environment, SimulationError
from simulator.fluid import TIME_EPS, FluidSystem, GeneralGroup, decimate, effective_capacity, max_min_fair
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


# --------------------------------------------------------------------------------------------------------------
# GeneralGroup keeps flows of the same resources and cap as one class: it must behave exactly as water-filling
# over every flow.  The reference below keeps every flow on its own and fills them one by one.

class _RefFlow:
    def __init__(self, rem, weight, res, cap, owner):
        self.rem, self.weight, self.res, self.cap, self.owner = rem, weight, res, cap, owner
        self.rate = 0.0
        self.label = res[0]


class _ReferenceGroup:
    """A water-filling group over individual flows (the behaviour classes must reproduce)."""

    def __init__(self, sys):
        self.sys, self.env = sys, sys.env
        self.flows = []
        self.t = 0.0
        self.dirty = False
        self.next_t = -1.0
        self.resources = {}

    def _advance(self, now):
        for f in self.flows:
            f.rem -= f.rate * (now - self.t)
        self.t = now

    def add(self, res, amount, weight, cap, owner):
        if not self.dirty:
            self._advance(self.env.now)
            self.dirty = True
            self.sys.mark(self)
        c = math.inf if cap is None else cap
        for r in res:
            if r.per_flow_cap is not None:
                c = min(c, r.per_flow_cap)
            r.moved += amount * weight
            self.resources[r] = None
        self.flows.append(_RefFlow(amount, weight, res, c, owner))

    def _fill(self, resources):
        n = {r: 0 for r in resources}
        for f in self.flows:
            for r in f.res:
                n[r] += f.weight
        left = {r: effective_capacity(r.capacity, n[r], r.degrade_after, r.degrade_exponent) for r in resources}
        unfrozen = dict(n)
        used = {r: 0.0 for r in resources}
        active = list(self.flows)
        while active:
            level, bott = math.inf, None
            for r in resources:
                if unfrozen[r] > 0 and left[r] / unfrozen[r] < level:
                    level, bott = left[r] / unfrozen[r], r
            fcap = min(f.cap for f in active)
            if fcap <= level:
                level = fcap
                frozen = [f for f in active if f.cap <= level]
                for f in frozen:
                    f.label = f.res[0]
            else:
                frozen = [f for f in active if bott in f.res]
                for f in frozen:
                    f.label = bott
            level = max(level, 0.0)
            for f in frozen:
                f.rate = level
                for r in f.res:
                    left[r] -= level * f.weight
                    unfrozen[r] -= f.weight
                    used[r] += level * f.weight
            active = [f for f in active if f not in frozen]
        return n, used

    def flush(self):
        self.dirty = False
        now = self.env.now
        resources = list(self.resources)
        n, used = self._fill(resources)
        for r in resources:
            if used[r] != r.last_u:
                r.last_u = used[r]
                if r.ut_t and r.ut_t[-1] == now:
                    r.ut_r[-1] = used[r]
                else:
                    r.ut_t.append(now)
                    r.ut_r.append(used[r])
        self.resources = {r: None for r in resources if n[r]}
        times = [f.rem / f.rate for f in self.flows if f.rate > 0.0]
        if not times:
            assert not self.flows, "zero-rate flows"
            self.next_t = -1.0
            return
        tn = now + min(times)
        if tn != self.next_t:
            self.next_t = tn
            self.env.schedule(tn, URGENT, self.complete, None)

    def complete(self, _arg=None):
        now = self.env.now
        if now != self.next_t:
            return
        self.next_t = -1.0
        self._advance(now)

        def due(f):
            return f.rem <= f.rate * TIME_EPS + 1e-12 * abs(f.rem + 1.0) or (f.rate > 0.0 and now + f.rem / f.rate <= now)

        done = [f for f in self.flows if due(f)]
        self.flows = [f for f in self.flows if not due(f)]
        if not self.dirty:
            self.dirty = True
            self.sys.mark(self)
        for f in done:
            self.sys.on_done(f.owner, f.label)


def _play(group_cls, specs, starts, chains=None):
    """Run flows through one group; ``specs``: name -> (capacity, per_flow_cap, degrade_after, exponent);
    ``starts``: (time, resource names, amount, weight, cap, owner); ``chains``: owner -> the next flow it starts
    when done (resource names, amount, weight, cap, owner).  Returns the finishes ``(time, owner, label)``, the
    resources' utilisation steps and moved amounts."""
    env = Environment()
    out = []
    chains = chains or {}

    def on_done(owner, label):
        out.append((env.now, owner, label.name))
        nxt = chains.get(owner)
        if nxt is not None:
            names, amount, weight, cap, who = nxt
            group.add(tuple(res[n] for n in names), amount, weight, cap, who)

    sys_ = FluidSystem(env, on_done)
    group = group_cls(sys_)
    res = {name: sys_.general(name, c, group, pfc, da, de) for name, (c, pfc, da, de) in specs.items()}
    for t, names, amount, weight, cap, owner in starts:
        env.schedule(t, NORMAL, lambda a: group.add(*a), (tuple(res[n] for n in names), amount, weight, cap, owner))
    env.run()
    return out, {n: (list(r.ut_t), list(r.ut_r)) for n, r in res.items()}, {n: r.moved for n, r in res.items()}


def _assert_same_as_reference(specs, starts, chains=None):
    got, got_u, got_m = _play(GeneralGroup, specs, starts, chains)
    ref, ref_u, ref_m = _play(_ReferenceGroup, specs, starts, chains)
    assert [(o, lab) for _, o, lab in got] == [(o, lab) for _, o, lab in ref]  # same flows, order and labels
    assert [t for t, _, _ in got] == pytest.approx([t for t, _, _ in ref], rel=1e-12, abs=1e-12)
    assert got_m == ref_m
    for name in specs:  # a step to a rate equal but for rounding is recorded by one and not the other: merge them
        assert _steps(*got_u[name]) == pytest.approx(_steps(*ref_u[name]), rel=1e-12, abs=1e-12)
    return got


def _steps(times, rates):
    out = []
    for t, r in zip(times, rates, strict=True):
        if out and math.isclose(r, out[-1][1], rel_tol=1e-12, abs_tol=1e-12):
            continue
        out.append((t, r))
    return [x for step in out for x in step]


def test_flows_of_one_class_added_at_different_instants_finish_as_flows_filled_one_by_one():
    # 4 B/s shared by flows of one class (a, b) capped at 3 B/s and a flow of b alone; some start later
    specs = {"a": (4.0, None, None, 0.0), "b": (8.0, None, None, 0.0)}
    starts = [(0.0, ("a", "b"), 10.0, 1, 3.0, "x0"), (1.0, ("a", "b"), 2.0, 1, 3.0, "x1"),
              (1.0, ("b",), 7.0, 2, None, "y0"), (2.5, ("a", "b"), 10.0, 3, 3.0, "x2")]
    got = _assert_same_as_reference(specs, starts)
    assert [o for _, o, _ in got] == ["x1", "y0", "x0", "x2"]


def test_flows_of_several_classes_finishing_together_are_reported_in_the_order_they_were_added():
    # classes (a), (a, b), (b) with equal rates: flows of the same amount started together finish at one instant,
    # reported in the order they were added whatever their class
    specs = {"a": (4.0, None, None, 0.0), "b": (4.0, None, None, 0.0)}
    starts = [(0.0, ("a",), 8.0, 1, None, "p"), (0.0, ("a", "b"), 8.0, 1, None, "q"), (0.0, ("a",), 8.0, 1, None, "r"),
              (0.0, ("b",), 8.0, 2, None, "s"), (0.0, ("a", "b"), 8.0, 1, None, "t")]
    got = _assert_same_as_reference(specs, starts)
    assert len({t for t, _, _ in got}) == 1
    assert [o for _, o, _ in got] == ["p", "q", "r", "s", "t"]


def test_a_cap_reached_at_the_resources_share_labels_the_flow_by_its_first_resource():
    # the cap (2) equals the share of b (4 / 2): the cap wins the tie, the flows are labelled by their first resource
    # (then v alone is capped below b's share)
    specs = {"a": (100.0, None, None, 0.0), "b": (4.0, None, None, 0.0)}
    got = _assert_same_as_reference(specs, [(0.0, ("a", "b"), 4.0, 1, 2.0, "u"), (0.0, ("a", "b"), 6.0, 1, 2.0, "v")])
    assert got == [(2.0, "u", "a"), (3.0, "v", "a")]


def test_degradation_and_per_flow_caps_count_every_flow_of_a_class():
    # degradation depends on the weighted number of flows on the resource, however they are grouped in classes
    specs = {"disk": (10.0, 4.0, 2, 0.5), "nic": (6.0, None, 3, 1.0), "other": (5.0, None, None, 0.0)}
    starts = [(0.0, ("disk", "nic"), 5.0, 2, None, "a"), (0.5, ("disk", "nic"), 5.0, 1, None, "b"),
              (0.5, ("disk",), 3.0, 1, None, "c"), (1.0, ("nic", "other"), 4.0, 1, 1.5, "d"),
              (1.0, ("disk", "nic"), 1.0, 3, None, "e")]
    _assert_same_as_reference(specs, starts)


def test_many_flows_of_a_few_classes_match_water_filling_over_every_flow():
    rnd = random.Random(7)
    specs = {"tier": (1000.0, 120.0, 20, 0.7), "nic0": (150.0, None, None, 0.0), "nic1": (90.0, None, 4, 1.0),
             "wan": (300.0, None, None, 0.0)}
    shapes = [(("tier",), None), (("tier", "nic0"), 100.0), (("tier", "nic1"), None), (("nic0", "wan"), None),
              (("wan",), 40.0), (("tier", "nic0"), None)]
    starts, chains = [], {}
    for i in range(300):
        names, cap = rnd.choice(shapes)
        t = float(rnd.choice([0, 0, 1, 2, 5, 7.5, 20, 33]))
        starts.append((t, names, float(rnd.choice([50, 100, 100, 400, 1000])), rnd.choice([1, 1, 2, 8]), cap, i))
        if i % 3 == 0:  # a follow-up flow started at the instant this one finishes
            names, cap = rnd.choice(shapes)
            chains[i] = (names, float(rnd.choice([100, 250])), 1, cap, f"{i}+")
    got = _assert_same_as_reference(specs, starts, chains)
    assert len(got) == 400
    assert len({t for t, _, _ in got}) < len(got)  # some flows finish at the same instant


def test_a_class_of_flows_with_zero_rate_is_an_error():
    env = Environment()
    sys_ = FluidSystem(env, lambda owner, label: None)
    group = GeneralGroup(sys_)
    disk = sys_.general("disk", 10.0, group, None, None, 0.0)
    group.add((disk,), 5.0, 2, 0.0, "stuck")
    with pytest.raises(SimulationError, match="zero rate"):
        env.run()


def _node_flows(seed: int, nodes: int, flows: int, shapes):
    """Random flows over a shared ``tier`` and a NIC per node (``nic3``), often alone on their NIC."""
    rnd = random.Random(seed)
    starts, chains = [], {}
    for i in range(flows):
        shape, cap = rnd.choice(shapes)
        k = rnd.randrange(nodes)
        names = tuple(n.format(k=k) for n in shape)
        t = float(rnd.choice([0, 0, 1, 2, 5, 7.5, 20, 33, 41.25]))
        starts.append((t, names, float(rnd.choice([50, 100, 100, 400, 1000])) * (1 + rnd.random()),
                       rnd.choice([1, 1, 1, 2, 3]), cap, i))
        if i % 3 == 0:  # a follow-up flow on another node, started at the instant this one finishes
            shape, cap = rnd.choice(shapes)
            k = rnd.randrange(nodes)
            chains[i] = (tuple(n.format(k=k) for n in shape), 300.0 * (1 + rnd.random()), 1, cap, f"{i}+")
    return starts, chains


def test_flows_alone_on_their_node_resources_match_water_filling_over_every_flow():
    # the shape of a job array on a shared tier: each flow crosses the tier and its node's NIC, which it mostly has
    # to itself (the NIC is then folded into its cap); sometimes a second flow comes to a NIC, and the first must
    # be filled with it from then on.  NICs degrade, some bind (a NIC slower than the flow's cap), one flow lists
    # its NIC first, some cross two nodes' NICs or a NIC alone.
    nodes = 12
    specs = {"tier": (2000.0, None, 30, 0.5), "other": (700.0, None, None, 0.0)}
    for k in range(nodes):
        specs[f"nic{k}"] = (90.0 + 15.0 * (k % 5), None if k % 4 else 70.0, 1 if k % 3 == 0 else None, 0.4)
    shapes = [(("tier", "nic{k}"), 100.0), (("tier", "nic{k}"), 40.0), (("tier", "nic{k}"), None),
              (("nic{k}", "tier"), 60.0), (("nic{k}",), None), (("tier", "nic{k}", "other"), 80.0),
              (("tier",), 50.0), (("other", "nic{k}"), None)]
    for seed in (1, 2, 3):
        starts, chains = _node_flows(seed, nodes, 200, shapes)
        got = _assert_same_as_reference(specs, starts, chains)
        assert len(got) == len(starts) + len(chains)


def test_a_flow_alone_on_its_nic_is_limited_and_labelled_by_it():
    # nic0 (3 B/s) is slower than the flow's cap (5 B/s) and the tier's share (10 / 2): the flow is NIC-bound
    specs = {"tier": (10.0, None, None, 0.0), "nic0": (3.0, None, None, 0.0), "nic1": (50.0, None, None, 0.0)}
    got = _assert_same_as_reference(specs, [(0.0, ("tier", "nic0"), 6.0, 1, 5.0, "a"),
                                            (0.0, ("tier", "nic1"), 10.0, 1, 5.0, "b")])
    assert got == [(2.0, "a", "nic0"), (2.0, "b", "tier")]


def test_a_second_flow_on_a_nic_shares_it_with_the_first_from_then_on():
    # a (alone on nic0, 4 B/s) moves 4 B in the first second, then b joins nic0: 2 B/s each
    specs = {"tier": (100.0, None, None, 0.0), "nic0": (4.0, None, None, 0.0)}
    got = _assert_same_as_reference(specs, [(0.0, ("tier", "nic0"), 8.0, 1, None, "a"),
                                            (1.0, ("tier", "nic0"), 4.0, 1, None, "b")])
    assert got == [(3.0, "a", "nic0"), (3.0, "b", "nic0")]


def _decimate_one_by_one(times, rates, end, max_points):
    """The reference for :func:`decimate`: every step split over the buckets one by one."""
    n = len(times)
    if n <= max_points or max_points < 2 or end <= times[0]:
        return tuple(zip(times, rates, strict=True))
    t0 = times[0]
    width = (end - t0) / (max_points - 1)
    out, acc, b, bstart, bend = [], 0.0, 0, t0, t0 + width
    for i in range(n):
        t, r = times[i], rates[i]
        t_next = times[i + 1] if i + 1 < n else end
        while t < t_next:
            seg_end = t_next if t_next < bend else bend
            acc += r * (seg_end - t)
            t = seg_end
            if t >= bend:
                out.append((bstart, acc / width))
                acc, b = 0.0, b + 1
                bstart, bend = t0 + b * width, t0 + (b + 1) * width
    if acc or (out and out[-1][0] < bstart and bstart < end):
        out.append((bstart, acc / max(end - bstart, 1e-300)))
    if out and out[-1][1] != 0.0:
        out.append((end, 0.0))
    return tuple(out)


@pytest.mark.parametrize("seed", range(6))
def test_decimating_gives_exactly_the_buckets_of_splitting_every_step(seed):
    rnd = random.Random(seed)
    n = rnd.choice([50, 700, 5000])
    times = sorted(rnd.choice([rnd.uniform(0, 1000), float(rnd.randrange(0, 1000, 5))]) for _ in range(n))
    rates = array("d", (rnd.choice([0.0, rnd.uniform(0, 50)]) for _ in range(n)))
    for end in (times[-1], times[-1] + rnd.uniform(0, 300)):
        for max_points in (2, 3, 40, 333, n - 1):
            assert decimate(array("d", times), rates, end, max_points) == _decimate_one_by_one(times, rates, end,
                                                                                               max_points)


def test_processor_sharing_flows_with_equal_float_finish_points_are_reported_in_the_order_they_were_added():
    # late in a run (V = 2**20, where a float's resolution is 2**-32), amounts differing by 2**-40 finish at the
    # same float: flows finishing together are reported by finish point, then in the order they were added
    # within it (flows of one amount started together first, as one entry), whatever the amount
    env = Environment()
    done = []
    fs = FluidSystem(env, lambda owner, res: done.append((env.now, owner)))
    ps = fs.ps("x", 1.0)
    t = float(2**20)
    assert t + 1.0 == t + (1.0 + 2**-40) != t + (1.0 + 2**-30) == t + (1.0 + 2**-30 + 2**-40)

    def adds(_):
        for amount, owner in ((1.0, "a"), (1.0 + 2**-30, "y1"), (1.0 + 2**-40, "b"), (1.0 + 2**-30 + 2**-40, "y2"),
                              (1.0, "a2"), (2.0, "c")):
            ps.add(amount, 1, owner)

    env.schedule(0.0, NORMAL, lambda _: ps.add(2.0**30, 1, "base"))
    env.schedule(t, NORMAL, adds)
    env.run()
    owners = [o for _, o in done]
    assert owners == ["a", "a2", "b", "y1", "y2", "c", "base"]
    times = [w for w, _ in done]
    assert len(set(times[:5])) == 1 and times[0] < times[5] < times[6]
    assert ps.n == 0 and not ps.heap and not ps.due and not ps.more
