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
from dataclasses import dataclass, replace

from simulator.graph import Flow, Phase, Task, TaskGraph

from .chiles import BuiltGraph, DataObject, PoolInfo
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
)
from .queue import sample_queue_wait
from .specs import (
    ACCESS_PATTERNS,
    DEPENDENCY_KINDS,
    ROLES,
    SIZE_DISTRIBUTIONS,
    ScenarioSpec,
    StagePlacement,
    StageSpec,
    StorageSpec,
    WorkloadSpec,
)

__all__ = [
    "GENERAL_TEMPLATES",
    "build_stages",
    "as_general",
    "task_count",
    "size_factors",
    "topological_stages",
    "default_placement",
    "stage_placement",
    "role_tiers",
    "check_workload",
    "WaitSite",
    "sizes_vary_by_seed",
    "redraw_waits",
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
    sigma = float(st.size_sigma)
    if not math.isfinite(sigma) or sigma < 0:
        raise ValueError(f"stage {st.name!r}: size_sigma must be 0 or more, not {sigma:g}")
    rng = _stage_rng(seed, st.name)
    return [math.exp(rng.gauss(-sigma * sigma / 2.0, sigma)) for _ in range(n)]


def default_placement(scenario: ScenarioSpec, stage: str) -> StagePlacement:
    """Where a stage runs when the scenario does not say: the platform's compute partition (the first
    type on the cloud), as many nodes as the workload has tasks up to the type's count (or the
    platform's node limit), one pool shared by every stage, tasks onto any free slot."""
    p, w = scenario.platform, as_general(scenario.workload)
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

    def __init__(self, scenario: ScenarioSpec, rng: random.Random, sites: list | None = None):
        self.sc = scenario
        self.p = scenario.platform
        self.rng = rng
        self.sites = sites  # where queue waits were set, in order (see redraw_waits), when asked for
        self.tasks: list[Task] = []
        self.resources: dict = {}
        self.pools: dict = {}
        self.pool_info: dict = {}
        self.pool_of: dict[tuple, str] = {}
        self.objects: list[DataObject] = []
        self.labels: dict[int, str] = {}
        self.queue_wait_s = 0.0
        self._per_pool: dict[str, int] = {}
        self._first_wait: dict[str, float] = {}  # per-job pools: the shortest wait of their jobs

    def pool(self, stage: str, pl: StagePlacement) -> str:
        nt = self.p.node_type(pl.node_type)
        pricing = pl.pricing
        if not self.p.is_cloud:
            pricing = "node_hour" if self.p.pricing.billing_unit == "node_hour" else "none"
        slots = slots_per_node(nt, pl)
        per_job = submission(self.p, pl) == "job_per_task"
        key = (nt.name, pl.policy, pl.nodes, pricing, pl.launch_interval_s, pl.queue_wait_s, slots, per_job)
        if key in self.pool_of:
            return self.pool_of[key]
        name = nt.name if nt.name not in self.pools else f"{nt.name} ({stage})"
        sched = self.p.scheduler
        wait = 0.0
        if pl.policy != "elastic" and not per_job:
            if not self.p.is_cloud:
                wait = pl.queue_wait_s if pl.queue_wait_s is not None else sample_queue_wait(sched.queue_wait, self.rng)
                self.queue_wait_s = max(self.queue_wait_s, wait)
                if self.sites is not None:
                    self.sites.append(WaitSite(name, None, pl.queue_wait_s))
            wait += sched.dispatch_overhead_s  # the one job of the allocation is dispatched once
        self.pools[name] = make_pool(name, pl.policy, nt, pl.nodes, queue_wait_s=wait,
                                     launch_interval_s=pl.launch_interval_s, slots=slots, per_job=per_job,
                                     max_running=sched.max_running_jobs if per_job else None)
        self.pool_info[name] = PoolInfo(name, stage, nt.name, pricing, True)
        self.pool_of[key] = name
        return name

    def job_wait(self, pool: str, pl: StagePlacement) -> float:
        """One task's own queue wait when its pool submits one job per task (else 0)."""
        if not self.pools[pool].per_job:
            return 0.0
        wait = pl.queue_wait_s if pl.queue_wait_s is not None else (
            0.0 if self.p.is_cloud else sample_queue_wait(self.p.scheduler.queue_wait, self.rng))
        if self.sites is not None:
            self.sites.append(WaitSite(pool, len(self.tasks), pl.queue_wait_s))
        first = self._first_wait.get(pool)
        self._first_wait[pool] = wait if first is None else min(first, wait)
        self.queue_wait_s = max(self.queue_wait_s, self._first_wait[pool])
        return wait

    def declare(self, tier: StorageSpec | None) -> None:
        if tier is not None:
            for r in tier_resources(tier):
                self.resources.setdefault(r.name, r)

    def phases(self, st: StageSpec, pl: StagePlacement, factor: float) -> tuple[Phase, ...]:
        """The compute phase of a task (its overhead, then CPU and every role's I/O overlapping), after a copy of
        its input-role reads to scratch and before a copy of its output-role writes from scratch when the
        placement stages them (the compute phase then does that I/O on scratch)."""
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
                flows.append(acc.read(io.read_bytes * factor, f"{io.role}_read"))
            if io.write_bytes:
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
        compute = Phase("compute", cpu_seconds=st.cpu_seconds * factor * st.reference_speed / speed, threads=threads,
                        flows=tuple(flows), overhead_s=st.overhead_s)
        if roles is None or not (roles.stage_in or roles.stage_out):
            return (compute,)
        io = st.role_io()
        before, after = staging_phases(roles, nt, sum(x.read_bytes for x in io if x.role == "input") * factor,
                                       sum(x.write_bytes for x in io if x.role == "output") * factor)
        return before + (compute,) + after

    def add(self, st: StageSpec, pl: StagePlacement, deps: tuple[int, ...], factor: float, label: str) -> int:
        tid = len(self.tasks)
        pool = self.pool(st.name, pl)
        nt = self.p.node_type(pl.node_type)
        slot = None
        count = self._per_pool.get(pool, 0)
        self._per_pool[pool] = count + 1
        if pl.policy == "static":
            slot = count % self.pools[pool].nodes
        threads = effective_threads(self.p, nt, st.usable_threads)
        phases = self.phases(st, pl, factor)
        queue_s = self.job_wait(pool, pl)
        dispatch = self.p.scheduler.dispatch_overhead_s
        if self.pools[pool].per_job and dispatch > 0:
            phases = (Phase("dispatch", overhead_s=dispatch),) + phases
        self.tasks.append(Task(tid, st.name, phases, deps, pool, threads, float(st.peak_memory_bytes), slot,
                               queue_s))
        self.labels[tid] = label
        out = role_tiers(self.sc, pl)["output"]
        written = sum(io.write_bytes for io in st.role_io() if io.role == "output") * factor
        if written and out is not None:
            self.objects.append(DataObject(out.name, written, tid, None, False, f"{label} output"))
        return tid

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


def build_stages(scenario: ScenarioSpec, *, rng: random.Random | None = None,
                 wait_sites: list | None = None) -> BuiltGraph:
    """The TaskGraph of a workload of the general template (or one of its older names).  ``wait_sites``: a list
    to append, in order, where the build set a queue wait (:func:`redraw_waits` draws them again)."""
    w = as_general(scenario.workload)
    if not w.stages:
        raise ValueError(f"workload {w.slug!r} has no stages")
    scenario = replace(scenario, workload=w)
    b = _Builder(scenario, rng or random.Random(scenario.seed), wait_sites)
    ids: dict[str, list[int]] = {}
    barriers: dict[str, int] = {}
    for st in topological_stages(w.stages):
        n = task_count(st, w)
        factors = size_factors(st, n, scenario.seed)
        pl = stage_placement(scenario, st.name)
        deps = _deps(st, n, ids, b, barriers)
        ids[st.name] = [b.add(st, pl, tuple(deps[i]), factors[i], f"{st.name} {i}") for i in range(n)]
    graph = TaskGraph(tuple(b.resources.values()), tuple(b.pools.values()), tuple(b.tasks))
    return BuiltGraph(graph, tuple(b.objects), tuple(b.pool_info.values()), b.queue_wait_s, (), b.labels)


@dataclass(frozen=True)
class WaitSite:
    """Where a build set a queue wait: pool ``pool``'s (``task`` None: the wait of its one allocation) or, in a pool
    submitting one job per task, task ``task``'s own; ``fixed_s`` is the placement's wait (None: drawn)."""

    pool: str
    task: int | None
    fixed_s: float | None


def sizes_vary_by_seed(workload: WorkloadSpec) -> bool:
    """Do the task sizes (so the graph beyond its queue waits) of a general-template workload depend on the seed?"""
    return any(st.size_distribution == "lognormal" for st in as_general(workload).stages)


def redraw_waits(built: BuiltGraph, sites: list[WaitSite], scenario: ScenarioSpec, rng: random.Random) -> BuiltGraph:
    """``built`` (a general-template graph whose sizes do not depend on the seed, built with ``wait_sites``) with
    the queue waits :func:`build_stages` draws from ``rng`` for ``scenario``: the same draws, in the same order, and
    the same pool waits, task waits and run wait as building the graph again with ``rng``."""
    p = scenario.platform
    sched = p.scheduler
    pools = {pool.name: pool for pool in built.graph.pools}
    tasks = None
    run_wait = 0.0
    first: dict[str, float] = {}
    for site in sites:
        if site.task is None:  # as _Builder.pool (sites are recorded only off the cloud)
            wait = site.fixed_s if site.fixed_s is not None else sample_queue_wait(sched.queue_wait, rng)
            run_wait = max(run_wait, wait)
            pools[site.pool] = replace(pools[site.pool], queue_wait_s=float(wait + sched.dispatch_overhead_s))
        else:  # as _Builder.job_wait
            wait = site.fixed_s if site.fixed_s is not None else (
                0.0 if p.is_cloud else sample_queue_wait(sched.queue_wait, rng))
            f = first.get(site.pool)
            first[site.pool] = wait if f is None else min(f, wait)
            run_wait = max(run_wait, first[site.pool])
            if tasks is None:
                tasks = list(built.graph.tasks)
            t = tasks[site.task]
            tasks[site.task] = Task(t.id, t.stage, t.phases, t.deps, t.pool, t.cores, t.memory_bytes, t.slot, wait)
    graph = replace(built.graph, pools=tuple(pools.values()),
                    tasks=built.graph.tasks if tasks is None else tuple(tasks))
    return replace(built, graph=graph, queue_wait_s=run_wait)


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
        if st.name in counts:
            try:
                size_factors(st, counts[st.name], 0)
            except ValueError as exc:
                field = "size_values" if st.size_distribution == "list" else (
                    "size_sigma" if st.size_distribution == "lognormal" else "size_distribution")
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
            field = "group_size" if st.dependency == "grouped" and "group_size" in str(exc) else "dependency"
            errors.append((f"stages[{i}].facts.{field}", str(exc)))
    return errors


class _NoBarriers:
    """Stands in for the builder when only the dependency rules are checked."""

    def barrier(self, upstream: str, ids: list[int]) -> int:
        return -1
