"""The general workload model: a DAG of stages, each a set of tasks with per-task demands.

Every stage runs.  A stage's task count is a number or one per item of a workload
parameter; each task reads and writes bytes per storage role (input, scratch,
output), which the scenario's placement maps to tiers of the platform; its CPU is
core-seconds at the stage's reference core speed; its size varies across the
stage (fixed, a list, lognormal from the scenario seed).  Tasks wait for upstream
tasks as the stage's dependency kind says (all, one to one, grouped by k).  Stages
whose placements name the same node type, policy, node count and pricing share one
pool of nodes, so the tasks of a stage and of the stages around it run in parallel
across the nodes (and job slots) the placement gives.

``job_array`` and ``custom_dag`` are older names of this template: a job array is
a chain of stages with one task per job (``n_jobs``), joined one to one; a custom
DAG joins stages one to one when their task counts match and waits for all tasks
otherwise.
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import replace

from simulator.graph import Flow, Phase, Task, TaskGraph

from .built import BuiltGraph, DataObject, PoolInfo, WaitDraw
from .placement import (
    effective_threads,
    make_pool,
    nic_resource,
    slots_per_node,
    stage_tiers,
    staging_phases,
    submission,
    tier_access,
    tier_resources,
    wan_resource,
)
from .queue import sample_queue_wait
from .sizes import spread_sizes
from .specs import (
    ACCESS_PATTERNS,
    DEPENDENCY_KINDS,
    LINKS,
    ROLES,
    SIZE_DISTRIBUTIONS,
    ScenarioSpec,
    StagePlacement,
    StageSpec,
    StorageSpec,
    WorkloadSpec,
)
from .stage_defaults import fact_placement, placement_fact_errors

__all__ = [
    "GENERAL_TEMPLATES",
    "build_stages",
    "as_general",
    "task_count",
    "work_chunks",
    "size_factors",
    "topological_stages",
    "default_placement",
    "stage_placement",
    "role_tiers",
    "check_workload",
]

#: templates this builder runs (``stages`` and its older names)
GENERAL_TEMPLATES = ("stages", "job_array", "custom_dag")


def topological_stages(stages) -> list[StageSpec]:
    """Stages ordered so that every stage comes after those it depends on (raises on cycles)."""
    by_name = {s.name: s for s in stages}
    order, state = [], {}

    def visit(name: str, via: str) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            raise ValueError(f"stage {name!r}: its dependencies form a cycle")
        if name not in by_name:
            raise ValueError(f"stage {via!r} depends on {name!r}, which is not a stage of the workload "
                             f"({', '.join(by_name)})")
        state[name] = 1
        for d in by_name[name].depends_on:
            visit(d, name)
        state[name] = 2
        order.append(by_name[name])

    for s in stages:
        visit(s.name, s.name)
    return order


def as_general(workload: WorkloadSpec) -> WorkloadSpec:
    """The ``stages`` form of a ``job_array`` or ``custom_dag`` workload (a ``stages`` one as it is)."""
    if workload.template == "job_array":
        stages, prev = [], None
        for st in workload.stages:
            st = replace(st, tasks_per=st.tasks_per or ("n_jobs" if workload.param("n_jobs") is not None else ""),
                         depends_on=st.depends_on or ((prev,) if prev else ()),
                         dependency="one_to_one" if not st.depends_on else st.dependency)
            stages.append(st)
            prev = st.name
        return replace(workload, template="stages", stages=tuple(stages))
    if workload.template == "custom_dag":
        counts = {s.name: task_count(s, workload) for s in workload.stages}
        stages = []
        for st in workload.stages:
            same = all(counts.get(d) == counts[st.name] for d in st.depends_on)
            stages.append(replace(st, dependency="one_to_one" if st.depends_on and same else "all"))
        return replace(workload, template="stages", stages=tuple(stages))
    return workload


def task_count(st: StageSpec, workload: WorkloadSpec) -> int:
    """Tasks of ``st``: ``n_tasks``, or one per item of (or the value of) the parameter ``tasks_per``."""
    if not st.tasks_per:
        return int(st.n_tasks)
    value = workload.parameters.get(st.tasks_per)
    if value is None:
        raise ValueError(f"stage {st.name!r}: tasks_per names {st.tasks_per!r}, which is not a parameter of "
                         f"the workload ({', '.join(sorted(workload.parameters)) or 'none'})")
    if isinstance(value, list | tuple):
        return len(value)
    n = float(value)
    if not math.isfinite(n) or n < 1 or n != round(n):
        raise ValueError(f"stage {st.name!r}: parameter {st.tasks_per!r} = {value!r} is not a task count "
                         f"(a whole number of at least 1, or a list with one item per task)")
    return int(n)


def work_chunks(st: StageSpec, workload: WorkloadSpec, pl: StagePlacement) -> list[int]:
    """The items of each task made of one item of ``tasks_per`` (``[1]`` for a stage without ``work_items``): all
    of them in one task, or chunks of the placement's ``subbands_per_task`` items (the last one what is left)."""
    if not st.work_items:
        return [1]
    items = task_count(replace(st, tasks_per=st.work_items), workload)
    per = int(pl.subbands_per_task or items)
    if per < 1:
        raise ValueError(f"stage {st.name!r}: items per task must be at least 1, not {per}")
    return [min(per, items - c) for c in range(0, items, per)]


def _stage_rng(seed: int, stage: str) -> random.Random:
    """A generator for one stage's sizes: a function of the scenario seed and the stage name only, so
    adding a stage or a queue-wait draw elsewhere leaves this stage's sizes unchanged."""
    digest = hashlib.sha256(f"skyplan:sizes:{int(seed)}:{stage}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def size_factors(st: StageSpec, n: int, seed: int) -> list[float]:
    """The size multiplier of each of the ``n`` tasks of ``st``."""
    kind = st.size_distribution
    if kind not in SIZE_DISTRIBUTIONS:
        raise ValueError(f"stage {st.name!r}: unknown size distribution {kind!r}; one of "
                         f"{', '.join(SIZE_DISTRIBUTIONS)}")
    if kind == "fixed":
        return [1.0] * n
    if kind == "list":
        if len(st.size_values) != n:
            raise ValueError(f"stage {st.name!r}: size_values has {len(st.size_values)} sizes for {n} tasks; "
                             f"give one per task")
        if any(not math.isfinite(v) or v < 0 for v in st.size_values):
            raise ValueError(f"stage {st.name!r}: size_values must be finite and not negative")
        return [float(v) for v in st.size_values]
    if kind == "spread":
        return _spread_factors(st, n)
    sigma = float(st.size_sigma)
    if not math.isfinite(sigma) or sigma < 0:
        raise ValueError(f"stage {st.name!r}: size_sigma must be 0 or more, not {sigma:g}")
    rng = _stage_rng(seed, st.name)
    return [math.exp(rng.gauss(-sigma * sigma / 2.0, sigma)) for _ in range(n)]


def _spread_factors(st: StageSpec, n: int) -> list[float]:
    """``spread`` sizes (:func:`simulator.model.sizes.spread_sizes`) over the stage's reference size."""
    if st.size_mean is None:
        raise ValueError(f"stage {st.name!r}: spread sizes need size_mean (with size_min and size_max)")
    mean = float(st.size_mean)
    lo = mean if st.size_min is None else float(st.size_min)
    hi = mean if st.size_max is None else float(st.size_max)
    ref = mean if st.size_reference is None else float(st.size_reference)
    if not all(math.isfinite(v) and v > 0 for v in (mean, lo, hi, ref)):
        raise ValueError(f"stage {st.name!r}: size_mean, size_min, size_max and size_reference must be positive")
    if not lo <= mean <= hi:
        raise ValueError(f"stage {st.name!r}: size_mean {mean:g} is not between size_min {lo:g} and size_max "
                         f"{hi:g}")
    return [size / ref for size in spread_sizes(n, mean, lo, hi)]


def default_placement(scenario: ScenarioSpec, stage: str) -> StagePlacement:
    """Where a stage runs when the scenario does not say: what the stage's own placement facts say
    (:func:`simulator.model.stage_defaults.fact_placement`), else the platform's compute partition (the
    first type on the cloud), as many nodes as the workload has tasks up to the type's count (or the
    platform's node limit), one pool shared by every stage, tasks onto any free slot."""
    p, w = scenario.platform, as_general(scenario.workload)
    own = fact_placement(p, w, stage, spot_ceiling_ratio=scenario.spot_price_ceiling_ratio)
    if own is not None:
        return own
    nt = p.node_type()
    total = sum(task_count(s, w) for s in w.stages) or 1
    limit = nt.count or p.max_nodes or total
    return StagePlacement(stage=stage, node_type=nt.name, nodes=max(1, min(total, limit)),
                          pricing="on_demand" if p.is_cloud else "none", policy="dynamic")


def stage_placement(scenario: ScenarioSpec, stage: str) -> StagePlacement:
    """The scenario's placement of ``stage``, or :func:`default_placement`."""
    for pl in scenario.placements:
        if pl.stage == stage:
            return pl
    return default_placement(scenario, stage)


def role_tiers(scenario: ScenarioSpec, pl: StagePlacement) -> dict[str, StorageSpec | None]:
    """The tier each storage role uses for a stage placed at ``pl``: input = ``storage_in`` (else the
    platform's first tier), output = ``storage_out`` (else the input tier), scratch =
    ``storage_scratch`` (else the platform's node-local tier, else the input tier); the one rule is
    :func:`simulator.model.placement.stage_tiers`."""
    if not scenario.platform.storage:
        return {r: None for r in ROLES}
    roles = stage_tiers(scenario.platform, pl)
    return {"input": roles.input, "scratch": roles.scratch, "output": roles.output}


class _Builder:
    """Accumulates resources, pools and tasks for one scenario."""

    def __init__(self, scenario: ScenarioSpec, rng: random.Random):
        self.sc = scenario
        self.p = scenario.platform
        self.rng = rng
        self.tasks: list[Task] = []
        self.resources: dict = {}
        self.pools: dict = {}
        self.pool_info: dict = {}
        self.pool_of: dict[tuple, str] = {}
        self.objects: list[DataObject] = []
        self.labels: dict[int, str] = {}
        self.queue_wait_s = 0.0
        self._per_stage: dict[str, int] = {}
        self.volumes: dict[int, float] = {}  # a task that wrote fresh volumes over a link -> their bytes
        self.wait_draws: list[WaitDraw] = []  # the pools' queue waits, in the order they were drawn
        self.seeded = False  # the graph depends on the seed beyond the pools' queue waits
        self._first_wait: dict[str, float] = {}  # per-job pools: the shortest wait of their jobs

    def pool(self, stage: str, pl: StagePlacement) -> str:
        nt = self.p.node_type(pl.node_type)
        pricing = pl.pricing
        if not self.p.is_cloud:
            pricing = "node_hour" if self.p.pricing.billing_unit == "node_hour" else "none"
        slots = slots_per_node(nt, pl)
        per_job = submission(self.p, pl) == "job_per_task"
        key = (nt.name, pl.policy, pl.nodes, pricing, pl.launch_interval_s, pl.queue_wait_s, slots, per_job)
        if not self.sc.single_allocation and not self.p.is_cloud and pl.policy != "elastic":
            key += (stage,)  # one allocation per stage, even for stages placed alike
        if key in self.pool_of:
            return self.pool_of[key]
        name = nt.name if nt.name not in self.pools else f"{nt.name} ({stage})"
        sched = self.p.scheduler
        wait = 0.0
        if pl.policy != "elastic" and not per_job:
            if not self.p.is_cloud:
                wait = pl.queue_wait_s if pl.queue_wait_s is not None else sample_queue_wait(sched.queue_wait, self.rng)
                self.queue_wait_s = max(self.queue_wait_s, wait)
                self.wait_draws.append(WaitDraw(name, pl.queue_wait_s, False, sched.dispatch_overhead_s))
            wait += sched.dispatch_overhead_s  # the one job of the allocation is dispatched once
        if per_job:
            self.seeded = True  # each job draws its own wait as its task is added
        self.pools[name] = make_pool(name, pl.policy, nt, pl.nodes, queue_wait_s=wait,
                                     launch_interval_s=pl.launch_interval_s, slots=slots, per_job=per_job,
                                     max_running=sched.max_running_jobs if per_job else None)
        self.pool_info[name] = PoolInfo(name, stage, nt.name, pricing, True)
        self.pool_of[key] = name
        return name

    def link(self, st: StageSpec) -> str:
        """The link ``st`` brings its data in over (its resource declared), or ""."""
        if not st.link:
            return ""
        if st.link not in LINKS:
            raise ValueError(f"stage {st.name!r}: unknown link {st.link!r}; one of {', '.join(LINKS)}")
        self.resources.setdefault(st.link, wan_resource(self.p))
        return st.link

    @staticmethod
    def over_link(link: str, acc, amount: float) -> Flow:
        """Bytes written as they come over ``link``: one flow through the link and the tier (its bandwidth, the
        node's NIC when the tier is shared, its per-client write rate); into a per-volume tier (a fresh volume of
        the task's own, written in large sequential blocks) the link alone bounds it."""
        if acc.tier.scope == "per_volume":
            return Flow((link,), float(amount), None, link)
        flow = acc.write(amount, link)
        return Flow((link,) + flow.resources, flow.amount, flow.cap, link)

    def transfer_pool(self, stage: str) -> str:
        """The centre's data-transfer node a cluster or HPC stage bringing data over a link runs on: one node
        like the compute partition's, outside the batch queue (no wait), not billed to the project (§9.3)."""
        name = "dtn"
        if name not in self.pools:
            nt = self.p.node_type()
            self.pools[name] = make_pool(name, "dynamic", nt, 1)
            self.pool_info[name] = PoolInfo(name, stage, nt.name, "none", False)
        return name

    def job_wait(self, pool: str, pl: StagePlacement) -> float:
        """One task's own queue wait when its pool submits one job per task (else 0)."""
        if not self.pools[pool].per_job:
            return 0.0
        wait = pl.queue_wait_s if pl.queue_wait_s is not None else (
            0.0 if self.p.is_cloud else sample_queue_wait(self.p.scheduler.queue_wait, self.rng))
        first = self._first_wait.get(pool)
        self._first_wait[pool] = wait if first is None else min(first, wait)
        self.queue_wait_s = max(self.queue_wait_s, self._first_wait[pool])
        return wait

    def declare(self, tier: StorageSpec | None) -> None:
        if tier is not None:
            for r in tier_resources(tier):
                self.resources.setdefault(r.name, r)

    def phases(self, st: StageSpec, pl: StagePlacement, factor: float, name: str = "compute") -> tuple[Phase, ...]:
        """The compute phase of a task (its overhead, then CPU and every role's I/O overlapping), after a copy of
        its input-role reads to scratch and before a copy of its output-role writes from scratch when the
        placement stages them (the compute phase then does that I/O on scratch).  Reads are capped by the stage's
        ``max_read_bytes_per_s`` as well as the tier's per-client rate; staging copies are not."""
        nt = self.p.node_type(pl.node_type)
        roles = stage_tiers(self.p, pl) if self.p.storage else None
        tiers = role_tiers(self.sc, pl)
        if roles is not None:
            tiers = {"input": roles.compute_in, "scratch": roles.scratch, "output": roles.compute_out}
            for t in roles.tiers():
                self.declare(t)
        nic = nic_resource(nt)
        if nic is not None:
            self.resources.setdefault(nic.name, nic)
        flows: list[Flow] = []
        link = self.link(st)
        for io in st.role_io():
            tier = tiers.get(io.role)
            if tier is None:
                if io.read_bytes or io.write_bytes:
                    raise ValueError(f"stage {st.name!r} reads or writes its {io.role} data, and platform "
                                     f"{self.p.slug!r} has no storage tier")
                continue
            self.declare(tier)
            acc = tier_access(tier, nt)
            if io.read_bytes:
                flows.append(acc.read(io.read_bytes * factor, f"{io.role}_read", cap=st.max_read_bytes_per_s))
            if io.write_bytes and link:
                flows.append(self.over_link(link, acc, io.write_bytes * factor))
            elif io.write_bytes:
                flows.append(acc.write(io.write_bytes * factor, f"{io.role}_write"))
            if io.ops:
                if acc.iops is None:
                    raise ValueError(f"stage {st.name!r} does random I/O on its {io.role} tier {tier.name!r}, "
                                     f"which has no IOPS figure: give the tier an IOPS value, or place the "
                                     f"stage's {io.role} role on another tier")
                flows.append(acc.ops(io.ops * factor, f"{io.role}_ops"))
        legacy = st.legacy_ops
        if legacy and tiers["input"] is not None:
            self.declare(tiers["input"])
            acc = tier_access(tiers["input"], nt)
            if acc.iops is not None:
                flows.append(acc.ops(legacy * factor, "rand_io"))
        speed = nt.core_speed or 1.0
        threads = effective_threads(self.p, nt, st.usable_threads)
        compute = Phase(name, cpu_seconds=st.cpu_seconds * factor * st.reference_speed / speed, threads=threads,
                        flows=tuple(flows), overhead_s=st.overhead_s)
        if roles is None or not (roles.stage_in or roles.stage_out):
            return (compute,)
        io = st.role_io()
        before, after = staging_phases(roles, nt, sum(x.read_bytes for x in io if x.role == "input") * factor,
                                       sum(x.write_bytes for x in io if x.role == "output") * factor)
        return before + (compute,) + after

    def add(self, st: StageSpec, pl: StagePlacement, deps: tuple[int, ...], factor: float, label: str,
            present: float = 0.0) -> int:
        tid = len(self.tasks)
        if st.link and not self.p.is_cloud:
            pl = replace(pl, node_type=self.p.node_type().name, nodes=1, policy="dynamic", queue_wait_s=0.0)
            pool = self.transfer_pool(st.name)
        else:
            pool = self.pool(st.name, pl)
        nt = self.p.node_type(pl.node_type)
        slot = None
        count = self._per_stage.get(st.name, 0)  # task i of a stage goes to node i mod nodes, decided beforehand
        self._per_stage[st.name] = count + 1
        if pl.policy == "static":
            slot = count % self.pools[pool].nodes
        threads = effective_threads(self.p, nt, st.usable_threads)
        phases = self.phases(st, pl, factor)
        queue_s = self.job_wait(pool, pl)
        dispatch = self.p.scheduler.dispatch_overhead_s
        if self.pools[pool].per_job and dispatch > 0:
            phases = (Phase("dispatch", overhead_s=dispatch),) + phases
        phases = self.restore_volumes(pl, tid, deps, label, present) + phases
        self.tasks.append(Task(tid, st.name, phases, deps, pool, threads, float(st.peak_memory_bytes), slot,
                               queue_s))
        self.labels[tid] = label
        self.hold_output(st, pl, tid, factor, label)
        self.hold_scratch(st, pl, tid, factor, label)
        return tid

    def restore_volumes(self, pl: StagePlacement, tid: int, deps: tuple[int, ...], label: str,
                        present: float = 0.0) -> tuple[Phase, ...]:
        """A task reading its input from a per-volume tier that upstream tasks filled over a link restores their
        volume from its snapshot first (the tier's ``snapshot_restore_time``) and holds it while it runs; with the
        link's stage left out (the data already there, ``present`` bytes of it) it holds that volume only."""
        tin = role_tiers(self.sc, pl)["input"]
        filled = [self.volumes[d] for d in deps if d in self.volumes]
        if tin is None or tin.scope != "per_volume" or not (filled or present):
            return ()
        self.objects.append(DataObject(tin.name, sum(filled) + present, tid, tid, True, f"{label} volume"))
        restore = tin.snapshot_restore_seconds
        return (Phase("volume_from_snapshot", overhead_s=restore),) if restore and filled else ()

    def hold_scratch(self, st: StageSpec, pl: StagePlacement, tid: int, factor: float, label: str) -> None:
        """What a staging task copies onto scratch (its inputs, its outputs) sits there while the task runs."""
        if not (pl.stage_in or pl.stage_out) or not self.p.storage:
            return
        roles = stage_tiers(self.p, pl)
        io = st.role_io()
        held = (sum(x.read_bytes for x in io if x.role == "input") * factor if roles.stage_in else 0.0) + (
            sum(x.write_bytes for x in io if x.role == "output") * factor if roles.stage_out else 0.0)
        if held and roles.scratch is not None:
            self.objects.append(DataObject(roles.scratch.name, held, tid, tid, True, f"{label} scratch"))

    def hold_output(self, st: StageSpec, pl: StagePlacement, tid: int, factor: float, label: str) -> None:
        """What task ``tid`` writes to its output role for ``st``, held there to the end of the run."""
        out = role_tiers(self.sc, pl)["output"]
        written = sum(io.write_bytes for io in st.role_io() if io.role == "output") * factor
        if not written or out is None:
            return
        if st.link and out.scope == "per_volume":  # a fresh volume while it is written, then its snapshot
            self.volumes[tid] = self.volumes.get(tid, 0.0) + written
            self.objects.append(DataObject(out.name, written, tid, tid, True, f"{label} volume"))
            snap = next((t.name for t in self.p.storage if t.kind == "snapshot"), None)
            if snap is not None:
                self.objects.append(DataObject(snap, written, tid, None, False, f"{label} snapshot"))
            return
        self.objects.append(DataObject(out.name, written, tid, None, False, f"{label} output"))

    def extend(self, tid: int, st: StageSpec, pl: StagePlacement, factor: float, label: str) -> None:
        """Task ``tid`` runs ``st``'s phases (placed as the task is, at ``pl``) after its own, on the same node:
        one task holding its slot throughout, using the most threads and memory any of its phases needs."""
        t = self.tasks[tid]
        nt = self.p.node_type(pl.node_type)
        threads = effective_threads(self.p, nt, st.usable_threads)
        self.tasks[tid] = Task(t.id, t.stage, t.phases + self.phases(st, pl, factor, st.name), t.deps, t.pool,
                               max(t.cores, threads), max(t.memory_bytes, float(st.peak_memory_bytes)), t.slot,
                               t.queue_s)
        self.hold_output(st, pl, tid, factor, label)
        self.hold_scratch(st, pl, tid, factor, label)

    def barrier(self, upstream: str, ids: list[int]) -> int:
        tid = len(self.tasks)
        self.tasks.append(Task(tid, f"barrier:{upstream}", (), tuple(ids), None, 1, 0.0, None))
        return tid


def _deps(st: StageSpec, n: int, ids: dict[str, list[int]], b: _Builder, barriers: dict[str, int]) -> list[list[int]]:
    """Upstream task ids of each of the ``n`` tasks of ``st``."""
    if st.dependency not in DEPENDENCY_KINDS:
        raise ValueError(f"stage {st.name!r}: unknown dependency {st.dependency!r}; one of "
                         f"{', '.join(DEPENDENCY_KINDS)}")
    out: list[list[int]] = [[] for _ in range(n)]
    if st.dependency == "continues":
        if len(st.depends_on) != 1:
            raise ValueError(f"stage {st.name!r} continues the tasks of one stage, but depends on "
                             f"{len(st.depends_on)} ({', '.join(st.depends_on) or 'none'}); name exactly one")
        up = st.depends_on[0]
        if len(ids[up]) != n:
            raise ValueError(f"stage {st.name!r} continues {up!r}'s tasks, but has {n} tasks and {up!r} has "
                             f"{len(ids[up])}; make the counts equal")
        return out  # its phases run inside the upstream tasks, which carry their dependencies
    for up in st.depends_on:
        up_ids = ids[up]
        m = len(up_ids)
        if st.dependency == "all":
            if up not in barriers:
                barriers[up] = b.barrier(up, up_ids)
            for row in out:
                row.append(barriers[up])
        elif st.dependency == "one_to_one":
            if m != n:
                raise ValueError(f"stage {st.name!r} depends one to one on {up!r}, but has {n} tasks and {up!r} "
                                 f"has {m}; make the counts equal, or use 'all' or 'grouped'")
            for i in range(n):
                out[i].append(up_ids[i])
        else:
            k = int(st.group_size)
            if k < 1:
                raise ValueError(f"stage {st.name!r}: group_size must be at least 1, not {k}")
            if math.ceil(m / k) != n:
                raise ValueError(f"stage {st.name!r} groups {up!r}'s {m} tasks by {k}, which makes "
                                 f"{math.ceil(m / k)} groups, but the stage has {n} tasks; give it one task per group")
            for i in range(n):
                out[i].extend(up_ids[i * k:(i + 1) * k])
    return out


def build_stages(scenario: ScenarioSpec, *, rng: random.Random | None = None) -> BuiltGraph:
    """The TaskGraph of a workload of the general template (or one of its older names)."""
    w = as_general(scenario.workload)
    if not w.stages:
        raise ValueError(f"workload {w.slug!r} has no stages")
    upstream = {st.name: st.depends_on for st in w.stages}
    # the stages' own placements, from the whole workload (a stage reads where its upstream writes, even left out)
    placed_by = {pl.stage for pl in scenario.placements}
    own = tuple(pl for st in w.stages if st.dependency != "continues" and st.name not in placed_by
                and (pl := fact_placement(scenario.platform, w, st.name,
                                          spot_ceiling_ratio=scenario.spot_price_ceiling_ratio)) is not None)
    if own:
        scenario = replace(scenario, placements=scenario.placements + own)
    there: dict[str, list[float]] = {}  # a stage over a link left out -> the bytes each of its tasks would bring
    if not scenario.include_copy:  # the data is already there: leave out the stages bringing it over a link
        for st in w.stages:
            if st.link:
                n = task_count(st, w)
                written = sum(io.write_bytes for io in st.role_io() if io.role == "output")
                there[st.name] = [written * f for f in size_factors(st, n, scenario.seed)]
        w = replace(w, stages=tuple(replace(st, depends_on=tuple(d for d in st.depends_on if d not in there))
                                    for st in w.stages if st.name not in there))
    scenario = replace(scenario, workload=w)
    b = _Builder(scenario, rng or random.Random(scenario.seed))
    ids: dict[str, list[int]] = {}
    barriers: dict[str, int] = {}
    placed: dict[str, StagePlacement] = {}
    for st in topological_stages(w.stages):
        n = task_count(st, w)
        factors = size_factors(st, n, scenario.seed)
        b.seeded = b.seeded or st.size_distribution == "lognormal"
        if st.dependency == "continues":
            up = st.depends_on[0] if st.depends_on else ""
            own = next((i for i, p in enumerate(scenario.placements) if p.stage == st.name), None)
            if own is not None:
                raise ValueError(f"placements[{own}]: stage {st.name!r} continues the tasks of {up!r} on their "
                                 f"nodes, so it is placed where {up!r} is; remove its placement")
            pl = placed[st.name] = placed.get(up) or stage_placement(scenario, st.name)
            chunks = work_chunks(st, w, pl)
            _deps(st, n * len(chunks), ids, b, barriers)  # checks the counts
            work = [factors[i] * k for i in range(n) for k in chunks]
            for i, (tid, factor) in enumerate(zip(ids[up], work, strict=True)):
                b.extend(tid, st, pl, factor, f"{st.name} {i}")
            ids[st.name] = ids[up]
            continue
        pl = placed[st.name] = stage_placement(scenario, st.name)
        chunks = work_chunks(st, w, pl)
        deps = _deps(st, n, ids, b, barriers)
        # one to one on a stage left out: item i's data is already on the input tier (a volume of its own there)
        present = [there[d] for d in upstream[st.name] if d in there and st.dependency == "one_to_one"
                   and len(there[d]) == n]
        tids = []
        for i in range(n):
            first = 0
            for k in chunks:
                label = f"{st.name} {i}" if len(chunks) == 1 else f"{st.name} {i} items {first}..{first + k - 1}"
                tids.append(b.add(st, pl, tuple(deps[i]), factors[i] * k, label, sum(p[i] for p in present)))
                first += k
        ids[st.name] = tids
    graph = TaskGraph(tuple(b.resources.values()), tuple(b.pools.values()), tuple(b.tasks))
    # a graph whose only draws are its pools' queue waits is built once for many seeds (simulate.prepare)
    return BuiltGraph(graph, tuple(b.objects), tuple(b.pool_info.values()), b.queue_wait_s, (), b.labels,
                      None if b.seeded else tuple(b.wait_draws))


def check_workload(workload: WorkloadSpec) -> list[tuple[str, str]]:
    """What is wrong with a workload of the general model, as ``(path, message)`` pairs; the path is relative to
    the workload's entry in a workload file (``stages[2].facts.dependency``).  Empty when it can be built on any
    platform with the tiers its roles need.  The one check the catalogue loader, the workload importer and the
    editors share."""
    if workload.template not in GENERAL_TEMPLATES:
        return []
    errors: list[tuple[str, str]] = []
    if not workload.stages:
        return [("stages", "a workload needs at least one stage")]
    index = {}
    for i, st in enumerate(workload.stages):
        if st.name in index:
            errors.append((f"stages[{i}].name", f"two stages are called {st.name!r}"))
        index.setdefault(st.name, i)
    w = as_general(workload) if not errors else workload
    counts: dict[str, int] = {}
    for i, st in enumerate(w.stages):
        at = f"stages[{i}].facts"
        try:
            counts[st.name] = task_count(st, w)
        except ValueError as exc:
            errors.append((f"{at}.tasks_per", str(exc)))
        for j, dep in enumerate(st.depends_on):
            if dep not in index:
                errors.append((f"stages[{i}].depends_on[{j}]", f"{dep!r} is not a stage of the workload "
                                                              f"({', '.join(index)})"))
        for io in st.io:
            if io.pattern not in ACCESS_PATTERNS:
                errors.append((f"{at}.{io.role}_pattern", f"unknown access pattern {io.pattern!r}; one of "
                                                          f"{', '.join(ACCESS_PATTERNS)}"))
            elif io.pattern == "random" and not io.request_bytes:
                errors.append((f"{at}.{io.role}_request_bytes", f"random access to the {io.role} tier needs a "
                                                                f"request size (e.g. 64 KiB): it sets the IOPS cost"))
        if st.reference_speed <= 0 or not math.isfinite(st.reference_speed):
            errors.append((f"{at}.reference_speed", "must be a positive number"))
        if st.link and st.link not in LINKS:
            errors.append((f"{at}.link", f"unknown link {st.link!r}; one of {', '.join(LINKS)}"))
        if st.work_items:
            try:
                task_count(replace(st, tasks_per=st.work_items), w)
            except ValueError as exc:
                errors.append((f"{at}.work_items", str(exc).replace("tasks_per", "work_items")))
        cap = st.max_read_bytes_per_s
        if cap is not None and (not math.isfinite(cap) or cap <= 0):
            errors.append((f"{at}.max_read_rate", "must be a positive rate (e.g. 100 MB/s)"))
        errors += [(f"{at}.{field}", why) for field, why in placement_fact_errors(st)]
        if st.name in counts:
            try:
                size_factors(st, counts[st.name], 0)
            except ValueError as exc:
                field = {"list": "size_values", "lognormal": "size_sigma", "spread": "size_mean"}.get(
                    st.size_distribution, "size_distribution")
                errors.append((f"{at}.{field}", str(exc)))
    if errors:
        return errors
    try:
        order = topological_stages(w.stages)
    except ValueError as exc:
        return [("stages", str(exc))]
    for st in order:
        i = index[st.name]
        n = counts[st.name]
        ids = {up: list(range(counts[up])) for up in st.depends_on}
        try:
            _deps(st, n, ids, _NoBarriers(), {})
        except ValueError as exc:
            field = ("group_size" if st.dependency == "grouped" and "group_size" in str(exc) else
                     "depends_on" if "name exactly one" in str(exc) else "dependency")
            errors.append((f"stages[{i}].facts.{field}", str(exc)))
    return errors


class _NoBarriers:
    """Stands in for the builder when only the dependency rules are checked."""

    def barrier(self, upstream: str, ids: list[int]) -> int:
        return -1
