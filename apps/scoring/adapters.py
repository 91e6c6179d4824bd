"""The one adapter between the ORM / simulator results and the scoring logic's plain inputs.

It also runs the epoch simulations scoring needs: on the paper's three platforms the paper's own epoch
runs (the plain epoch scenario that validation also uses, :mod:`simulator.model.validation`; Pleiades as the
sequential run the paper estimated, since its parallel run did not complete), elsewhere the platform's default
placements.
Each platform is simulated ``replications`` times and the median-makespan replication represents it.
"""

from __future__ import annotations

from dataclasses import asdict

from apps.platforms.models import Platform
from apps.scenarios.adapters import platform_spec, workload_spec
from apps.scoring.logic.criteria import CriterionSpec
from apps.scoring.logic.inputs import NodeFacts, PlatformInputs, RunSummary, StorageFacts
from apps.workloads.models import ReferenceObservation, Workload
from simulator.model.simulate import replicate
from simulator.model.specs import ScenarioSpec
from simulator.model.validation import epoch_scenario, sequential_scenario

__all__ = ["platform_inputs", "criterion_specs", "simulate_epochs", "published_table", "workload_volume",
           "summary_from_results", "summary_from_median", "PAPER_SCENARIO"]

#: catalogue slug -> the paper's epoch run used to score it
PAPER_SCENARIO = {"magnus": epoch_scenario, "aws-sydney": epoch_scenario, "pleiades": sequential_scenario}


def platform_inputs(platform: Platform, run: RunSummary | None) -> PlatformInputs:
    facts = {name: getattr(platform, name) for name in Platform.FACT_FIELDS}
    storage = tuple(StorageFacts(t.name, t.kind, t.read_bw, t.read_bw_per_client, t.iops, t.iops_per_client,
                                 t.price_per_gb_month) for t in platform.storage_tiers.all())
    nodes = tuple(NodeFacts(n.name, int(n.cores or 1), n.on_demand_price, n.spot_price)
                  for n in platform.node_types.all())
    return PlatformInputs(platform.slug, platform.name, platform.kind, facts, storage, nodes, run)


def criterion_specs(queryset) -> list[CriterionSpec]:
    return [CriterionSpec(c.key, c.label, c.metric, c.direction, c.rubric, c.weight) for c in queryset]


def _achieved(io: dict | None) -> dict:
    """The RunSummary fields of a result's ``achieved_io`` (none when the run did not record it)."""
    if not io:
        return {}
    return {"read_bytes_per_s": io["read_bytes_per_s_median"], "read_tasks": io["read_tasks"],
            "ops_per_s": io["ops_per_s_median"], "ops_tasks": io["ops_tasks"],
            # a run stored before writes were timed has none: unknown, not 0
            "write_bytes_per_s": io.get("write_bytes_per_s_median"), "write_tasks": io.get("write_tasks")}


def _summary(results, label: str, note: str, completed: bool) -> RunSummary:
    results = sorted(results, key=lambda r: r.makespan_s)
    r = results[(len(results) - 1) // 2]
    stage_tasks = {s.stage: s.tasks for s in r.stages}
    return RunSummary(
        label=label, replications=len(results), makespan_s=r.makespan_s, queue_wait_s=r.queue_wait_s,
        run_time_s=r.run_time_s, total_cost_aud=r.total_cost_aud, cost_by_category=dict(r.cost_by_category),
        cost_lines=tuple(asdict(ln) for ln in r.cost_lines), node_hours_used=r.node_hours_used,
        compute_hours_billed=r.compute_hours_billed, tiers_used=tuple(sorted(r.gb_months)),
        stage_tasks=stage_tasks, completed=completed, note=note,
        **_achieved(asdict(r.achieved_io) if r.achieved_io is not None else None))


def summary_from_results(results: list[dict], label: str, note: str = "") -> RunSummary:
    """The median-makespan replication of a finished simulation run (its stored JSON results)."""
    results = sorted(results, key=lambda r: r["makespan_s"])
    return summary_from_median(results[(len(results) - 1) // 2], len(results), label, note)


def summary_from_median(r: dict, replications: int, label: str, note: str = "") -> RunSummary:
    """A finished simulation run of ``replications`` from its median-makespan replication's stored JSON result
    (the lower median, ties in index order, as :func:`summary_from_results` picks it)."""
    return RunSummary(
        label=label, replications=replications, makespan_s=r["makespan_s"], queue_wait_s=r["queue_wait_s"],
        run_time_s=r["run_time_s"], total_cost_aud=r["total_cost_aud"], cost_by_category=dict(r["cost_by_category"]),
        cost_lines=tuple(r["cost_lines"]), node_hours_used=r["node_hours_used"],
        compute_hours_billed=r["compute_hours_billed"], tiers_used=tuple(sorted(r["gb_months"])),
        stage_tasks={s["stage"]: s["tasks"] for s in r["stages"]}, completed=True, note=note,
        **_achieved(r.get("achieved_io")))


def reference_origin(obj: Platform | Workload) -> str:
    """The slug of the reference platform or workload ``obj`` is a (copy of a) copy of, or its own: a workspace
    copy is scored with its original's scenario, so an unedited copy scores like the original."""
    seen = set()
    while obj.copied_from_id is not None and obj.pk not in seen:
        seen.add(obj.pk)
        obj = obj.copied_from
    return obj.slug


def simulate_epochs(platforms: list[Platform], workload: Workload, *, replications: int = 5,
                    seed: int = 0) -> dict[str, RunSummary]:
    """One representative simulated epoch per platform (or a RunSummary with ``error``)."""
    specs = {p.slug: platform_spec(p) for p in platforms}
    origin = {p.slug: reference_origin(p) for p in platforms}
    w = workload_spec(workload)
    # the paper's own runs apply where the paper published a run to rank: the platforms of Table 3 for the
    # workload (or the reference workload it is a copy of)
    source = Workload.objects.filter(slug=reference_origin(workload), workspace=None).first()
    paper_runs = set(published_table(source)) if source is not None else set()
    out = {}
    for slug, spec in specs.items():
        note = ""
        if origin[slug] in PAPER_SCENARIO and origin[slug] in paper_runs:
            scenario = PAPER_SCENARIO[origin[slug]](spec, w)
            note = f"the paper's run: {scenario.label}"
            if origin[slug] == "pleiades":
                note += " (the paper's parallel run did not complete; Table 3 uses the sequential estimate)"
        else:
            scenario = ScenarioSpec(platform=spec, workload=w, label=f"{w.slug} on {slug}")
            if spec.wan.bytes_per_s is None:
                scenario = ScenarioSpec(platform=spec, workload=w, include_copy=False, label=scenario.label)
                note = "no WAN bandwidth in the catalogue: simulated with the data already on the platform"
        try:
            results = [replicate(scenario, seed, i, record_utilisation=False) for i in range(replications)]
        except (ValueError, KeyError, ZeroDivisionError) as exc:
            out[slug] = RunSummary(label=scenario.label, error=f"could not simulate: {exc}".strip(), completed=False)
            continue
        out[slug] = _summary(results, scenario.label, note, completed=True)
    return out


def published_table(workload: Workload) -> dict[str, dict]:
    """Table 3 as stored reference observations: platform -> {"ranks": {criterion: rank}, "product": x}."""
    out: dict[str, dict] = {}
    rows = ReferenceObservation.objects.filter(workload=workload, quantity__startswith="radar_").select_related(
        "platform")
    for o in rows:
        if o.platform is None or not isinstance(o.value, (int, float)) or isinstance(o.value, bool):
            continue
        entry = out.setdefault(o.platform.slug, {"ranks": {}, "product": None})
        if o.quantity.startswith("radar_rank_"):
            entry["ranks"][o.quantity.removeprefix("radar_rank_")] = int(o.value)
        elif o.quantity == "radar_product":
            entry["product"] = float(o.value)
    return out


def workload_volume(workload: Workload) -> float:
    """Input bytes of one epoch: days × mean day size (CHILES), else 0 when the workload does not say."""
    params = workload.parameters or {}
    n, size = params.get("n_days"), params.get("day_size_mean")
    if isinstance(n, (int, float)) and isinstance(size, (int, float)):
        return float(n) * float(size)
    return 0.0
