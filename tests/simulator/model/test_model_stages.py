"""The general workload model (a DAG of stages): task counts, dependency kinds, sizes, roles, and golden runs of
the shipped SDP predict job array and AdiosStMan DAG with expectations derived by hand from their inputs."""

import math

import pytest

from simulator.model.simulate import simulate
from simulator.model.specs import RoleIO, ScenarioSpec, StagePlacement, StageSpec, WorkloadSpec
from simulator.model.stages import build_stages, default_placement, size_factors, task_count

LUSTRE = "Sonexion Lustre scratch"


def _by_stage(graph):
    out = {}
    for t in graph.tasks:
        out.setdefault(t.stage, []).append(t)
    return out


def _scenario(platform, stages, parameters=None, **kw):
    w = WorkloadSpec("w", template="stages", parameters=parameters or {}, stages=tuple(stages))
    return ScenarioSpec(platform=platform, workload=w, **kw)


def test_a_stage_has_one_task_per_item_of_a_parameter_or_its_value():
    w = WorkloadSpec("w", template="stages", parameters={"files": (1.0, 2.0, 3.0), "n": 4})
    assert task_count(StageSpec("a", tasks_per="files"), w) == 3
    assert task_count(StageSpec("a", tasks_per="n"), w) == 4
    assert task_count(StageSpec("a", n_tasks=7), w) == 7
    with pytest.raises(ValueError, match="'nope', which is not a parameter"):
        task_count(StageSpec("a", tasks_per="nope"), w)
    with pytest.raises(ValueError, match="not a task count"):
        task_count(StageSpec("a", tasks_per="n"), WorkloadSpec("w", parameters={"n": 2.5}))


def test_dependencies_wait_for_all_one_to_one_or_grouped(platforms):
    p = platforms["magnus"]
    stages = [StageSpec("a", cpu_seconds=1, n_tasks=6),
              StageSpec("b", cpu_seconds=1, n_tasks=6, depends_on=("a",), dependency="one_to_one"),
              StageSpec("c", cpu_seconds=1, n_tasks=2, depends_on=("b",), dependency="grouped", group_size=4),
              StageSpec("d", cpu_seconds=1, n_tasks=3, depends_on=("c",), dependency="all")]
    g = build_stages(_scenario(p, stages)).graph
    s = _by_stage(g)
    assert [t.deps for t in s["b"]] == [(a.id,) for a in s["a"]]
    assert [t.deps for t in s["c"]] == [tuple(t.id for t in s["b"][:4]), tuple(t.id for t in s["b"][4:])]
    barrier = s["barrier:c"][0]
    assert sorted(barrier.deps) == [t.id for t in s["c"]] and all(t.deps == (barrier.id,) for t in s["d"])


@pytest.mark.parametrize("stage, message", [
    (StageSpec("b", n_tasks=3, depends_on=("a",), dependency="one_to_one"), "has 3 tasks and 'a' has 2"),
    (StageSpec("b", n_tasks=1, depends_on=("a",), dependency="grouped", group_size=1), "makes 2 groups"),
    (StageSpec("b", n_tasks=1, depends_on=("zz",)), "depends on 'zz', which is not a stage"),
])
def test_a_dependency_the_counts_cannot_honour_is_refused(platforms, stage, message):
    with pytest.raises(ValueError, match=message):
        build_stages(_scenario(platforms["magnus"], [StageSpec("a", n_tasks=2), stage]))


def test_sizes_are_fixed_listed_or_lognormal_from_the_seed():
    assert size_factors(StageSpec("a"), 3, 0) == [1.0, 1.0, 1.0]
    assert size_factors(StageSpec("a", size_distribution="list", size_values=(0.5, 2.0)), 2, 0) == [0.5, 2.0]
    with pytest.raises(ValueError, match="2 sizes for 3 tasks"):
        size_factors(StageSpec("a", size_distribution="list", size_values=(0.5, 2.0)), 3, 0)
    st = StageSpec("a", size_distribution="lognormal", size_sigma=0.5)
    one, again, other = size_factors(st, 2000, 1), size_factors(st, 2000, 1), size_factors(st, 2000, 2)
    assert one == again and one != other
    assert sum(one) / len(one) == pytest.approx(1.0, abs=0.05)  # mean one: sigma only spreads the sizes
    logs = [math.log(x) for x in one]
    mu = sum(logs) / len(logs)
    assert math.sqrt(sum((x - mu) ** 2 for x in logs) / len(logs)) == pytest.approx(0.5, abs=0.03)


def test_a_listed_size_scales_a_tasks_cpu_and_bytes(platforms):
    p = platforms["magnus"]
    st = StageSpec("a", n_tasks=2, cpu_seconds=100, io=(RoleIO("input", read_bytes=1e9),),
                   size_distribution="list", size_values=(1.0, 3.0), reference_speed=2.0)
    g = build_stages(_scenario(p, [st])).graph
    a, b = g.tasks
    speed = p.node_type().core_speed
    assert a.phases[0].cpu_seconds == pytest.approx(100 * 2.0 / speed)
    assert b.phases[0].cpu_seconds == pytest.approx(3 * 100 * 2.0 / speed)
    assert [f.amount for f in b.phases[0].flows] == [3e9]


def test_random_access_costs_iops_on_the_roles_tier_and_a_tier_without_iops_is_refused(platforms):
    fornax = platforms["fornax"]
    tier = fornax.storage[0]
    st = StageSpec("a", io=(RoleIO("scratch", read_bytes=64e6, pattern="random", request_bytes=64e3),))
    g = build_stages(_scenario(fornax, [st])).graph
    flows = g.tasks[0].phases[0].flows
    assert {f.label: f.amount for f in flows} == {"scratch_read": 64e6, "scratch_ops": 1000.0}
    assert flows[1].resources == (f"{tier.name}:iops",)
    sdp = platforms["sdp-p3"]
    with pytest.raises(ValueError, match="no IOPS figure"):
        build_stages(_scenario(sdp, [st]))


def test_roles_map_to_the_placements_tiers(platforms):
    p = platforms["sdp-p3"]
    a, b, c = (t.name for t in p.storage)
    st = StageSpec("s", io=(RoleIO("input", read_bytes=1.0), RoleIO("scratch", write_bytes=2.0),
                            RoleIO("output", write_bytes=3.0)))
    pl = StagePlacement("s", None, 1, a, c, "none", "dynamic", storage_scratch=b)
    flows = build_stages(_scenario(p, [st], placements=(pl,))).graph.tasks[0].phases[0].flows
    assert {f.label: f.resources[0] for f in flows} == {"input_read": a, "scratch_write": b, "output_write": c}
    # no scratch tier named and no node-local tier: scratch is the input tier
    pl = StagePlacement("s", None, 1, a, c, "none", "dynamic")
    flows = build_stages(_scenario(p, [st], placements=(pl,))).graph.tasks[0].phases[0].flows
    assert {f.label: f.resources[0] for f in flows}["scratch_write"] == a


def test_sdp_predict_runs_all_its_stages_in_parallel_across_the_nodes(specs):
    """32 jobs of stage-in, degrid, write on sdp-p3's 8 nodes (by default one pool of all of them, tasks onto any free
    node in order of readiness).  Every read and write goes to the first BeeGFS tier: 8 concurrent clients at the
    per-client cap, which is within the aggregate.  Expected: 32 / 8 = 4 waves of each stage, one after another
    (stage-ins are ready first, then the degrids they release, then the writes)."""
    platforms, workloads, _ = specs
    p, w = platforms["sdp-p3"], workloads["sdp-predict-p3"]
    nt, tier = p.node_type(), p.storage_tier()
    stage_in, compute, stage_out = w.stages
    jobs = int(w.param("n_jobs"))
    assert all(st.tasks_per == "n_jobs" for st in w.stages)
    nodes = nt.count
    assert default_placement(ScenarioSpec(platform=p, workload=w), "compute").nodes == nodes
    assert nodes * tier.read_bytes_per_s_per_client <= tier.read_bytes_per_s
    assert nodes * tier.write_bytes_per_s_per_client <= tier.write_bytes_per_s
    assert tier.read_bytes_per_s_per_client <= nt.nic_bytes_per_s
    waves = math.ceil(jobs / nodes)
    assert w.template == "stages" and [io.role for st in w.stages for io in st.io] == ["input", "output"]
    t_in = stage_in.io[0].read_bytes / tier.read_bytes_per_s_per_client
    t_cpu = compute.cpu_seconds / min(compute.usable_threads, nt.cores) / nt.core_speed
    t_out = stage_out.io[0].write_bytes / tier.write_bytes_per_s_per_client
    r = simulate(ScenarioSpec(platform=p, workload=w, seed=7), record_utilisation=False)
    times = {s.stage: (s.tasks, s.start_s, s.end_s) for s in r.stages}
    assert times["stage_in"] == pytest.approx((jobs, 0.0, waves * t_in))
    assert times["compute"] == pytest.approx((jobs, waves * t_in, waves * (t_in + t_cpu)))
    assert times["stage_out"] == pytest.approx((jobs, waves * (t_in + t_cpu), waves * (t_in + t_cpu + t_out)))
    assert r.makespan_s == pytest.approx(waves * (t_in + t_cpu + t_out))
    assert len({t.node for t in r.tasks if t.pool}) == nodes


def test_the_adiosstman_dag_runs_its_two_branches_side_by_side(specs):
    """convert -> split_adios and split_original start at once on two nodes; verify waits for both splits.  A task
    alone moves its bytes at the lesser of its NIC and Fornax's Lustre (work-conserving: (read + write) / rate).
    At the start the convert's read and write and the split's read and write share the Lustre four ways (each
    node's two flows stay under its NIC); when the split's small write ends, three ways."""
    platforms, workloads, _ = specs
    p, w = platforms["fornax"], workloads["adiosstman-validation"]
    nt, lustre = p.node_type(), p.storage_tier()
    bw, nic = lustre.read_bytes_per_s, nt.nic_bytes_per_s
    assert lustre.write_bytes_per_s == bw and lustre.read_bytes_per_s_per_client is None
    assert 2 * bw / 3 <= nic  # neither node's NIC binds while the two share the Lustre
    s = {st.name: st for st in w.stages}
    convert, split, split_adios, verify = (s[k] for k in ("convert_to_adios", "split_original", "split_adios",
                                                          "verify"))

    def alone(st):
        return st.overhead_s + max(st.cpu_seconds / nt.core_speed,
                                   (st.seq_read_bytes + st.seq_write_bytes) / min(nic, bw))

    assert split.seq_write_bytes < split.seq_read_bytes <= min(convert.seq_read_bytes, convert.seq_write_bytes)
    t_write = split.seq_write_bytes / (bw / 4)
    t_split = max(split.cpu_seconds, t_write + (split.seq_read_bytes - split.seq_write_bytes) / (bw / 3))
    t_convert = convert.cpu_seconds / nt.core_speed
    assert t_convert >= (convert.seq_read_bytes + convert.seq_write_bytes) / min(nic, bw)  # CPU-bound either way

    r = simulate(ScenarioSpec(platform=p, workload=w, seed=3), record_utilisation=False)
    times = {x.stage: (x.start_s, x.end_s) for x in r.stages}
    assert times["convert_to_adios"] == pytest.approx((0.0, t_convert))
    assert times["split_original"] == pytest.approx((0.0, t_split))
    assert times["split_adios"] == pytest.approx((t_convert, t_convert + alone(split_adios)))
    end = max(t_convert + alone(split_adios), t_split)
    assert times["verify"] == pytest.approx((end, end + alone(verify)))
    assert r.makespan_s == pytest.approx(end + alone(verify))


def test_lognormal_sizes_differ_between_replications_and_repeat_within_one(platforms):
    from simulator.model.simulate import replicate

    st = StageSpec("a", n_tasks=4, cpu_seconds=100, size_distribution="lognormal", size_sigma=0.5)
    sc = _scenario(platforms["fornax"], [st])
    first, again, other = replicate(sc, 5, 0), replicate(sc, 5, 0), replicate(sc, 5, 1)
    assert first.makespan_s == again.makespan_s != other.makespan_s
    # each task's CPU is its size times the stage's demand (Fornax's cores at speed 1, one thread each)
    assert max(t.end_s - t.start_s for t in first.tasks) == pytest.approx(100 * max(size_factors(st, 4, 5)))


def test_sdp_predict_with_the_prototypes_four_ranks_per_node_runs_every_job_at_once(specs):
    """The prototype ran 4 streamer ranks on each of the 8 nodes (seed 001 §3.4): with 4 job slots per node all 32
    jobs run at once, so each stage is one wave in which the 32 clients share the BeeGFS aggregate (below their
    per-client cap and a quarter of the NIC each) and the 4 ranks of a node share its 32 cores, 8 threads each."""
    platforms, workloads, _ = specs
    p, w = platforms["sdp-p3"], workloads["sdp-predict-p3"]
    nt, tier = p.node_type(), p.storage_tier()
    stage_in, compute, stage_out = w.stages
    jobs, slots = int(w.param("n_jobs")), 4
    assert jobs == nt.count * slots
    read_rate = min(tier.read_bytes_per_s / jobs, tier.read_bytes_per_s_per_client, nt.nic_bytes_per_s / slots)
    write_rate = min(tier.write_bytes_per_s / jobs, tier.write_bytes_per_s_per_client, nt.nic_bytes_per_s / slots)
    assert read_rate == tier.read_bytes_per_s / jobs  # the aggregate binds
    threads = min(compute.usable_threads, nt.cores // slots)
    t_in = stage_in.io[0].read_bytes / read_rate
    t_cpu = compute.cpu_seconds / threads / nt.core_speed
    t_out = stage_out.io[0].write_bytes / write_rate
    placements = tuple(StagePlacement(s.name, nt.name, nt.count, tier.name, tier.name, "none", "dynamic",
                                      slots_per_node=slots) for s in w.stages)
    r = simulate(ScenarioSpec(platform=p, workload=w, placements=placements, seed=7), record_utilisation=False)
    times = {s.stage: (s.start_s, s.end_s) for s in r.stages}
    assert times["stage_in"] == pytest.approx((0.0, t_in))
    assert times["compute"] == pytest.approx((t_in, t_in + t_cpu))
    assert times["stage_out"] == pytest.approx((t_in + t_cpu, t_in + t_cpu + t_out))
    assert r.makespan_s == pytest.approx(t_in + t_cpu + t_out)  # 87 s + 124 s + 914 s: the degrids now fill the cores
    assert len({t.node for t in r.tasks if t.pool}) == nt.count
