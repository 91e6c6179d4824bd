"""Run a scenario: build its TaskGraph, execute it, bill it; replications and summaries.

``simulate(scenario)`` is one deterministic replication for ``seed``; randomness
(queue waits, WAN throughput variability, spot interruptions) comes only from a
``random.Random`` seeded from it.  ``replicate(scenario, seed, index)`` derives an
independent seed per replication index deterministically, so the Django app can
fan replications out as Celery tasks; ``summarise`` gives P10/P50/P90.
"""

from __future__ import annotations

import hashlib
import math
import random
import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from simulator.collector import collector_paused
from simulator.errors import ContractError
from simulator.graph import Phase, TaskGraph
from simulator.runner import run

from .achieved import AchievedIO, achieved_io, io_amounts, io_timer
from .billing import Bill, CostLine, bill, gb_months, storage_intervals
from .built import BuiltGraph
from .placement import share_node_cores
from .queue import sample_queue_wait
from .specs import ScenarioSpec
from .spot import sample_interruption
from .stages import GENERAL_TEMPLATES, as_general, build_stages

__all__ = [
    "TaskBar",
    "StageTiming",
    "SimulationResult",
    "Summary",
    "build",
    "Model",
    "prepare",
    "check_scenario",
    "simulate",
    "replicate",
    "replication_seed",
    "summarise",
]

Progress = Callable[[int, int], None] | None


@dataclass(frozen=True)
class TaskBar:
    id: int
    stage: str
    label: str
    pool: str | None
    node: str
    ready_s: float
    start_s: float
    end_s: float
    bound_by: str


@dataclass(frozen=True)
class StageTiming:
    stage: str
    start_s: float
    end_s: float
    tasks: int
    task_seconds: float
    dominant_bound: str
    bound_shares: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class SimulationResult:
    label: str
    platform: str
    workload: str
    seed: int
    makespan_s: float  # from submission to the last task, queue wait included
    queue_wait_s: float
    run_time_s: float  # makespan minus the queue wait
    stages: tuple[StageTiming, ...]
    tasks: tuple[TaskBar, ...]
    utilisation: dict[str, float]  # resource instance -> mean rate in use over the run (units/s)
    utilisation_series: dict[str, tuple[tuple[float, float], ...]]
    node_hours_used: float
    compute_hours_billed: float
    gb_months: dict[str, float]
    bytes_moved: dict[str, float]
    cost_lines: tuple[CostLine, ...]
    cost_by_category: dict[str, float]
    total_cost_aud: float
    notes: tuple[str, ...] = ()
    #: per-task read bandwidth and random-I/O rates the run achieved (:mod:`simulator.model.achieved`)
    achieved_io: AchievedIO | None = None


@dataclass(frozen=True)
class Summary:
    n: int
    makespan_p10_s: float
    makespan_p50_s: float
    makespan_p90_s: float
    cost_p10_aud: float
    cost_p50_aud: float
    cost_p90_aud: float


def check_scenario(scenario: ScenarioSpec) -> None:
    """Refuse options the model would otherwise ignore; a :class:`~simulator.errors.ContractError` (a ValueError)
    names the field by its path.

    A ``queue_wait_s`` above zero is refused where nothing queues: on elastic instances, on the cloud (unless the stage submits
    one job per task), and on a cluster or HPC stage that brings its data over a link (it runs on the centre's
    data-transfer node, outside the batch queue).  On a batch platform with ``single_allocation`` the run waits
    once, for the one allocation its batch stages share: a per-stage wait can only be honoured if every one of
    them gives the same value."""
    p = scenario.platform
    w = as_general(scenario.workload)
    linked = {s.name for s in w.stages if s.link}
    waits = {}
    for i, pl in enumerate(scenario.placements):
        if pl.queue_wait_s is None:
            continue
        where = f"options.placements[{i}].queue_wait_s"
        per_job = (pl.submission or p.scheduler.submission) == "job_per_task"
        queues = not (pl.policy == "elastic" or (p.is_cloud and not per_job) or (pl.stage in linked and not p.is_cloud))
        if not queues and pl.queue_wait_s == 0:
            continue  # no wait where nothing queues: nothing to honour
        if pl.policy == "elastic" or (p.is_cloud and not per_job):
            raise ContractError.at(where, f"stage {pl.stage!r} runs on {'the cloud' if p.is_cloud else 'elastic'} "
                                          f"instances, which do not queue; remove the queue wait")
        if pl.stage in linked and not p.is_cloud:
            raise ContractError.at(where, f"stage {pl.stage!r} brings its data over the {w.stage(pl.stage).link} "
                                          f"link on the centre's data-transfer node, outside the batch queue; "
                                          f"remove the queue wait")
        if not per_job:
            waits[pl.stage] = (where, pl.queue_wait_s)
    if scenario.single_allocation and not p.is_cloud and waits:
        placed = {pl.stage: pl for pl in scenario.placements}
        batch = [s.name for s in w.stages if s.dependency != "continues" and s.name not in linked
                 and (s.name not in placed or (placed[s.name].policy != "elastic"
                                               and (placed[s.name].submission or p.scheduler.submission)
                                               != "job_per_task"))]
        values = {waits.get(s, (None, None))[1] for s in batch}
        if len(values) > 1:
            where = next(iter(waits.values()))[0]
            raise ContractError.at(where, f"with single_allocation the run waits once for one allocation shared by "
                                          f"{', '.join(batch)}; give every one of them the same queue wait, or set "
                                          f"single_allocation to false to queue each stage on its own")


def build(scenario: ScenarioSpec, *, rng: random.Random | None = None, **kwargs) -> BuiltGraph:
    """The TaskGraph of ``scenario``'s workload (tasks sharing a node share its cores)."""
    built = _build(scenario, rng=rng, **kwargs)
    return replace(built, graph=share_node_cores(built.graph))


def _build(scenario: ScenarioSpec, *, rng: random.Random | None = None, **kwargs) -> BuiltGraph:
    rng = rng or random.Random(scenario.seed)
    t = scenario.workload.template
    if t in GENERAL_TEMPLATES:
        return build_stages(scenario, rng=rng, **kwargs)
    raise ValueError(f"unknown workload template {t!r}; expected {', '.join(GENERAL_TEMPLATES)}")


@dataclass(frozen=True, eq=False)
class Model:
    """A scenario's model built once for all its replications (:func:`prepare`): the task graph, pools and data
    objects, which do not depend on the seed, and where the draws that do go, so that a replication only makes its
    draws (queue waits, WAN throughput, storage performance, spot interruptions) before the engine runs."""

    scenario: ScenarioSpec
    #: the graph built once, its queue waits to be drawn again per seed; None: built again for every seed (a
    #: general-model build that draws lognormal task sizes or one queue wait per job)
    built: BuiltGraph | None
    scatter: _Scatter | None
    #: the I/O amounts of the built graph's tasks (:func:`~simulator.model.achieved.io_amounts`), which every
    #: replication's achieved I/O divides by its own seconds
    amounts: tuple | None = None

    def built_for(self, scenario: ScenarioSpec, rng: random.Random) -> BuiltGraph:
        """The graph of one replication, drawing its queue waits from ``rng`` as :func:`build` does."""
        if self.built is None:
            return build(scenario, rng=rng)
        spec = scenario.platform.scheduler.queue_wait
        pools = {p.name: p for p in self.built.graph.pools}
        run_wait = 0.0
        for d in self.built.wait_draws:
            wait = d.fixed_s if d.fixed_s is not None else sample_queue_wait(spec, rng)
            run_wait = wait if d.allocation else max(run_wait, wait)
            pools[d.pool] = replace(pools[d.pool], queue_wait_s=float(wait) + d.extra_s)
        graph = replace(self.built.graph, pools=tuple(pools.values()))
        return replace(self.built, graph=graph, queue_wait_s=run_wait)

    def simulate(self, seed: int, **kwargs) -> SimulationResult:
        """Replication ``seed`` of the scenario: the same result as :func:`simulate` gives without the model."""
        return simulate(self.scenario, seed=seed, model=self, **kwargs)


def prepare(scenario: ScenarioSpec) -> Model:
    """Build ``scenario``'s model once for replications that differ only by seed (:meth:`Model.simulate`)."""
    built = build(scenario, rng=random.Random(scenario.seed))
    built = None if built.wait_draws is None else built  # None: the build draws more than queue waits
    graph = built.graph if built is not None else None
    scatter = _Scatter(graph, {t.name: t.performance_cv for t in scenario.platform.storage}) if graph else None
    return Model(scenario, built, scatter, io_amounts(graph.tasks) if graph else None)


def _wan_variability(graph: TaskGraph, cv: float | None, rng: random.Random) -> TaskGraph:
    """Scale the WAN capacity by a lognormal factor with the platform's coefficient of variation."""
    if not cv:
        return graph
    sigma = math.sqrt(math.log(1.0 + cv * cv))
    factor = math.exp(rng.gauss(-sigma * sigma / 2.0, sigma))
    res = tuple(replace(r, capacity=r.capacity * factor) if r.name == "wan" else r for r in graph.resources)
    return replace(graph, resources=res)


def _tier_of(resource: str, cvs: dict[str, float]) -> str | None:
    """The storage tier a resource name belongs to (``tier``, ``tier:iops``, either with ``@node``)."""
    name = resource.split("@", 1)[0]
    name = name[:-len(":iops")] if name.endswith(":iops") else name
    return name if name in cvs else None


class _Scatter:
    """Where the storage performance factors of :func:`_storage_variability` apply in one graph, worked out once so
    that a model built once for many seeds only draws the factors and scales the flows for each."""

    __slots__ = ("sigmas", "plan")

    def __init__(self, graph: TaskGraph, cvs: dict[str, float]):
        cvs = {k: v for k, v in cvs.items() if v}
        self.sigmas = {tier: math.sqrt(math.log(1.0 + cv ** 2)) for tier, cv in cvs.items()}
        flow_tiers: dict[tuple[str, ...], tuple[str, ...]] = {}  # a flow's resources -> the varied tiers they are in

        def tiers_of(resources: tuple[str, ...]) -> tuple[str, ...]:
            tiers = flow_tiers.get(resources)
            if tiers is None:
                tiers = flow_tiers[resources] = tuple({tier for r in resources
                                                       if (tier := _tier_of(r, cvs)) is not None})
            return tiers

        shared: dict[int, tuple] = {}  # id of a phases tuple (tasks share them) -> (tiers used, varied phases)
        #: (task index, the tiers it uses sorted, its phases with a varied flow as (phase index, ((flow index, its
        #: tier, or its tiers when it crosses several), ...))): only what a draw changes, so that it loops over
        #: nothing else
        self.plan: list[tuple] = []
        if not cvs:
            return
        for i, t in enumerate(graph.tasks):
            entry = shared.get(id(t.phases))
            if entry is None:
                varied_phases = []
                for k, ph in enumerate(t.phases):
                    varied = tuple((m, tiers[0] if len(tiers) == 1 else tiers)
                                   for m, fl in enumerate(ph.flows) if (tiers := tiers_of(fl.resources)))
                    if varied:
                        varied_phases.append((k, varied))
                used = tuple(sorted({tier for _, varied in varied_phases for _, tiers in varied
                                     for tier in ((tiers,) if isinstance(tiers, str) else tiers)}))
                entry = shared[id(t.phases)] = (used, tuple(varied_phases))
            if entry[0]:
                self.plan.append((i, *entry))

    def draw(self, graph: TaskGraph, rng: random.Random) -> TaskGraph:
        """``graph`` (the one this was made from, or one with the same tasks) with the factors of one replication."""
        if not self.plan:
            return graph
        params = {tier: (-sigma * sigma / 2.0, sigma) for tier, sigma in self.sigmas.items()}  # lognormal, mean 1
        gauss, exp = rng.gauss, math.exp
        tasks = list(graph.tasks)
        for i, used, varied_phases in self.plan:
            factors = {}
            for tier in used:
                mu, sigma = params[tier]
                factors[tier] = exp(gauss(mu, sigma))
            t = tasks[i]
            phases = list(t.phases)
            for k, varied in varied_phases:
                ph = phases[k]
                flows = list(ph.flows)
                for m, tiers in varied:
                    flows[m] = flows[m].scaled(factors[tiers] if tiers.__class__ is str
                                               else max(factors[tier] for tier in tiers))
                phases[k] = ph.with_flows(tuple(flows))
            tasks[i] = t.with_phases(tuple(phases))
        return replace(graph, tasks=tuple(tasks))


def _storage_variability(graph: TaskGraph, cvs: dict[str, float], rng: random.Random) -> TaskGraph:
    """Each task's work on a tier with a ``performance_cv`` takes a lognormal factor (mean 1, that coefficient of
    variation), drawn per task and tier: the rate the task gets from the tier varies as the measured scatter of
    repeated work-units does (the amounts its flows move through the tier are scaled by the largest factor of the
    tiers they go through)."""
    return _Scatter(graph, cvs).draw(graph, rng)


def _with_interruptions(built: BuiltGraph, durations: dict[int, float], scenario: ScenarioSpec,
                        rng: random.Random) -> tuple[BuiltGraph, list[str]]:
    spot_pools = {pi.pool for pi in built.pools if pi.pricing == "spot"}
    elastic = {p.name: p for p in built.graph.pools if p.policy == "elastic"}
    tasks = list(built.graph.tasks)
    notes = []
    for i, t in enumerate(tasks):
        if t.pool in spot_pools and t.pool in elastic:
            it = sample_interruption(durations.get(t.id, 0.0), scenario.spot_interruption_rate_per_hour,
                                     elastic[t.pool].boot_s, rng)
            if it is not None:
                tasks[i] = replace(t, phases=(Phase("interrupted_rework", overhead_s=it.extra_s),) + t.phases)
                notes.append(f"task {t.id} ({t.stage}) interrupted after {it.after_s:.0f} s, "
                             f"{it.lost_s:.0f} s of work redone on an on-demand fallback")
    return replace(built, graph=replace(built.graph, tasks=tuple(tasks))), notes


def _stage_timings(tasks, records) -> tuple[StageTiming, ...]:
    """Per stage: its first start, last end, tasks, task-seconds and what bounded them (``records``: the run's
    :class:`~simulator.graph.TaskRecords` of ``tasks``, read by column)."""
    acc: dict[str, list] = {}  # stage -> [start, end, tasks, task-seconds, bound kind -> seconds]
    for t, start, end, bound in zip(tasks, records.start_s, records.end_s, records.bound_by, strict=True):
        if t.pool is None:
            continue
        a = acc.get(t.stage)
        if a is None:
            a = acc[t.stage] = [start, end, 0, 0.0, defaultdict(float)]
        a[0] = min(a[0], start)
        a[1] = max(a[1], end)
        a[2] += 1
        d = end - start
        a[3] += d
        a[4][bound.split("@")[0] if bound else ""] += d
    out = []
    for stage, (start, end, n, secs, bounds) in acc.items():
        total = sum(bounds.values()) or 1.0
        shares = {k: v / total for k, v in sorted(bounds.items(), key=lambda kv: -kv[1])}
        dom = next(iter(shares), "")
        out.append(StageTiming(stage, start, end, n, secs, dom, shares))
    return tuple(sorted(out, key=lambda s: s.start_s))


@collector_paused()
def simulate(scenario: ScenarioSpec, *, seed: int | None = None, progress: Progress = None,
             record_utilisation: bool = True, vary_storage: bool = True, model: Model | None = None,
             task_bars: bool = True) -> SimulationResult:
    """One replication of ``scenario`` (``seed`` defaults to ``scenario.seed``).

    ``task_bars=False`` leaves out every task's bar (``tasks`` is empty; the rest is the same), for replications
    kept without their detail.

    ``vary_storage=False`` leaves out the per-task storage variability (validation compares published means with
    the model's expected run, and fits solve against it).  ``model``: ``scenario``'s model built once by
    :func:`prepare`, reused instead of building the graph again."""
    if model is not None and model.scenario is not scenario:
        raise ValueError("a prepared model simulates its own scenario")
    seed = scenario.seed if seed is None else int(seed)
    scenario = replace(scenario, seed=seed)
    check_scenario(scenario)
    rng = random.Random(seed)
    total_steps = 4
    if progress:
        progress(0, total_steps)
    if model is not None:
        built = model.built_for(scenario, rng)
    else:
        built = build(scenario, rng=rng)
    nominal_tasks = built.graph.tasks  # the bytes tasks move, before storage variability scales them
    graph = _wan_variability(built.graph, scenario.platform.wan.variability, rng)
    if vary_storage:
        storage_rng = random.Random(f"{seed}:storage")
        if model is not None and model.scatter is not None:
            graph = model.scatter.draw(graph, storage_rng)
        else:
            graph = _storage_variability(graph, {t.name: t.performance_cv for t in scenario.platform.storage},
                                         storage_rng)
    built = replace(built, graph=graph)
    if progress:
        progress(1, total_steps)
    result = run(built.graph, record_utilisation=record_utilisation, progress=_scaled(progress, 1, total_steps),
                 timed_flows=io_timer)
    notes = list(built.notes)
    if scenario.spot_interruptions:
        durations = {t.id: t.end_s - t.start_s for t in result.tasks}
        built, extra = _with_interruptions(built, durations, scenario, rng)
        notes += extra
        if extra:
            result = run(built.graph, record_utilisation=record_utilisation, timed_flows=io_timer)
    if progress:
        progress(2, total_steps)
    b: Bill = bill(built, result, scenario)
    if progress:
        progress(3, total_steps)
    bars = ()
    tasks = built.graph.tasks
    if task_bars:
        labels = built.task_labels
        rec = result.tasks
        bars = tuple(map(TaskBar, range(len(tasks)), [t.stage for t in tasks], [labels.get(i, "") for i in range(len(tasks))],
                         [t.pool for t in tasks], rec.node, rec.ready_s, rec.start_s, rec.end_s, rec.bound_by))
    mean_util = {}
    span = result.makespan_s or 1.0
    # the shared cores of multi-slot nodes are core-seconds, not bytes: kept out of what moved and utilisation
    moved_by = {k: v for k, v in result.moved.items() if not k.startswith("cpu@")}
    for name, moved in moved_by.items():
        mean_util[name] = moved / span
    gbm = dict(b.gb_months)
    if not gbm:
        for tier, nbytes, a, bb, _ in storage_intervals(built, result, scenario.retention_after_run_s):
            gbm[tier] = gbm.get(tier, 0.0) + gb_months(nbytes, bb - a)
    out = SimulationResult(
        label=scenario.label or f"{scenario.workload.slug} on {scenario.platform.slug}",
        platform=scenario.platform.slug, workload=scenario.workload.slug, seed=seed,
        makespan_s=result.makespan_s, queue_wait_s=built.queue_wait_s,
        run_time_s=result.makespan_s - built.queue_wait_s,
        stages=_stage_timings(tasks, result.tasks), tasks=bars, utilisation=mean_util,
        utilisation_series={k: v for k, v in result.utilisation.items() if not k.startswith("cpu@")}
        if record_utilisation else {},
        node_hours_used=b.compute_hours_used, compute_hours_billed=b.compute_hours_billed, gb_months=gbm,
        bytes_moved=moved_by, cost_lines=b.lines, cost_by_category=b.by_category,
        total_cost_aud=b.total_aud, notes=tuple(notes),
        achieved_io=achieved_io(nominal_tasks, result.flow_seconds,
                                model.amounts if model is not None and model.built is not None else None))
    if progress:
        progress(4, total_steps)
    return out


def _scaled(progress: Progress, step: int, total_steps: int) -> Progress:
    """Map the runner's (done, n) tasks onto step ``step``..``step + 1`` of ``total_steps``."""
    if progress is None:
        return None
    scale = 1000

    def report(done: int, n: int) -> None:
        progress(step * scale + (scale * done) // max(n, 1), total_steps * scale)

    return report


def replication_seed(seed: int, index: int) -> int:
    """The seed of replication ``index``: ``seed`` itself for index 0 (so one replication of a scenario is the run
    of its seed, wherever it is made: a job, validation, a search), else an independent 63-bit seed (stable across
    processes)."""
    if int(index) == 0:
        return int(seed)
    h = hashlib.sha256(f"skyplan:{int(seed)}:{int(index)}".encode()).digest()
    return int.from_bytes(h[:8], "big") >> 1


def replicate(scenario: ScenarioSpec, seed: int, index: int, **kwargs) -> SimulationResult:
    """Replication ``index`` of ``scenario`` (index 0 uses ``seed`` itself)."""
    return simulate(scenario, seed=replication_seed(seed, index), **kwargs)


def _quantile(xs: list[float], q: float) -> float:
    if len(xs) == 1:
        return xs[0]
    return statistics.quantiles(xs, n=100, method="inclusive")[max(0, min(98, round(q * 100) - 1))]


def summarise(results: list[SimulationResult]) -> Summary:
    """P10/P50/P90 of makespan and total cost over replications."""
    if not results:
        raise ValueError("no results to summarise")
    def get(r, name):
        return r[name] if isinstance(r, dict) else getattr(r, name)

    ms = sorted(float(get(r, "makespan_s")) for r in results)
    cs = sorted(float(get(r, "total_cost_aud")) for r in results)
    return Summary(len(results), _quantile(ms, 0.1), _quantile(ms, 0.5), _quantile(ms, 0.9),
                   _quantile(cs, 0.1), _quantile(cs, 0.5), _quantile(cs, 0.9))

