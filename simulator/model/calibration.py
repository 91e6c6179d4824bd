"""Fit model values the sources do not give directly to observed run times (bounded least squares).

The general mechanism is :func:`fit_demands`: some demands of a workload (a stage's per-task
demand such as ``invert.cpu_seconds``, or a workload parameter), each with bounds, are solved
for so that the simulated quantity of every observation marked for fitting matches what was
observed (relative residuals, ``scipy.optimize.least_squares`` with its trust-region
reflective method, which honours the bounds).  A ``predict(workload, observation)`` callable
gives the simulated value of one observation; :func:`scenario_predictor` builds the usual one
(the workload on the observation's platform, everything else from the records).  Every
observation, marked or not, then gets its prediction and error, the marked ones flagged
in-sample.

The catalogue's CHILES INVERT CPU split (the ``cpu_seconds`` of the invert task's serial and parallel gridding
phases, core-seconds of the profiles' reference core) is one use: its inputs are the reference
observations whose ``fit`` is ``invert_cpu`` (the cloud and HPC-centre single INVERT times,
§6.2, where the same work-unit ran on 4 threads and on 1), its prediction the very work-unit
scenario that validation compares with (:func:`work_unit_scenario`).  The catalogue stores the
result in those two stages with provenance "fitted to observations ..."
(``manage.py fit_model`` refits and stores them).  A storage tier's ``performance_cv`` is fitted apart
(:func:`fit_storage_cv`, bisection on the spread of replications).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, fields, replace

import numpy as np
from scipy.optimize import least_squares

from simulator.runner import run

from .catalogue import Observation
from .simulate import build, simulate
from .specs import PlatformSpec, ScenarioSpec, StagePlacement, WorkloadSpec
from .stages import default_placement
from .sub_pipeline import Scale, chain, sub_pipeline

__all__ = ["FittedParameter", "FIT_INVERT_CPU", "fit_invert_cpu", "invert_cpu_demands", "work_unit", "work_unit_scenario", "work_unit_time", "work_unit_staging_time",
           "invert_time_for_days",
           "with_parameters", "work_unit_spread", "fit_storage_cv", "Demand", "Prediction", "FitResult",
           "FITTABLE_STAGE_FIELDS", "QUANTITIES", "split_instance_time", "demand_value", "with_demands", "simulated_quantity", "scenario_predictor", "fit_demands"]

#: per-task stage demands that can be fitted (``<stage>.<field>``), with their base unit
FITTABLE_STAGE_FIELDS = {"cpu_seconds": "s", "overhead_s": "s", "seq_read_bytes": "B", "seq_write_bytes": "B",
                         "random_read_ops": "ops", "random_write_ops": "ops"}
#: what an observation of a run can measure: the makespan (queue wait included), the run time after the queue
#: wait, or one stage's time (``stage_time`` with the stage named: first task start to last task end)
QUANTITIES = ("makespan", "run_time", "stage_time")
#: simulations one fit may run at most, per fitted value (each one a full simulation of the workload)
MAX_EVALUATIONS_PER_VALUE = 40

#: the ``fit`` mark of the observations the INVERT CPU split is fitted to
FIT_INVERT_CPU = "invert_cpu"


@dataclass(frozen=True)
class FittedParameter:
    name: str
    value: float
    unit: str
    method: str
    sources: str
    observations: tuple[str, ...] = ()


def with_parameters(workload: WorkloadSpec, **values: float) -> WorkloadSpec:
    """``workload`` with some parameters replaced."""
    return replace(workload, parameters={**workload.parameters, **values})


@dataclass(frozen=True)
class Demand:
    """One value to fit: ``<stage>.<field>`` (a per-task demand of a stage, :data:`FITTABLE_STAGE_FIELDS`) or the
    name of a numeric workload parameter; bounds in base units."""

    name: str
    lower: float = 0.0
    upper: float = math.inf

    @property
    def stage_field(self) -> tuple[str, str] | None:
        if "." not in self.name:
            return None
        stage, name = self.name.split(".", 1)
        return stage, name

    def unit(self) -> str:
        sf = self.stage_field
        return FITTABLE_STAGE_FIELDS.get(sf[1], "") if sf else ""


def demand_value(workload: WorkloadSpec, demand: Demand) -> float:
    """The workload's current value of ``demand``; ValueError naming it when the workload has no such value."""
    sf = demand.stage_field
    if sf is not None:
        stage, name = sf
        st = workload.stage(stage)
        if st is None:
            raise ValueError(f"demands: {demand.name}: the workload has no stage {stage!r} "
                             f"(stages: {', '.join(s.name for s in workload.stages) or 'none'})")
        if name not in FITTABLE_STAGE_FIELDS:
            raise ValueError(f"demands: {demand.name}: {name!r} cannot be fitted; one of "
                             f"{', '.join(FITTABLE_STAGE_FIELDS)}")
        return float(getattr(st, name))
    value = workload.parameters.get(demand.name)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"demands: {demand.name}: not a numeric parameter of the workload, nor <stage>.<field>")
    return float(value)


def with_demands(workload: WorkloadSpec, demands: list[Demand], values) -> WorkloadSpec:
    """``workload`` with each demand set to its value (stage fields and parameters alike)."""
    params = dict(workload.parameters)
    stages = {st.name: st for st in workload.stages}
    names = {f.name for f in fields(stages[next(iter(stages))])} if stages else set()
    for d, v in zip(demands, values, strict=True):
        sf = d.stage_field
        if sf is None:
            params[d.name] = float(v)
        elif sf[1] in names:
            stages[sf[0]] = replace(stages[sf[0]], **{sf[1]: float(v)})
    return replace(workload, parameters=params, stages=tuple(stages[st.name] for st in workload.stages))


def simulated_quantity(result, quantity: str, stage: str = "") -> float:
    """The value of ``quantity`` (:data:`QUANTITIES`) in one simulation result, in seconds."""
    if quantity == "makespan":
        return float(result.makespan_s)
    if quantity == "run_time":
        return float(result.run_time_s)
    if quantity == "stage_time":
        for st in result.stages:
            if st.stage == stage:
                return float(st.end_s - st.start_s)
        raise ValueError(f"stage {stage!r} did not run in the simulation "
                         f"(stages: {', '.join(s.stage for s in result.stages)})")
    raise ValueError(f"quantity: one of {', '.join(QUANTITIES)}")


def scenario_predictor(scenarios: dict[str, Callable[[WorkloadSpec], ScenarioSpec]], *, seed: int = 0):
    """``predict(workload, observation)`` simulating the workload on the observation's platform with the scenario
    ``scenarios[platform](workload)``; the observation's ``quantity`` is ``makespan``, ``run_time`` or
    ``stage_time:<stage>``."""

    def predict(workload: WorkloadSpec, o: Observation) -> float:
        quantity, _, stage = o.quantity.partition(":")
        # the expected run (no per-task storage variability): a fit compares with observed means
        result = simulate(scenarios[o.platform](workload), seed=seed, record_utilisation=False, vary_storage=False)
        return simulated_quantity(result, quantity, stage)

    return predict


@dataclass(frozen=True)
class Prediction:
    """The model against one observation after a fit (``in_sample``: the observation was one of the fit's inputs)."""

    key: str
    quantity: str
    platform: str
    observed: float
    predicted: float | None
    error_pct: float | None
    in_sample: bool
    error: str = ""


@dataclass(frozen=True)
class FitResult:
    fitted: list[FittedParameter]
    predictions: list[Prediction]
    evaluations: int
    cost: float
    at_bound: tuple[str, ...] = ()


def fit_demands(workload: WorkloadSpec, demands: list[Demand], observations: list[Observation],
                predict: Callable[[WorkloadSpec, Observation], float], *, describe: str = "",
                progress: Callable[[int, int], None] | None = None) -> FitResult:
    """Solve for ``demands`` so the predictions of the observations marked for fitting (``fit`` non-empty) match
    them (bounded least squares on relative errors), then predict every observation with the fitted values.

    Raises ValueError naming the problem: no demand, a bound the start value cannot sit in, fewer marked
    observations than demands, an observation with no positive value, or values the marked observations cannot
    tell apart (the Jacobian is rank-deficient at the solution)."""
    if not demands:
        raise ValueError("demands: choose at least one value to fit")
    names = [d.name for d in demands]
    if len(set(names)) != len(names):
        raise ValueError("demands: each value once")
    for d in demands:
        if not (d.lower < d.upper) or math.isnan(d.lower) or math.isnan(d.upper):
            raise ValueError(f"demands: {d.name}: the lower bound must be below the upper bound")
        demand_value(workload, d)  # names a demand the workload does not have
    marked = [o for o in observations if o.fit]
    for o in observations:
        if o.value is None or not o.value > 0:
            raise ValueError(f"observation {o.key!r}: needs a positive value")
    if len(marked) < len(demands):
        raise ValueError(f"fitting {len(demands)} value(s) needs at least as many observations marked for fitting; "
                         f"found {len(marked)}")
    x0 = np.array([min(max(demand_value(workload, d), d.lower), d.upper) for d in demands], dtype=float)
    lower = np.array([d.lower for d in demands])
    upper = np.array([d.upper for d in demands])
    # a start on a bound is nudged inside (the trust-region method needs a strictly feasible start)
    span = np.where(np.isfinite(upper - lower), upper - lower, np.maximum(np.abs(x0), 1.0))
    x0 = np.clip(x0, lower + 1e-6 * span, np.where(np.isfinite(upper), upper - 1e-6 * span, np.inf))
    x0 = np.where(x0 > 0, x0, np.minimum(np.maximum(1.0, lower + 1e-6 * span), upper))
    budget = MAX_EVALUATIONS_PER_VALUE * len(demands)
    calls = [0]

    def residuals(x) -> np.ndarray:
        w = with_demands(workload, demands, x)
        out = np.array([predict(w, o) / float(o.value) - 1.0 for o in marked])
        calls[0] += 1
        if progress:
            progress(min(calls[0], budget), budget + 1)
        return out

    sol = least_squares(residuals, x0, bounds=(lower, upper), method="trf", x_scale="jac", diff_step=1e-3,
                        ftol=1e-12, xtol=1e-12, gtol=1e-12, max_nfev=budget)
    jac = np.asarray(sol.jac, dtype=float)
    if np.linalg.matrix_rank(jac, tol=1e-9 * max(1.0, float(np.abs(jac).max(initial=0.0)))) < len(demands):
        raise ValueError(f"the marked observations cannot tell {', '.join(names)} apart (changing them does not "
                         f"change the simulated times independently); mark observations that differ in what "
                         f"they exercise, or fit fewer values")
    fitted_w = with_demands(workload, demands, sol.x)
    keys = tuple(o.key for o in marked)
    method = describe or (
        f"fitted to observations {', '.join(keys)}: the workload simulated on each observation's platform with "
        f"everything else from the catalogue; {', '.join(names)} solved by bounded least squares on the relative "
        f"errors ({len(keys)} observations, {sol.nfev} simulations each)")
    sources = "; ".join(f"{o.key} = {o.value:g} s" + (f" ({o.where})" if o.where else "") for o in marked)
    fitted = [FittedParameter(d.name, float(v), d.unit(), method, sources, keys) for d, v in zip(demands, sol.x,
                                                                                                   strict=True)]
    # a value on (or within a millionth of its range of) a bound: the fit wanted to go further (said in the report)
    at_bound = tuple(d.name for d, v, sp in zip(demands, sol.x, span, strict=True)
                     if abs(v - d.lower) <= 1e-6 * sp or (math.isfinite(d.upper) and abs(d.upper - v) <= 1e-6 * sp))
    predictions = []
    for o in observations:
        try:
            p = predict(fitted_w, o)
        except (ValueError, KeyError, ZeroDivisionError) as exc:
            predictions.append(Prediction(o.key, o.quantity, o.platform, float(o.value), None, None, bool(o.fit),
                                          str(exc)))
            continue
        predictions.append(Prediction(o.key, o.quantity, o.platform, float(o.value), p,
                                      100.0 * (p - float(o.value)) / float(o.value), bool(o.fit)))
    if progress:
        progress(budget + 1, budget + 1)
    return FitResult(fitted, predictions, int(sol.nfev), float(sol.cost), at_bound)


def work_unit_scenario(platform: PlatformSpec, workload: WorkloadSpec, stage: str, *, days: int | None = None,
                       channels: float = 1.0) -> ScenarioSpec:
    """One SPLIT or INVERT work-unit alone on ``platform``, as in the paper's tests (§6.1, §6.2).

    Cloud: the stage's default instance type, one instance, no boot time; SPLIT reads
    from general-purpose block storage (the §6.1 test), INVERT stages from the object
    store (§6.2).  Cluster/HPC: one node of the compute partition on the first shared
    tier, no queue wait.  The scenario's workload is the work-unit itself (:func:`work_unit`); ``days`` and
    ``channels`` size the INVERT one."""
    if platform.is_cloud:
        base = default_placement(ScenarioSpec(platform=platform, workload=workload), stage)
        if stage == "split":
            gp = platform.storage_tier(kind="block_gp").name
            pl = replace(base, nodes=1, storage_in=gp, storage_out=gp, subbands_per_task=None)
        else:
            pl = replace(base, nodes=1, launch_interval_s=0.0)
        platform = replace(platform, node_types=tuple(replace(n, boot_seconds=0.0) for n in platform.node_types))
        pls: tuple[StagePlacement, ...] = (pl,)
    else:
        t = platform.storage[0].name
        pls = tuple(StagePlacement(s, None, 1, t, t, "none", "static") for s in ("split", "invert"))
        queue = replace(platform.scheduler.queue_wait, model="none")
        platform = replace(platform, scheduler=replace(platform.scheduler, queue_wait=queue))
    workload = work_unit(workload, stage, days=days, channels=channels)
    pls = tuple(pl for pl in pls if pl.stage == stage)
    return ScenarioSpec(platform=platform, workload=workload, placements=pls, include_copy=False,
                        label=f"single {stage}")


def work_unit(workload: WorkloadSpec, stage: str, *, days: int | None = None, channels: float = 1.0) -> WorkloadSpec:
    """The single SPLIT or INVERT work-unit of a workload of the general model, as a sub-pipeline of it
    (:func:`simulator.model.sub_pipeline.sub_pipeline`).

    SPLIT: one task of the split stage at its reference size (the §6.1 day), one sub-band.  INVERT: one task of
    the invert stage, whose record images every one of the workload's ``n_days`` days, for ``days`` days
    (default ``invert_reference_days``, the §6.2 test) of ``channels`` times its channels (§7): its CPU scaled by
    (days / n_days) ** ``invert_time_visibility_exponent`` x channels ** ``invert_time_channel_exponent``, its
    input by days / n_days x channels, its random operations and image by channels."""
    if stage == "split":
        return sub_pipeline(workload, ("split",))
    n = int(workload.param("invert_reference_days")) if days is None else int(days)
    vis = (n / float(workload.param("n_days"))) ** float(workload.param("invert_time_visibility_exponent", 0.5))
    ch = float(channels)
    cpu = vis * ch ** float(workload.param("invert_time_channel_exponent", 1.0))
    return sub_pipeline(workload, ("invert",), scale={"invert": Scale(
        cpu=cpu, input_reads=n / float(workload.param("n_days")) * ch, ops=ch, output_writes=ch)})


def work_unit_time(platform: PlatformSpec, workload: WorkloadSpec, stage: str, *, seed: int = 0):
    """The simulated task of one work-unit (see :func:`work_unit_scenario`): (seconds, bound_by)."""
    sc = work_unit_scenario(platform, workload, stage)
    r = simulate(sc, seed=seed, vary_storage=False, record_utilisation=False)
    t = r.tasks[0]
    return t.end_s - t.start_s, t.bound_by


def invert_time_for_days(platform: PlatformSpec, workload: WorkloadSpec, days: int, *, seed: int = 0,
                         channels: float = 1.0) -> float:
    """Seconds of the single INVERT work-unit (:func:`work_unit_scenario`) imaging ``days`` mean-size days of one
    sub-band ``channels`` times as wide (same channel width), as the paper's §7 tests varied the days and the
    channels imaged; the demands stay those of ``workload``'s reference work-unit."""
    sc = work_unit_scenario(platform, workload, "invert", days=days, channels=channels)
    r = simulate(sc, seed=seed, vary_storage=False, record_utilisation=False)
    return r.tasks[0].end_s - r.tasks[0].start_s


def split_instance_time(platform: PlatformSpec, workload: WorkloadSpec, day_bytes: float, *,
                        seed: int = 0) -> tuple[float, str, int] | None:
    """One cloud SPLIT instance as the epoch places it (§5.2.2: its node type, a block volume made from the day's
    snapshot, the placement's sub-bands one after the other) splitting a day of ``day_bytes``: (seconds, bound_by,
    sub-bands); ``None`` off the cloud.  No boot time, as the single work-units."""
    if not platform.is_cloud:
        return None
    quick = replace(platform, node_types=tuple(replace(n, boot_seconds=0.0) for n in platform.node_types))
    base = default_placement(ScenarioSpec(platform=platform, workload=workload), "split")
    subbands = int(base.subbands_per_task or 1)
    f = float(day_bytes) / float(workload.param("reference_day_size")) * subbands  # the day and its sub-bands
    unit = sub_pipeline(workload, ("split",), scale={"split": Scale(cpu=f, input_reads=f, ops=f, output_writes=f)})
    scenario = ScenarioSpec(platform=quick, workload=unit, placements=(replace(base, nodes=1, subbands_per_task=None),),
                            include_copy=False, label="one split instance")
    r = simulate(scenario, seed=seed, vary_storage=False, record_utilisation=False)
    t = r.tasks[0]
    return t.end_s - t.start_s, t.bound_by, subbands


STAGING_LABELS = ("stage_in", "stage_out")


def work_unit_staging_time(platform: PlatformSpec, workload: WorkloadSpec, stage: str = "invert", *,
                           seed: int = 0) -> float | None:
    """Seconds the single work-unit spent copying between the object store and its instance disk (its stage-in and
    stage-out phases, as the runner timed them), ``None`` when it stages nothing on ``platform``."""
    built = build(work_unit_scenario(platform, workload, stage), rng=random.Random(seed))
    if not any(f.label in STAGING_LABELS for t in built.graph.tasks for ph in t.phases for f in ph.flows):
        return None
    result = run(built.graph, record_utilisation=False,
                 timed_flows=lambda label: "staging" if label in STAGING_LABELS else None)
    return float(result.flow_seconds["staging"][0])


def invert_cpu_demands(workload: WorkloadSpec) -> list[Demand]:
    """The INVERT CPU split a fit solves for: the CPU of the phases of the invert task run on one thread and on
    more (``<stage>.cpu_seconds``)."""
    cpu = [st for st in chain(workload, "invert") if st.cpu_seconds > 0]
    serial = [st for st in cpu if st.usable_threads == 1]
    parallel = [st for st in cpu if st.usable_threads > 1]
    if len(serial) != 1 or len(parallel) != 1:
        raise ValueError(f"workload {workload.slug!r}: the INVERT CPU split needs one phase of the invert task on "
                         f"one thread and one on more; found {len(serial)} and {len(parallel)}")
    return [Demand(f"{serial[0].name}.cpu_seconds"), Demand(f"{parallel[0].name}.cpu_seconds")]


def fit_invert_cpu(platforms: dict[str, PlatformSpec], workload: WorkloadSpec,
                   observations: list[Observation]) -> list[FittedParameter]:
    """The INVERT CPU split (:func:`invert_cpu_demands`) reproducing the observations marked ``invert_cpu``.

    Raises ``ValueError`` when fewer than two usable observations are marked or the
    system cannot be solved (e.g. both marked runs use the same number of threads)."""
    marked = [o for o in observations if o.fit == FIT_INVERT_CPU]
    for o in marked:
        if o.quantity != "invert_single_time" or o.value is None:
            raise ValueError(f"observation {o.key!r}: only a single INVERT time can be fitted to (fit={o.fit!r})")
        if o.platform not in platforms:
            raise ValueError(f"observation {o.key!r}: platform {o.platform!r} is not in the catalogue")
    if len(marked) < 2:
        raise ValueError(f"fitting the INVERT CPU split needs two single INVERT times marked fit={FIT_INVERT_CPU!r}; "
                         f"found {len(marked)}")

    demands = invert_cpu_demands(workload)

    def predict(w: WorkloadSpec, o: Observation) -> float:
        return work_unit_time(platforms[o.platform], w, "invert")[0]

    try:
        result = fit_demands(workload, demands, marked, predict)
    except ValueError as exc:
        if "cannot tell" in str(exc):
            raise ValueError("the marked INVERT times cannot separate serial from parallel CPU (the runs use the "
                             "same number of threads, or the task is not CPU-bound)") from None
        raise
    x = tuple(f.value for f in result.fitted)
    keys = tuple(o.key for o in marked)
    method = (f"fitted to observations {', '.join(keys)}: the single INVERT work-unit (8 days x one 4 MHz sub-band) "
              f"simulated on each observation's platform with everything else from the catalogue (staging, creation, "
              f"random writes, core speed, usable threads); serial and parallel core-seconds solved so the simulated "
              f"times equal the observed ones (least squares over {len(keys)} observations)")
    days, ref = int(workload.param("n_days")), int(workload.param("invert_reference_days"))
    method += (f"; the values are the invert task's over all n_days ({days}) days, which the work-unit scales "
               f"to its {ref} (seed 000 §7: x (days / n_days)^invert_time_visibility_exponent)")
    sources = "; ".join(f"{o.key} = {o.value:g} s ({o.where})" for o in marked)
    return [FittedParameter(demands[0].name, x[0], "s", method, sources, keys),
            FittedParameter(demands[1].name, x[1], "s", method, sources, keys)]


def work_unit_spread(platform: PlatformSpec, workload: WorkloadSpec, stage: str, cv: float, tier: str, *,
                     replications: int = 200, seed: int = 1) -> tuple[float, float]:
    """Mean and standard deviation of the single work-unit's time over ``replications`` replications with the
    storage tier ``tier``'s ``performance_cv`` set to ``cv`` (the same seeds every call)."""
    import statistics

    from .simulate import replication_seed

    tiers = tuple(replace(t, performance_cv=cv) if t.name == tier else t for t in platform.storage)
    sc = work_unit_scenario(replace(platform, storage=tiers), workload, stage)
    xs = []
    for i in range(replications):
        t = simulate(sc, seed=replication_seed(seed, i), record_utilisation=False).tasks[0]
        xs.append(t.end_s - t.start_s)
    return statistics.fmean(xs), statistics.stdev(xs)


def fit_storage_cv(platform: PlatformSpec, workload: WorkloadSpec, observation: Observation, tier: str) -> float:
    """The tier's ``performance_cv`` at which the single work-unit of ``observation`` (a single SPLIT or INVERT
    time with its published standard deviation as ``scatter``) scatters as published (bisection)."""
    stage = {"split_single_time": "split", "invert_single_time": "invert"}.get(observation.quantity)
    if stage is None or not observation.scatter:
        raise ValueError(f"observation {observation.key!r}: a single work-unit time with a standard deviation needed")
    lo, hi = 0.0, 2.0
    if work_unit_spread(platform, workload, stage, hi, tier)[1] < observation.scatter:
        raise ValueError(f"{tier}: even a coefficient of variation of 2 does not spread the work-unit as published")
    for _ in range(30):
        mid = (lo + hi) / 2
        if work_unit_spread(platform, workload, stage, mid, tier)[1] < observation.scatter:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-4:
            break
    return round((lo + hi) / 2, 4)
