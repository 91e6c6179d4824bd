"""Scoring workflows: the scoring report of a workload, and configuration searches on Celery.

The report glues the adapter (ORM + simulator -> plain inputs) to the pure logic; searches follow the
simulation runs' pattern (:mod:`apps.scenarios.services`): snapshot, one task per chunk of configurations,
progress per chunk, cancel, and whichever chunk finishes last computes the results.
"""

from __future__ import annotations

import hashlib
import logging
import socket
from dataclasses import asdict
from datetime import timedelta

import orjson
from django.db import transaction
from django.utils import timezone

from apps.accounts.models import Workspace
from apps.accounts.workspaces import workspace_for
from apps.core.currency import amount_in, amounts_in, shown_currency, text_in
from apps.core.jobs import JobCancelled, PartJobs, Progress, TrackedJobs
from apps.core.jobs import cancel as cancel_job
from apps.core.jobs import dispatch as dispatch_job
from apps.platforms.models import Platform
from apps.platforms.services import visible_platforms
from apps.scenarios.adapters import platform_dict, workload_dict
from apps.scenarios.models import Scenario
from apps.scoring import adapters
from apps.scoring.logic import aggregate as agg
from apps.scoring.logic import robustness as rob
from apps.scoring.logic.compare import compare_products, compare_ranks
from apps.scoring.logic.criteria import METRICS, blind_criteria, range_notes, score_platforms
from apps.scoring.logic.search import (
    SpaceError,
    cheapest_within,
    chunks,
    enumerate_space,
    evaluate,
    fastest_within,
    pareto_front,
    validate_space,
)
from apps.scoring.logic.tco import Horizon, break_even, tco
from apps.scoring.models import ConfigurationSearch, Criterion, ScoreReport, SearchChunk, Status
from simulator.model.catalogue import platform_from_dict, workload_from_dict

__all__ = ["DEMO_PLATFORMS", "default_horizon", "score_report", "requested_report", "execute_report", "ScoreReportJobs", "SCORE_REPORT_JOBS", "report_from_runs", "scenario_scoring", "run_summary", "rerank", "scoring_section", "scoring_shown", "tco_report", "create_search", "dispatch_search", "ChunkJobs", "CHUNK_JOBS",
           "execute_chunk", "cancel_search", "reset_default_criteria", "InvalidSearch", "CHUNK_SIZE", "criteria_of",
           "customise_criteria", "use_reference_criteria"]

DEMO_PLATFORMS = ("pleiades", "magnus", "aws-sydney")
#: configurations per Celery task
CHUNK_SIZE = 8
REPLICATIONS = 11
#: bumped when the cached scoring section (its figures) changes shape, so it is computed again
SECTION_VERSION = 7


class InvalidSearch(ValueError):
    """The search cannot start; the message names the field."""


def _platforms(slugs, user=None) -> list[Platform]:
    """The platforms named (``user`` must see them: another workspace's copy is "unknown"), or the paper's three."""
    qs = visible_platforms(user).prefetch_related("node_types", "storage_tiers")
    if slugs:
        found = {p.slug: p for p in qs.filter(slug__in=slugs)}
        missing = [s for s in slugs if s not in found]
        if missing:
            raise ValueError(f"platform: unknown {', '.join(missing)}")
        return [found[s] for s in slugs]
    return list(qs.filter(slug__in=DEMO_PLATFORMS)) or list(qs)


def default_horizon(workload, runs: dict | None = None, **overrides) -> Horizon:
    cubes = 1
    for r in (runs or {}).values():
        if r.stage_tasks.get("concat"):
            cubes = r.stage_tasks["concat"]
            break
    values = {"epochs_per_year": 1, "years": 5, "growth_per_epoch": 0.0,
              "data_bytes_per_epoch": adapters.workload_volume(workload), "cubes_per_epoch": cubes,
              "egress_gb_per_epoch": 0.0}
    values.update({k: v for k, v in overrides.items() if v is not None})
    return Horizon(**values)


def score_report(workload, platform_slugs=None, *, criteria=None, method="weighted_sum", samples=2000, seed=0,
                 replications=REPLICATIONS, horizon: dict | None = None, user=None, workspace=None) -> dict:
    """Everything the scoring page and ``manage.py score`` show, as JSON-able data; the platforms are those
    ``user`` sees (every platform for the command line), the criteria ``workspace``'s (see :func:`criteria_of`)."""
    platforms = _platforms(platform_slugs, user)
    specs = _specs(criteria, method, workspace)
    runs = adapters.simulate_epochs(platforms, workload, replications=replications, seed=seed)
    return report_from_runs(workload, platforms, runs, specs, method=method, samples=samples, seed=seed,
                            replications=replications, horizon=horizon)


log = logging.getLogger(__name__)

#: a report that failed is computed again when asked for this long after it ended (queued or running ones are
#: looked after by the job sweeps: apps.core.jobs)
REPORT_RETRY_AFTER = timedelta(minutes=10)


class ScoreReportJobs(TrackedJobs):
    """Scoring reports as the job lifecycle sees them (registered in apps.scoring.apps)."""

    label = "scoring report"
    model = ScoreReport
    task_name = "scoring.compute_report"

    def describe(self, row) -> str:
        return f"the scoring report of {row.workload_id}"


SCORE_REPORT_JOBS = ScoreReportJobs()


def requested_report(workload, platform_slugs=None, *, method="weighted_sum", samples=2000, seed=0,
                     replications=REPLICATIONS, horizon: dict | None = None, user=None,
                     workspace=None) -> ScoreReport:
    """The scoring report for these inputs: the one kept from an earlier request, or a new one sent to a worker.
    Never computes it here (it simulates every platform's epoch: seconds).  Bad inputs raise ValueError naming the
    field, as :func:`score_report` does."""
    platforms = _platforms(platform_slugs, user)
    _specs(None, method, workspace)
    horizon = {k: v for k, v in (horizon or {}).items() if v is not None}
    default_horizon(workload, **horizon).check()
    params = {"platforms": [p.slug for p in platforms], "method": method, "samples": samples, "seed": seed,
              "replications": replications, "horizon": horizon,
              # a workspace on the reference set shares the reference set's reports
              "workspace": workspace.pk if workspace is not None and Criterion.objects.filter(
                  workspace=workspace).exists() else None}
    depends_on = {"params": params, "workload": workload_dict(workload), "criteria": criteria_signature(workspace),
                  "platforms": [platform_dict(p) for p in platforms]}
    key = hashlib.sha256(orjson.dumps(depends_on, option=orjson.OPT_SORT_KEYS)).hexdigest()
    row, created = ScoreReport.objects.get_or_create(key=key, defaults={"workload": workload, "params": params})
    retry = (row.is_finished and row.status != Status.SUCCEEDED
             and row.finished_at < timezone.now() - REPORT_RETRY_AFTER)
    if retry:
        ScoreReport.objects.filter(pk=row.pk).update(status=Status.QUEUED, error="", progress=0.0, worker="",
                                                     started_at=None, finished_at=None, created_at=timezone.now())
        row.refresh_from_db()
    if created or retry:
        transaction.on_commit(lambda: dispatch_job(SCORE_REPORT_JOBS, row))
    return row


def execute_report(report_id: int, worker: str = "", task_id: str | None = None) -> str:
    """Compute and keep the scoring report ``report_id`` on worker node ``worker``; returns its status.  Does
    nothing when it is finished or when another task was sent for it since."""
    with transaction.atomic():
        row = ScoreReport.objects.select_for_update().select_related("workload").get(pk=report_id)
        if not SCORE_REPORT_JOBS.start(row, worker or socket.gethostname(), task_id):
            return row.status
    p = row.params
    try:
        workspace = Workspace.objects.filter(pk=p.get("workspace")).first() if p.get("workspace") else None
        report = score_report(row.workload, p["platforms"], method=p["method"], samples=p["samples"], seed=p["seed"],
                              replications=p["replications"], horizon=p["horizon"], workspace=workspace)
    except (ValueError, KeyError, ZeroDivisionError) as exc:
        ScoreReport.objects.filter(pk=row.pk, status=Status.RUNNING).update(
            status=Status.FAILED, error=str(exc), finished_at=timezone.now())
        return ScoreReport.objects.values_list("status", flat=True).get(pk=row.pk)
    ScoreReport.objects.filter(pk=row.pk, status=Status.RUNNING).update(
        status=Status.SUCCEEDED, report=orjson.loads(orjson.dumps(report)), progress=1.0, error="",
        finished_at=timezone.now())
    return ScoreReport.objects.values_list("status", flat=True).get(pk=row.pk)


def criteria_of(workspace=None):
    """The criteria that score ``workspace``'s comparisons: its own when it has any, else the reference set."""
    if workspace is not None and Criterion.objects.filter(workspace=workspace).exists():
        return Criterion.objects.filter(workspace=workspace)
    return Criterion.objects.filter(workspace__isnull=True)


def customise_criteria(workspace) -> int:
    """Give ``workspace`` its own copy of the reference criteria to edit (nothing when it already has its own);
    returns how many it has."""
    with transaction.atomic():
        if not Criterion.objects.filter(workspace=workspace).exists():
            Criterion.objects.bulk_create(
                Criterion(workspace=workspace, key=c.key, label=c.label, metric=c.metric, direction=c.direction,
                          rubric=c.rubric, weight=c.weight, position=c.position, enabled=c.enabled)
                for c in Criterion.objects.filter(workspace__isnull=True))
        return Criterion.objects.filter(workspace=workspace).count()


def use_reference_criteria(workspace) -> int:
    """Drop ``workspace``'s own criteria, so the reference set scores it again; returns how many were dropped."""
    return Criterion.objects.filter(workspace=workspace).delete()[0]


def _specs(criteria, method, workspace=None):
    if criteria is None:
        rows = criteria_of(workspace)
        if rows.exists():
            criteria = adapters.criterion_specs(rows.filter(enabled=True))
        else:  # nothing configured (or the table was emptied): the defaults
            from apps.scoring.logic.criteria import default_criteria

            criteria = default_criteria()
    specs = criteria
    if not specs:
        raise ValueError("criteria: none enabled; enable one or restore the defaults on the criteria page")
    if method not in agg.METHODS:
        raise ValueError(f"method: one of {', '.join(agg.METHODS)}")
    return specs


def report_from_runs(workload, platforms, runs: dict, specs, *, method="weighted_sum", samples=2000, seed=0,
                     replications=REPLICATIONS, horizon: dict | None = None) -> dict:
    """Score platforms whose epochs are already simulated (``runs``: slug -> RunSummary)."""
    inputs = {p.slug: adapters.platform_inputs(p, runs[p.slug]) for p in platforms}
    scores = score_platforms(inputs, specs)
    ranks = {slug: [s.score for s in sc] for slug, sc in scores.items()}
    weights = [c.weight for c in specs]
    report = {
        "workload": workload.slug, "seed": seed, "replications": replications,
        "criteria": [asdict(c) for c in specs],
        "platforms": [{"slug": p.slug, "name": p.name, "kind": p.kind, "run": asdict(runs[p.slug]),
                       "scores": [asdict(s) for s in scores[p.slug]]} for p in platforms],
        "notes": range_notes(scores, specs),
    }
    try:
        aggregates = agg.aggregate(ranks, weights)
    except ValueError as exc:
        report["error"] = str(exc)
        return report
    report["aggregates"] = aggregates
    report["orders"] = {m: agg.order(v) for m, v in aggregates.items()}
    report["robustness"] = robustness(ranks, weights, [c.key for c in specs], method=method, samples=samples,
                                      seed=seed)
    published = adapters.published_table(workload)
    report["comparison"] = {
        "ranks": compare_ranks(scores, published),
        "products": compare_products(scores, published, [c.key for c in specs]),
        # the same metrics graded by one rule fixed without looking at the published ranks
        "blind_ranks": compare_ranks(score_platforms(inputs, blind_criteria()), published, explain=False),
    }
    report["tco"] = tco_report(workload, inputs, runs, horizon or {})
    return report


def criteria_signature(workspace=None) -> str:
    """Changes whenever a criterion that scores ``workspace`` is added, removed or edited (the cached scenario
    scoring is then stale)."""
    import hashlib
    import json

    rows = list(criteria_of(workspace).order_by("pk").values_list("pk", "key", "metric", "direction", "rubric",
                                                                  "weight", "enabled"))
    return hashlib.sha1(json.dumps([SECTION_VERSION, rows], sort_keys=True, default=str).encode()).hexdigest()


def scenario_scoring(scenario, results: dict | None) -> dict | None:
    """The scoring section of a scenario's results page, from the scenario's own finished runs (no new
    simulation): ranks with explanations, radar, aggregates, robustness, TCO over the scenario's horizon.

    Cached in the scenario's results bundle, so reopening the page does not recompute it."""
    if results is None:
        return None
    signature = criteria_signature(scenario.workspace)
    cached = results.get("scoring")
    if cached and cached.get("signature") == signature:
        return cached
    entries = [e for e in scenario.entries.select_related("platform", "run").prefetch_related(
                   "platform__node_types", "platform__storage_tiers")
               if e.run is not None and e.run.status == Status.SUCCEEDED]
    if not entries:
        return None
    try:
        specs = _specs(None, "weighted_sum", scenario.workspace)
    except ValueError as exc:
        return {"template": "scoring/_scenario_section.html", "error": str(exc)}
    platforms, runs = [], {}
    for e in entries:
        note = "scored from this scenario's own runs (its options and overrides apply)" if (
            e.options or e.platform_overrides) else ""
        runs[e.platform.slug] = run_summary(e.run, note)
        platforms.append(e.platform)
    horizon = {"years": max(1, round(scenario.tco_years)), "epochs_per_year": max(1, round(scenario.epochs_per_year))}
    report = report_from_runs(scenario.workload, platforms, runs, specs, seed=scenario.seed,
                              replications=scenario.replications, horizon=horizon)
    from apps.scoring.charts import radar_figure, tco_figure

    return {
        "template": "scoring/_scenario_section.html",
        "signature": signature,
        "report": report,
        "rows": table_rows(report),
        "radar": radar_figure(report),
        "curves": tco_figure(report["tco"]) if report.get("tco", {}).get("platforms") else None,
        "ranks": {p["slug"]: [s["score"] for s in p["scores"]] for p in report["platforms"]},
        "weights": [c["weight"] for c in report["criteria"]],
    }


def run_summary(run, note: str = ""):
    """A finished simulation run as scoring sees it: its median-makespan replication
    (:func:`apps.scoring.adapters.summary_from_results`), found by the makespan column so that only that
    replication's JSON result is read (a run of a thousand replications would otherwise decode a thousand)."""
    stored = run.replication_set.filter(result__isnull=False)
    n = stored.count()
    median = stored.order_by("makespan_s", "index").values_list("result", flat=True)[(n - 1) // 2]
    return adapters.summary_from_median(median, n, run.label, note)


def scoring_section(scenario, results: dict | None) -> dict | None:
    """The scoring engine's part of a scenario's results page (radar, ranks, weights, robustness, TCO); cached with
    the results bundle (and recomputed when the criteria change) so the page stays fast.  Registered as the
    "scoring" section of every scenario's results (apps.scoring.apps)."""
    if results is None:
        return None
    section = scenario_scoring(scenario, results)
    if section is not None and section is not results.get("scoring") and not section.get("error") \
            and results.get("key") is not None:
        results["scoring"] = section
        Scenario.objects.filter(pk=scenario.pk).update(results_cache=results)
    return section


def scoring_shown(scenario, results: dict | None) -> dict | None:
    """What the results page shows of the scoring section's money in the scenario's currency: the cost-of-ownership
    curves and the break-even amounts.  The cached section keeps AUD (reports and the API read it); registered as
    the "scoring_shown" section of every scenario's results (apps.scoring.apps)."""
    section = scoring_section(scenario, results)
    if not section or section.get("error"):
        return None
    currency = shown_currency(scenario.currency)
    rate, code = currency["base_per_unit"], currency["code"]
    report = section["report"]
    if rate == 1.0:  # AUD: the cached rows and curves as they are
        return {"rank_rows": section["rows"]["rank_rows"], "curves": section.get("curves"),
                "break_even": (report.get("tco") or {}).get("break_even") or []}
    shown = {"rank_rows": _rank_rows_in(section["rows"]["rank_rows"], report["criteria"], rate, code),
             "curves": None, "break_even": []}
    if not report.get("tco"):
        return shown
    tco = amounts_in(report["tco"], rate)
    for res in (tco.get("platforms") or {}).values():
        res["cumulative"] = [[epoch, amount_in(cost, rate)] for epoch, cost in res["cumulative"]]
    from apps.scoring.charts import tco_figure

    return {**shown, "curves": tco_figure(tco, code) if tco.get("platforms") else None,
            "break_even": tco.get("break_even") or []}


def _rank_rows_in(rank_rows: list[dict], criteria: list[dict], rate: float, code: str) -> list[dict]:
    """The rank rows with the explanations of money criteria (a metric in AUD: their amounts and thresholds) in the
    currency ``code`` worth ``rate`` AUD; the scores as they are."""
    money = [c.get("metric") in METRICS and METRICS[c["metric"]].unit == "AUD" for c in criteria]
    return [{**row, "cells": [{**cell, "explanation": text_in(cell.get("explanation") or "", rate, code)}
                              for cell in row["cells"]]} if is_money else row
            for row, is_money in zip(rank_rows, money, strict=True)]


def rerank(ranks: dict[str, list[int]], weights: list[float]) -> dict:
    """Aggregates and orders for user-chosen weights (the results page's sliders)."""
    n = len(next(iter(ranks.values()), []))
    if len(weights) != n:
        raise ValueError(f"weights: expected {n} numbers, got {len(weights)}")
    if any(w < 0 for w in weights) or sum(weights) <= 0:
        raise ValueError("weights: must be non-negative with a positive sum")
    aggregates = agg.aggregate(ranks, weights)
    return {"aggregates": aggregates, "orders": {m: agg.order(v) for m, v in aggregates.items()}}


def table_rows(report: dict) -> dict:
    """The report reshaped into rows for the page's tables (criteria x platforms, methods x platforms): slugs and
    method keys for programs (the API returns these rows), beside them the names and labels a reader knows."""
    platforms = report["platforms"]
    name = {p["slug"]: p["name"] for p in platforms}
    label = {c["key"]: c["label"] for c in report["criteria"]}
    rows = {"rank_rows": [{"label": c["label"], "weight": c["weight"], "cells": [p["scores"][i] for p in platforms]}
                          for i, c in enumerate(report["criteria"])]}
    if "aggregates" in report:
        rows["aggregate_rows"] = [{"method": m, "method_label": agg.method_label(m),
                                   "values": [v[p["slug"]] for p in platforms], "order": report["orders"][m],
                                   "order_names": [name.get(s, s) for s in report["orders"][m]]}
                                  for m, v in report["aggregates"].items()]
        rb = report["robustness"]
        rows["probability_rows"] = [{"slug": s, "name": name.get(s, s), "flat": rb["first_place_probability"][s],
                                     "near": rb["first_place_probability_near"][s]}
                                    for s in rb.get("first_place_probability", {})]
        rows["robustness"] = _named_robustness(rb, name, label)
    comparison = report.get("comparison") or {}
    rows["comparison"] = {part: [{**r, "platform_name": name.get(r["platform"], r["platform"]),
                                  **({"criterion_label": label.get(r["criterion"], r["criterion"])}
                                     if "criterion" in r else {})}
                                 for r in comparison.get(part, [])]
                          for part in ("ranks", "products", "blind_ranks")}
    blind = rows["comparison"]["blind_ranks"]
    rows["comparison"]["blind_agree"] = sum(1 for r in blind if r["agree"])
    rows["comparison"]["blind_total"] = len(blind)
    return rows


def _named_robustness(rb: dict, name: dict, label: dict) -> dict:
    """The robustness section with platform names and method labels in place of slugs and keys, and each flip's
    criterion label beside its key."""
    def flip(f):  # a tie's winners come joined by ", "
        return f and {**f, "new_winner": ", ".join(name.get(s, s) for s in f["new_winner"].split(", ")),
                      "criterion_label": label.get(f["criterion"], f["criterion"])}

    return {**rb, "method": agg.method_label(rb.get("method", "")),
            "winners": [name.get(w, w) for w in rb.get("winners", [])],
            "margin": flip(rb.get("margin")), "flips": [flip(f) for f in rb.get("flips", [])],
            "agreement": [{**a, "a": agg.method_label(a["a"]), "b": agg.method_label(a["b"])}
                          for a in rb.get("agreement", [])]}


def robustness(ranks, weights, keys, *, method="weighted_sum", samples=2000, seed=0) -> dict:
    if len(ranks) < 2:
        return {"method": method, "note": "one platform: nothing to rank"}
    flips = rob.weight_flip(ranks, weights, method)
    rows = [{"criterion": keys[f.criterion], "from_weight": f.from_weight, "to_weight": f.to_weight,
             "change": f.change, "new_winner": f.new_winner} for f in flips if f is not None]
    margin = min(rows, key=lambda r: r["change"]) if rows else None
    return {
        "method": method,
        "winners": rob.winners(ranks, weights, method),
        "flips": rows,
        "margin": margin,
        "first_place_probability": rob.first_place_probability(ranks, weights, method, samples=samples, seed=seed),
        "first_place_probability_near": rob.first_place_probability(
            ranks, weights, method, samples=samples, seed=seed, concentration=10.0),
        "samples": samples,
        "agreement": rob.method_agreement(agg.aggregate(ranks, weights)),
    }


def tco_report(workload, inputs: dict, runs: dict, horizon: dict) -> dict:
    h = default_horizon(workload, runs, **horizon)
    h.check()
    results, errors = {}, {}
    for slug, inp in inputs.items():
        try:
            results[slug] = tco(inp, h)
        except ValueError as exc:
            errors[slug] = str(exc)
    pairs = []
    for a, ra in results.items():
        if inputs[a].kind != "owned_cluster":
            continue
        for b, rb in results.items():
            if inputs[b].kind == "owned_cluster":
                continue
            be = break_even(ra, rb, h.epochs_per_year)
            pairs.append({"owned": a, "rented": b, "break_even": be})
    return {"horizon": asdict(h), "platforms": {k: asdict(v) for k, v in results.items()}, "errors": errors,
            "break_even": pairs}


def reset_default_criteria() -> int:
    """Restore the default criteria (the paper's eight and the write bandwidth) in the reference set (replacing edited ones of the same key); returns how
    many."""
    from apps.scoring.logic.criteria import DEFAULT_CRITERIA

    with transaction.atomic():
        for i, c in enumerate(DEFAULT_CRITERIA):
            values = asdict(c)
            key = values.pop("key")
            Criterion.objects.update_or_create(key=key, workspace=None,
                                               defaults={**values, "position": i, "enabled": True})
    return len(DEFAULT_CRITERIA)


# --------------------------------------------------------------------------------------------- searches

def create_search(*, platform, workload, space, seed=0, deadline_s=None, budget_aud=None, user=None,
                  label="", workspace=None) -> ConfigurationSearch:
    inputs = {"platform": platform_dict(platform), "workload": workload_dict(workload)}
    try:
        total = validate_space(space, platform_from_dict(inputs["platform"]), workload_from_dict(inputs["workload"]))
    except SpaceError as exc:
        raise InvalidSearch(str(exc)) from None
    for name, value in (("deadline", deadline_s), ("budget", budget_aud)):
        if value is not None and value <= 0:
            raise InvalidSearch(f"{name}: must be positive")
    with transaction.atomic():
        search = ConfigurationSearch.objects.create(
            platform=platform, workload=workload, space=space, inputs=inputs, seed=seed, deadline_s=deadline_s,
            budget_aud=budget_aud, total=total, created_by=user, workspace=workspace_for(user, workspace),
            label=label or f"{workload.name} on {platform.name}: {total} configurations")
        SearchChunk.objects.bulk_create(SearchChunk(search=search, index=i, start=a, end=b)
                                        for i, (a, b) in enumerate(chunks(total, CHUNK_SIZE)))
    return search


class ChunkJobs(PartJobs):
    """Search chunks, the parts of a search, as the job lifecycle sees them (registered in apps.scoring.apps)."""

    label = "search chunk"
    model = SearchChunk
    parent = "search"
    task_name = "scoring.run_search_chunk"

    def describe(self, chunk) -> str:
        return f"search chunk {chunk.index} (configurations {chunk.start}-{chunk.end - 1})"


CHUNK_JOBS = ChunkJobs()


def dispatch_search(search: ConfigurationSearch) -> None:
    CHUNK_JOBS.dispatch_all(search)


def execute_chunk(search_id: str, index: int, worker: str = "", task_id: str | None = None) -> str:
    """Evaluate one chunk on worker node ``worker``; idempotent (and does nothing for a task ``task_id`` the chunk
    no longer names); stops between configurations when the search is cancelled."""
    with transaction.atomic():
        search = ConfigurationSearch.objects.select_for_update().get(pk=search_id)
        chunk = search.chunks.select_for_update().get(index=index)
        if search.is_finished or not CHUNK_JOBS.start(chunk, worker or socket.gethostname(), task_id):
            return chunk.status
        if search.status == Status.QUEUED:
            search.status, search.started_at = Status.RUNNING, chunk.started_at
            search.save(update_fields=["status", "started_at"])
    platform = platform_from_dict(search.inputs["platform"])
    workload = workload_from_dict(search.inputs["workload"])
    configs = enumerate_space(search.space)[chunk.start:chunk.end]
    points = []
    # written after every configuration (each takes a while), so interval 0
    progress = Progress(SearchChunk, chunk.pk, interval_s=0.0, extra=lambda done, total: {"done": done,
                                                                                         "points": points})
    try:
        for config in configs:
            points.append(evaluate(platform, workload, config, seed=search.seed))
            progress(len(points), len(configs))
    except JobCancelled:
        return SearchChunk.objects.values_list("status", flat=True).get(pk=chunk.pk)
    saved = SearchChunk.objects.filter(pk=chunk.pk, status=Status.RUNNING).update(
        status=Status.SUCCEEDED, points=points, done=len(points), progress=1.0, finished_at=timezone.now())
    if saved:
        _finalise_if_complete(search.pk)
    return Status.SUCCEEDED if saved else SearchChunk.objects.values_list("status", flat=True).get(pk=chunk.pk)


def summarise_points(points: list[dict], deadline_s=None, budget_aud=None) -> dict:
    return {
        "evaluated": len(points), "failed": sum(1 for p in points if "error" in p),
        "errors": sorted({p["error"] for p in points if "error" in p})[:5],
        "pareto": pareto_front(points),
        "cheapest_within_deadline": cheapest_within(points, deadline_s) if deadline_s else None,
        "fastest_within_budget": fastest_within(points, budget_aud) if budget_aud else None,
    }


def _finalise_if_complete(search_pk) -> None:
    with transaction.atomic():
        search = ConfigurationSearch.objects.select_for_update().get(pk=search_pk)
        if search.is_finished:
            return
        chunks_ = list(search.chunks.all())
        if any(c.status != Status.SUCCEEDED for c in chunks_):
            return
        points = [p for c in chunks_ for p in c.points]
        search.results = {"points": points, **summarise_points(points, search.deadline_s, search.budget_aud)}
        search.status = Status.FAILED if points and all("error" in p for p in points) else Status.SUCCEEDED
        if search.status == Status.FAILED:
            search.error = "every configuration failed: " + "; ".join(search.results["errors"])
        search.finished_at = timezone.now()
        search.save(update_fields=["results", "status", "error", "finished_at"])


def cancel_search(search: ConfigurationSearch) -> bool:
    """Cancel a queued or running search and its chunks; False when it had already finished."""
    return cancel_job(search, search.chunks.all())
