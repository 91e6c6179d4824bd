"""Fit the model values the sources do not give directly, from the observations marked for it.

One value pair is fitted: the INVERT CPU demand split into a serial part and a part
that runs on the stage's threads (``invert_cpu_serial``, ``invert_cpu_parallel``,
core-seconds of the profiles' reference core).  Its inputs are the reference
observations whose ``fit`` is ``invert_cpu`` (in the catalogue: the cloud and HPC-centre
single INVERT times, §6.2, where the same work-unit ran on 4 threads and on 1).  The
fit simulates the very work-unit scenario that validation compares with
(:func:`work_unit_scenario`), so everything else in it (staging, creation, random
writes, core speeds) comes from the records, and solves for the two values that
reproduce the marked observations (Gauss-Newton on the simulated task time).  The
catalogue stores the result as two workload parameters with provenance "fitted to
observations ..." (``manage.py fit_model`` refits and stores them).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .catalogue import Observation
from .chiles import default_placements
from .simulate import simulate
from .specs import PlatformSpec, ScenarioSpec, StagePlacement, WorkloadSpec

__all__ = ["FittedParameter", "FIT_INVERT_CPU", "fit_invert_cpu", "work_unit_scenario", "work_unit_time",
           "with_parameters", "work_unit_spread", "fit_storage_cv"]

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


def work_unit_scenario(platform: PlatformSpec, workload: WorkloadSpec, stage: str) -> ScenarioSpec:
    """One SPLIT or INVERT work-unit alone on ``platform``, as in the paper's tests (§6.1, §6.2).

    Cloud: the stage's default instance type, one instance, no boot time; SPLIT reads
    from general-purpose block storage (the §6.1 test), INVERT stages from the object
    store (§6.2).  Cluster/HPC: one node of the compute partition on the first shared
    tier, no queue wait."""
    if platform.is_cloud:
        base = {p.stage: p for p in default_placements(platform, workload)}[stage]
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
    return ScenarioSpec(platform=platform, workload=workload, placements=pls, include_copy=False,
                        label=f"single {stage}")


def work_unit_time(platform: PlatformSpec, workload: WorkloadSpec, stage: str, *, seed: int = 0):
    """The simulated task of one work-unit (see :func:`work_unit_scenario`): (seconds, bound_by)."""
    w = workload
    if stage == "split":
        kwargs = {"days": [float(w.param("reference_day_size"))]}
    else:
        kwargs = {"days": [float(w.param("day_size_mean"))] * int(w.param("invert_reference_days"))}
    r = simulate(work_unit_scenario(platform, workload, stage), seed=seed, stages=(stage,), subbands=1,
                 vary_storage=False, record_utilisation=False, **kwargs)
    t = r.tasks[0]
    return t.end_s - t.start_s, t.bound_by


def fit_invert_cpu(platforms: dict[str, PlatformSpec], workload: WorkloadSpec,
                   observations: list[Observation]) -> list[FittedParameter]:
    """``invert_cpu_serial`` and ``invert_cpu_parallel`` reproducing the observations marked ``invert_cpu``.

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

    def residuals(x: tuple[float, float]) -> list[float]:
        w = with_parameters(workload, invert_cpu_serial=x[0], invert_cpu_parallel=x[1])
        return [work_unit_time(platforms[o.platform], w, "invert")[0] - float(o.value) for o in marked]

    x = (float(workload.param("invert_cpu_serial", 1000.0)), float(workload.param("invert_cpu_parallel", 1000.0)))
    for _ in range(20):
        r = residuals(x)
        if max(abs(v) for v in r) < 1e-6:
            break
        cols = []
        for i in range(2):
            h = max(1.0, 0.01 * x[i])
            xs = list(x)
            xs[i] += h
            cols.append([(a - b) / h for a, b in zip(residuals((xs[0], xs[1])), r, strict=True)])
        # normal equations of the 2-column least-squares step: (J^T J) d = -J^T r
        a11 = sum(v * v for v in cols[0])
        a12 = sum(u * v for u, v in zip(cols[0], cols[1], strict=True))
        a22 = sum(v * v for v in cols[1])
        b1 = -sum(u * v for u, v in zip(cols[0], r, strict=True))
        b2 = -sum(u * v for u, v in zip(cols[1], r, strict=True))
        det = a11 * a22 - a12 * a12
        if abs(det) < 1e-12 * max(a11 * a22, 1e-300):
            raise ValueError("the marked INVERT times cannot separate serial from parallel CPU (the runs use the "
                             "same number of threads, or the task is not CPU-bound)")
        x = (max(0.0, x[0] + (b1 * a22 - b2 * a12) / det), max(0.0, x[1] + (a11 * b2 - a12 * b1) / det))
    keys = tuple(o.key for o in marked)
    method = (f"fitted to observations {', '.join(keys)}: the single INVERT work-unit (8 days x one 4 MHz sub-band) "
              f"simulated on each observation's platform with everything else from the catalogue (staging, creation, "
              f"random writes, core speed, usable threads); serial and parallel core-seconds solved so the simulated "
              f"times equal the observed ones (least squares over {len(keys)} observations)")
    sources = "; ".join(f"{o.key} = {o.value:g} s ({o.where})" for o in marked)
    return [FittedParameter("invert_cpu_serial", x[0], "s", method, sources, keys),
            FittedParameter("invert_cpu_parallel", x[1], "s", method, sources, keys)]


def work_unit_spread(platform: PlatformSpec, workload: WorkloadSpec, stage: str, cv: float, tier: str, *,
                     replications: int = 200, seed: int = 1) -> tuple[float, float]:
    """Mean and standard deviation of the single work-unit's time over ``replications`` replications with the
    storage tier ``tier``'s ``performance_cv`` set to ``cv`` (the same seeds every call)."""
    import statistics

    from .simulate import replication_seed

    tiers = tuple(replace(t, performance_cv=cv) if t.name == tier else t for t in platform.storage)
    sc = work_unit_scenario(replace(platform, storage=tiers), workload, stage)
    w = workload
    days = ([float(w.param("reference_day_size"))] if stage == "split"
            else [float(w.param("day_size_mean"))] * int(w.param("invert_reference_days")))
    xs = []
    for i in range(replications):
        t = simulate(sc, seed=replication_seed(seed, i), stages=(stage,), subbands=1, record_utilisation=False,
                     days=days).tasks[0]
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
