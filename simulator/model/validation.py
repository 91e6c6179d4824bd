"""Validate the model against the published measurements of the founding case study.

``validate(platforms, workload, observations)`` fits the CHILES demands from the
profiles (:mod:`simulator.model.calibration`), simulates every published quantity
with the engine and returns one :class:`ValidationRow` per quantity: published vs
simulated, error, target, met, whether the row is in-sample (a measurement that
entered the fit) and the assumptions used.  Where a target is missed the row says
why.  Published values come from ``observations`` (the catalogue's
``reference_observations.json``) when present, else from :data:`PUBLISHED`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .calibration import FittedParameter, fit_chiles_demands
from .catalogue import Observation
from .chiles import StagePlacement
from .queue import queue_wait_quantile
from .reference import SEED, complete_platform, reference_platforms, reference_workload
from .simulate import simulate
from .specs import PlatformSpec, ScenarioSpec, WorkloadSpec

__all__ = [
    "ValidationRow",
    "PUBLISHED",
    "TARGETS",
    "validate",
    "fitted_parameters",
    "paper_scenarios",
    "validation_markdown",
    "fitted_markdown",
]

HOUR = 3600.0

#: target relative errors
TARGETS = {"single": 0.20, "epoch": 0.25, "cost": 0.25}

#: (quantity, platform) -> (value, unit, where); used when the catalogue has no such observation
PUBLISHED: dict[tuple[str, str], tuple[float, str, str]] = {
    ("split_single_time", "aws-sydney"): (5346.0, "s", "§6.1 mean of three days"),
    ("split_single_time", "magnus"): (437.0, "s", "§6.1"),
    ("split_single_time", "pleiades"): (624.0, "s", "§6.1"),
    ("invert_single_time", "aws-sydney"): (2967.0, "s", "§6.2 incl. 287 s S3->SSD"),
    ("invert_single_time", "magnus"): (6156.0, "s", "§6.2 (std 877 s)"),
    ("invert_single_time", "pleiades"): (5541.0, "s", "§6.2"),
    ("epoch_run_time", "magnus"): (110 * HOUR, "s", "§6 ~110 h of run time"),
    ("queue_wait", "magnus"): (170 * HOUR, "s", "§6 ~170 h in the queue"),
    ("epoch_run_time", "aws-sydney"): (96 * HOUR, "s", "§6 ~96 h, manually staggered"),
    ("sequential_estimate", "pleiades"): (1060 * HOUR, "s", "§9.1 / Table 3 1,060 h (est.)"),
    ("compute_hours", "aws-sydney"): (3000.0, "h", "§9.1 ~3,000 h of computation (incl. debugging)"),
    ("compute_cost", "aws-sydney"): (225.0, "AUD", "§9.1 $225 for computation"),
    ("ebs_cost", "aws-sydney"): (1200.0, "AUD", "§9.1 $1.2K for 7 TB of on-demand EBS storage"),
    ("s3_cost", "aws-sydney"): (40.0, "AUD", "§9.1 $40 for 65 TB of S3"),
    ("node_hour_cost", "magnus"): (3240.0, "AUD", "Table 3 operational cost; = 44 nodes x 110 h x AUD 0.67 (§9.1)"),
    ("split_cpu_use", "aws-sydney"): (0.40, "", "§6.1/Fig. 5 CPU ~40% (I/O-starved)"),
}


@dataclass(frozen=True)
class ValidationRow:
    quantity: str
    platform: str
    published: float | None
    simulated: float
    unit: str
    error_pct: float | None
    target: str
    met: bool
    in_sample: bool
    assumptions: str
    explanation: str = ""
    where: str = ""


#: our quantity -> the catalogue's name for it (reference_observations.json)
ALIASES = {"sequential_estimate": "epoch_sequential_estimate", "compute_cost": "bill_compute",
           "ebs_cost": "bill_ebs", "s3_cost": "bill_s3", "node_hour_cost": "operational_cost",
           "split_cpu_use": "split_cpu_usage"}


def _published(observations: list[Observation] | None, quantity: str, platform: str):
    names = {quantity, ALIASES.get(quantity, quantity)}
    for o in observations or ():
        if o.quantity in names and o.platform == platform and isinstance(o.value, int | float):
            unit = "s" if o.unit in ("s", "min", "h", "day") else o.unit
            value = o.value
            if quantity in ("compute_hours",) and o.unit in ("h", "s", "min", "day"):
                value = o.value / HOUR
                unit = "h"
            return value, unit, o.where or o.note
    return PUBLISHED.get((quantity, platform), (None, "", ""))


def _prepare_platforms(platforms: dict[str, PlatformSpec] | None) -> dict[str, PlatformSpec]:
    ref = reference_platforms()
    if not platforms:
        return ref
    out = dict(ref)
    by_kind = {"cloud": "aws-sydney", "hpc_centre": "magnus", "cluster": "pleiades"}
    for slug, p in platforms.items():
        if slug not in ref and by_kind.get(p.kind) in ref and by_kind[p.kind] not in platforms:
            slug = by_kind[p.kind]  # the catalogue names the case-study platform differently
            p = replace(p, slug=slug)
        out[slug] = complete_platform(p, ref.get(slug))
    return out


def _workload(workload: WorkloadSpec | None) -> WorkloadSpec:
    ref = reference_workload()
    if workload is None:
        return ref
    params = {**ref.parameters, **{k: v for k, v in workload.parameters.items() if v is not None}}
    return replace(workload, parameters=params, template="chiles")


def fitted_parameters(platforms: dict[str, PlatformSpec] | None = None,
                      workload: WorkloadSpec | None = None) -> list[FittedParameter]:
    """Every fitted value with its method (demands and the fitted platform rates)."""
    ps = _prepare_platforms(platforms)
    _, fitted = fit_chiles_demands(ps, _workload(workload))
    from .reference import reference_assumptions

    extra = [FittedParameter(p.key, float(p.value), p.unit, p.where, f"{p.platform}, seed {SEED}")
             for p in reference_assumptions() if p.kind == "fitted"]
    return fitted + extra


def _single_scenario(p: PlatformSpec, w: WorkloadSpec, stage: str) -> ScenarioSpec:
    if p.is_cloud:
        if stage == "split":  # §6.1: the SPLIT test read from general-purpose EBS, one m3.xlarge
            gp = p.storage_tier(kind="block_gp").name
            pls = (StagePlacement("split", "m3.xlarge", 1, gp, gp, "spot", "elastic"),)
        else:  # §6.2: INVERT on one r3.4xlarge, input staged from S3 to its SSD (287 s)
            s3 = p.storage_tier(kind="object_store").name
            pls = (StagePlacement("invert", "r3.4xlarge", 1, s3, s3, "spot", "elastic"),)
        p = replace(p, node_types=tuple(replace(n, boot_seconds=0.0) for n in p.node_types))
    else:
        t = p.storage[0].name
        pls = tuple(StagePlacement(s, None, 1, t, t, "none", "static") for s in ("split", "invert"))
        p = replace(p, scheduler=replace(p.scheduler, queue_wait=replace(p.scheduler.queue_wait, model="none")))
    return ScenarioSpec(platform=p, workload=w, placements=pls, include_copy=False, label=f"single {stage}")


def paper_scenarios(platforms: dict[str, PlatformSpec] | None = None,
                    workload: WorkloadSpec | None = None) -> dict[str, ScenarioSpec]:
    """The epoch runs of the paper: Magnus (44 nodes, static), AWS (Table 2, spot), Pleiades (1 and 6 nodes)."""
    ps = _prepare_platforms(platforms)
    w = _workload(workload)
    pl = ps["pleiades"]
    t = pl.storage[0].name
    seq = tuple(StagePlacement(s, None, 1, t, t, "none", "static") for s in ("copy", "split", "invert", "concat"))
    par = tuple(StagePlacement(s, None, pl.max_nodes or 6, t, t, "none", "static")
                for s in ("copy", "split", "invert", "concat"))
    return {
        "magnus": ScenarioSpec(platform=ps["magnus"], workload=w, include_copy=False, label="Magnus epoch 1"),
        "aws": ScenarioSpec(platform=ps["aws-sydney"], workload=w, include_copy=True, label="AWS epoch 1"),
        "pleiades_sequential": ScenarioSpec(platform=pl, workload=w, placements=seq, include_copy=False,
                                            label="Pleiades sequential"),
        "pleiades_parallel": ScenarioSpec(platform=pl, workload=w, placements=par, include_copy=False,
                                          label="Pleiades parallel (6 nodes)"),
    }


def _row(quantity, platform, observations, simulated, target_kind, assumptions, *, in_sample=False,
         explanation_if_missed="", unit_scale=1.0, unit_override=None) -> ValidationRow:
    pub, unit, where = _published(observations, quantity, platform)
    tol = TARGETS[target_kind]
    if pub is None:
        return ValidationRow(quantity, platform, None, simulated, unit_override or unit, None, f"±{tol:.0%}", False,
                             in_sample, assumptions, "no published value", where)
    sim = simulated * unit_scale
    pub_v = pub * unit_scale
    err = (sim - pub_v) / pub_v * 100.0
    met = abs(err) <= tol * 100.0
    return ValidationRow(quantity, platform, pub_v, sim, unit_override or unit, err, f"±{tol:.0%}", met, in_sample,
                         assumptions, "" if met else explanation_if_missed, where)


def validate(platforms: dict[str, PlatformSpec] | None = None, workload: WorkloadSpec | None = None,
             observations: list[Observation] | None = None, *, seed: int = 0,
             progress=None) -> list[ValidationRow]:
    """Published vs simulated for every quantity of the case study."""
    ps = _prepare_platforms(platforms)
    w = _workload(workload)
    demands, _ = fit_chiles_demands(ps, w)
    rows: list[ValidationRow] = []
    steps = 12
    done = 0

    def tick():
        nonlocal done
        done += 1
        if progress:
            progress(done, steps)

    ref_day = demands.split_ref_day_bytes
    for slug in ("aws-sydney", "magnus", "pleiades"):
        sc = _single_scenario(ps[slug], w, "split")
        r = simulate(sc, seed=seed, demands=demands, stages=("split",), days=[ref_day], subbands=1,
                     record_utilisation=False)
        t = r.tasks[0]
        why = ""
        if slug == "aws-sydney":
            gp = sc.platform.storage_tier(sc.placements[0].storage_in)
            rate = min(v for v in (gp.read_bytes_per_s, gp.read_bytes_per_s_per_client) if v)
            why = (f"{gp.name} delivers {rate / 1e6:.0f} MB/s for the whole run in the model; Table 4 reports "
                   f"<10 MB/s typical (§6.1 ~12 MB/s is a peak) and the published mean includes slower days "
                   f"(the AWS SPLIT scatter is the largest in Fig. 4)")
        elif slug == "pleiades":
            why = "Pleiades' periodic I/O stalls (Fig. 7 troughs) are not modelled; CPU speed is an assumption"
        rows.append(_row("split_single_time", slug, observations, t.end_s - t.start_s, "single",
                         f"400 GB day, one 4 MHz sub-band; bound by {t.bound_by}", explanation_if_missed=why))
        if slug == "aws-sydney":
            cpu = demands.split_regrid_cpu_seconds / (ps[slug].node_type("m3.xlarge").core_speed or 1.0)
            use = cpu / max(t.end_s - t.start_s, 1e-9)
            pub, _, where = _published(observations, "split_cpu_use", slug)
            rows.append(ValidationRow(
                "split_cpu_use", slug, pub, use, "fraction of one core",
                None if pub is None else (use - pub) / pub * 100.0, "qualitative: < 1 (I/O-starved)", use < 1.0,
                False, "regrid CPU demand fitted on Magnus / Ivy Bridge speed",
                "" if use >= 0.3 else ("qualitative target met (CPU idles waiting on EBS), but the level is below "
                                       "the published ~40%: the Magnus-fitted regrid CPU demand at 100 MB/s "
                                       "cannot also give 40% at 10 MB/s; the paper's two profiles are not "
                                       "mutually consistent under a single CPU-per-byte law"),
                where))
        tick()
    days8 = [demands.invert_ref_day_bytes] * demands.invert_ref_days
    for slug in ("aws-sydney", "magnus", "pleiades"):
        sc = _single_scenario(ps[slug], w, "invert")
        r = simulate(sc, seed=seed, demands=demands, stages=("invert",), days=days8, subbands=1,
                     record_utilisation=False)
        t = r.tasks[0]
        rows.append(_row("invert_single_time", slug, observations, t.end_s - t.start_s, "single",
                         f"8 days x one 4 MHz sub-band (mean-size days); bound by {t.bound_by}",
                         in_sample=slug in ("aws-sydney", "magnus"),
                         explanation_if_missed="Pleiades is predicted from the AWS/Magnus fit"))
        tick()

    scen = paper_scenarios(ps, w)
    mag = simulate(scen["magnus"], seed=seed, demands=demands, record_utilisation=False)
    tick()
    rows.append(_epoch_row("epoch_run_time", "magnus", observations, mag.run_time_s, (
                    "the model's Magnus run is the largest day's SPLIT (803 GB x 120 sub-bands on one node) plus "
                    "three rounds of INVERT. The published 110 h is not broken down; it likely includes what "
                    "single work-unit profiles cannot show: job resubmissions within walltime limits, "
                    "contention from the >2000 other jobs on Lustre's metadata server (§6.2 footnote) and "
                    "re-runs. No parameter was tuned to close this gap"),
                    "44-node static allocation held for the run; 1 usable thread (SLURM); data already on Lustre "
                    "(§5.1.1, no COPY); days pinned to work-units, sub-bands cycle over nodes"))
    qw = queue_wait_quantile(ps["magnus"].scheduler.queue_wait, 0.5)
    rows.append(_epoch_row("queue_wait", "magnus", observations, qw,
                           "", "median of the lognormal queue-wait model whose median IS the published wait "
                               "(a plumbing check, not a prediction)", in_sample=True))
    rows.append(_row("node_hour_cost", "magnus", observations, mag.cost_by_category.get("compute", 0.0), "cost",
                     "44 nodes x simulated run time x AUD 0.67/node-hour (§9.1)",
                     explanation_if_missed="follows the Magnus run-time gap one-for-one (cost = 44 x hours x 0.67)"))
    aws = simulate(scen["aws"], seed=seed, demands=demands, record_utilisation=False)
    tick()
    rows.append(_epoch_row("epoch_run_time", "aws-sydney", observations, aws.run_time_s,
                           "WAN copy, concurrency and launch-staggering are assumptions (see docs/model.md)",
                           "COPY over 1 Gb/s WAN to per-day EBS volumes then snapshots; SPLIT on m3.xlarge spot, 4 "
                           "sub-bands per instance, <=40 at once, provisioned-IOPS EBS; INVERT on r3.4xlarge spot, "
                           "staged S3->SSD, at most as many as keep the spot price <=1.5x base, launched 5 min apart; "
                           "CONCAT on r3.2xlarge"))
    compute = sum(ln.aud for ln in aws.cost_lines if ln.category == "compute")
    pa = scen["aws"].platform
    kind = {t.name: t.kind for t in pa.storage}
    ebs = sum(ln.aud for ln in aws.cost_lines if ln.category in ("storage", "iops")
              and kind.get(ln.item, "").startswith(("block", "snapshot")))
    s3 = sum(ln.aud for ln in aws.cost_lines if ln.category == "storage" and kind.get(ln.item) == "object_store")
    rows.append(_row("compute_hours", "aws-sydney", observations, aws.compute_hours_billed, "cost",
                     "instance-hours billed per hour or part thereof (§5.2.2)", unit_override="h",
                     explanation_if_missed="the published ~3,000 h include debugging runs (§9.1); the model bills "
                                           "only the production epoch"))
    rows.append(_row("compute_cost", "aws-sydney", observations, compute, "cost",
                     "Table 1 spot prices, rising per concurrent instance of our own (Fig. 3, spot_rise_per_instance)",
                     explanation_if_missed="the published $225 includes debugging (§9.1) and actual spot prices over "
                                           "March 2015; the model bills only the production epoch at Table 1 prices"))
    rows.append(_row("ebs_cost", "aws-sydney", observations, ebs, "cost",
                     "volumes and snapshots integrated over the time the data sits there during the run; "
                     "2015 io1/snapshot prices (assumptions)",
                     explanation_if_missed="the paper's $1.2K is '7 TB of on-demand EBS' over the billing period "
                                           "incl. debugging; volumes kept between debugging runs are outside the run. "
                                           "The model bills only what the production run holds (about 1 TB-month of "
                                           "volumes + snapshots)"))
    rows.append(_row("s3_cost", "aws-sydney", observations, s3, "cost",
                     "split outputs, images and cubes in S3 RRS from creation to the end of the run",
                     explanation_if_missed="S3 price is a 2015 assumption"))
    seq = simulate(scen["pleiades_sequential"], seed=seed, demands=demands, record_utilisation=False)
    tick()
    rows.append(_epoch_row("sequential_estimate", "pleiades", observations, seq.run_time_s,
                           "the paper's figure is itself an estimate",
                           "one node, every work-unit one after another on the RAID-6 NFS volume"))
    par = simulate(scen["pleiades_parallel"], seed=seed, demands=demands, record_utilisation=False)
    tick()
    ratio = par.run_time_s / seq.run_time_s
    raid = scen["pleiades_parallel"].platform.storage[0]
    n_par = scen["pleiades_parallel"].placements[0].nodes
    after, expo = raid.degrade_after_streams, raid.degrade_exponent
    shape = (f"{raid.name}: aggregate x ({after}/n)^{expo:g} beyond {after} stream(s)" if after
             else f"{raid.name}: no degradation")
    rows.append(ValidationRow(
        "parallel_vs_sequential", "pleiades", None, ratio, "parallel/sequential run time", None,
        "qualitative: parallel slower than sequential (> 1)", ratio > 1.0, False,
        f"{n_par} nodes on one shared RAID; {shape} (§6/§9.5 give no number)",
        "" if ratio > 1.0 else (
            f"with this degradation the aggregate of {n_par} streams still exceeds one client's rate, so running "
            f"them together finishes sooner; the paper's 'parallel did not proceed' needs a steeper fall (the "
            f"reference assumption, after 1 stream with exponent 1.5, gives a parallel run ~4x slower)"), "§6, §9.5"))
    return rows


def _epoch_row(quantity, platform, observations, simulated_s, why, assumptions, *, in_sample=False):
    pub, unit, where = _published(observations, quantity, platform)
    sim_h = simulated_s / HOUR
    if pub is None:
        return ValidationRow(quantity, platform, None, sim_h, "h", None, "±25%", False, in_sample, assumptions,
                             "no published value", where)
    pub_h = pub / HOUR
    err = (sim_h - pub_h) / pub_h * 100.0
    met = abs(err) <= TARGETS["epoch"] * 100.0
    return ValidationRow(quantity, platform, pub_h, sim_h, "h", err, "±25%", met, in_sample, assumptions,
                         "" if met else why, where)



def _fmt(v: float | None) -> str:
    if v is None:
        return "—"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.2f}"


def validation_markdown(rows: list[ValidationRow]) -> str:
    """The validation table as Markdown (used for docs/model.md)."""
    out = ["| quantity | platform | published | simulated | unit | error % | target | met | in-sample | note |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        err = "—" if r.error_pct is None else f"{r.error_pct:+.1f}"
        note = r.explanation or r.assumptions
        out.append(f"| {r.quantity} | {r.platform} | {_fmt(r.published)} | {_fmt(r.simulated)} | {r.unit} | {err} | "
                   f"{r.target} | {'yes' if r.met else 'NO'} | {'yes' if r.in_sample else 'no'} | {note} |")
    return "\n".join(out)


def fitted_markdown(params: list[FittedParameter]) -> str:
    out = ["| parameter | value | unit | method | sources |", "|---|---|---|---|---|"]
    for p in params:
        out.append(f"| {p.name} | {p.value:,.4g} | {p.unit} | {p.method} | {p.sources} |")
    return "\n".join(out)


if __name__ == "__main__":  # python -m simulator.model.validation
    print(validation_markdown(validate()))
    print()
    print(fitted_markdown(fitted_parameters()))
