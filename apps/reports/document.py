"""The report document: everything a ranked platform report says, as one JSON-able dict (schema version 1).

Every other format (HTML, PDF, CSV, XLSX) is rendered from this document, so they cannot disagree.  It is
built from the scenario's finished runs, its cached results and scoring (nothing is re-simulated), and the
provenance of every input value the runs used.
"""

from __future__ import annotations

import json
from typing import Any

from django.utils import timezone

from apps.core.currency import amounts_in
from apps.core.fields import QuantityField
from apps.core.provenance import describe_source, short_source
from apps.platforms.models import NodeType, Platform, StorageTier
from apps.reports.currency import MissingRate, currency_section
from apps.scenarios import charts, summary
from apps.scenarios.adapters import stage_frame
from apps.scenarios.models import Scenario, Status
from apps.scenarios.services import is_papers_scenario, money_figures, scenario_results
from apps.scoring.services import scoring_section, scoring_shown
from apps.workloads.models import WorkloadStage
from apps.workloads.schemas import TEMPLATES
from simulator.units import format_quantity

__all__ = ["SCHEMA_VERSION", "ReportNotReady", "build_document"]

SCHEMA_VERSION = "1.0"
#: the aggregation method that orders the ranking (the scoring engine's default)
RANKING_METHOD = "weighted_sum"
#: list-valued inputs (e.g. empirical queue-wait samples) show this many values in the tables
LIST_SHOWN = 8


class ReportNotReady(ValueError):
    """The scenario cannot be reported yet (never run, still running, or nothing succeeded)."""


def build_document(scenario: Scenario) -> dict[str, Any]:
    """The report of a finished scenario; raises :class:`ReportNotReady` saying why when there is none."""
    results = scenario_results(scenario)
    if results is None:
        state = scenario.status()
        raise ReportNotReady(f"scenario {scenario.name!r} is {state}: run it to the end before exporting a report"
                             if state in ("draft", "running") else f"scenario {scenario.name!r} has no results")
    scoring = scoring_section(scenario, results)
    if scoring is None:
        raise ReportNotReady(f"scenario {scenario.name!r}: no platform finished successfully, nothing to rank")
    if scoring.get("error"):
        raise ReportNotReady(f"scenario {scenario.name!r} cannot be scored: {scoring['error']}")
    report = scoring["report"]
    if report.get("error"):
        raise ReportNotReady(f"scenario {scenario.name!r} cannot be ranked: {report['error']}")
    entries = list(scenario.entries.select_related("platform", "run"))
    medians = _median_results(entries)
    names = {p["slug"]: p["name"] for p in report["platforms"]}
    ranking = _ranking(report, results)
    answer = summary.recommendation(results, scoring, papers=is_papers_scenario(scenario, entries))
    outcomes = summary.platform_outcomes(results, scoring)
    stories = {o["slug"]: o["cost"] for o in outcomes.values()}
    for row in ranking:
        row["cost"] = stories.get(row["platform"])
    currency = _currency(scenario)
    return {
        "schema": "skyplan-report",
        "schema_version": SCHEMA_VERSION,
        "generated_at": timezone.now().isoformat(timespec="seconds"),
        "scenario": _scenario_part(scenario, entries),
        "currency": currency,
        "recommendation": _recommendation(report, ranking, answer),
        "ranking": ranking,
        "excluded": [{"platform": s["platform"], "name": s["name"], "status": s["status"], "reason": s["error"]}
                     for s in results["summary"] if s["platform"] not in names],
        "criteria": [{"key": c["key"], "label": c["label"], "metric": c["metric"], "direction": c["direction"],
                      "weight": c["weight"]} for c in report["criteria"]],
        "ranks": [{"platform": p["slug"], "criterion": s["criterion"], "score": s["score"], "value": s["value"],
                   "text": s["text"], "explanation": s["explanation"], "missing": s["missing"]}
                  for p in report["platforms"] for s in p["scores"]],
        "aggregates": report["aggregates"],
        "orders": report["orders"],
        "robustness": _robustness(report["robustness"]),
        "costs": [{"platform": p["slug"], **{k: line.get(k) for k in
                                              ("category", "item", "quantity", "unit", "rate_aud", "aud", "note")}}
                  for p in report["platforms"] for line in p["run"]["cost_lines"]],
        "tco": _tco(report["tco"]),
        "timeline": _timeline(medians),
        "validation": results.get("validation"),
        "inputs": _inputs(entries),
        "figures": _figures(results, scoring, outcomes, currency, scoring_shown(scenario, results)),
    }


def _currency(scenario: Scenario) -> dict[str, Any]:
    try:
        return currency_section(scenario.currency)
    except MissingRate as exc:
        raise ReportNotReady(str(exc)) from None


def _scenario_part(scenario: Scenario, entries) -> dict[str, Any]:
    return {
        "id": str(scenario.pk), "name": scenario.name,
        "workload": {"slug": scenario.workload.slug, "name": scenario.workload.name},
        "workload_overrides": scenario.workload_overrides or {},
        "replications": scenario.replications, "seed": scenario.seed,
        "tco_years": scenario.tco_years, "epochs_per_year": scenario.epochs_per_year, "currency": scenario.currency,
        "what_if_of": str(scenario.parent_id) if scenario.parent_id else None, "change": scenario.change,
        "platforms": [{"platform": e.platform.slug, "name": e.platform.name, "kind": e.platform.kind,
                       "options": e.options or {}, "overrides": e.platform_overrides or {},
                       "status": e.run.status if e.run else "draft",
                       "finished_at": e.run.finished_at.isoformat(timespec="seconds")
                       if e.run and e.run.finished_at else None} for e in entries],
    }


def _ranking(report: dict, results: dict) -> list[dict[str, Any]]:
    """Platforms in the order of the ranking method, with the outcomes a reader compares them on."""
    summaries = {s["platform"]: s for s in results["summary"]}
    order = report["orders"][RANKING_METHOD]
    rob = report["robustness"]
    tco = report["tco"]["platforms"]
    by_slug = {p["slug"]: p for p in report["platforms"]}
    rows = []
    for position, slug in enumerate(order, start=1):
        p, outcome = by_slug[slug], (summaries.get(slug) or {}).get("results") or {}
        rows.append({
            "position": position, "platform": slug, "name": p["name"], "kind": p["kind"],
            "score": report["aggregates"][RANKING_METHOD][slug],
            "aggregates": {m: v[slug] for m, v in report["aggregates"].items()},
            "makespan_p10_s": outcome.get("makespan_p10_s"), "makespan_p50_s": outcome.get("makespan_p50_s"),
            "makespan_p90_s": outcome.get("makespan_p90_s"), "cost_p10_aud": outcome.get("cost_p10_aud"),
            "cost_p50_aud": outcome.get("cost_p50_aud"), "cost_p90_aud": outcome.get("cost_p90_aud"),
            "queue_wait_s": (summaries.get(slug) or {}).get("queue_wait_s"),
            "tco_total_aud": tco[slug]["total_aud"] if slug in tco else None,
            "p_first": (rob.get("first_place_probability") or {}).get(slug),
            "p_first_near": (rob.get("first_place_probability_near") or {}).get(slug),
        })
    return rows


def _recommendation(report: dict, ranking: list[dict], answer: dict) -> dict[str, Any]:
    """The first platform, why, and how firm that is (computed from the ranking and its robustness); with the
    results page's own sentence on the smallest weight change that alters the winner (in the weights a user sets)
    and its caveats."""
    first = ranking[0]
    rob = report["robustness"]
    tied = [r for r in ranking[1:] if r["score"] is not None and first["score"] is not None
            and abs(r["score"] - first["score"]) < 1e-12]
    runner = ranking[1] if len(ranking) > 1 else None
    method = RANKING_METHOD.replace("_", " ")

    def fmt(x):  # a platform whose every criterion is unknown has no aggregate
        return "unknown" if x is None else f"{x:.3f}"

    parts = [f"{first['name']} ranks first by {method} ({fmt(first['score'])}"]
    parts[0] += f" against {fmt(runner['score'])} for {runner['name']})." if runner else ")."
    if tied:
        parts.append(f"It is tied with {', '.join(r['name'] for r in tied)}.")
    if first["p_first"] is not None:
        parts.append(f"Under random weights it comes first in {100 * first['p_first']:.0f}% of "
                     f"{rob.get('samples', 0)} draws ({100 * (first['p_first_near'] or 0):.0f}% with weights near "
                     "these).")
    if runner:
        parts.append(answer["margin_text"])
    unanimous = all(order and order[0] == first["platform"] for order in report["orders"].values())
    parts.append("Every aggregation method agrees on the winner." if unanimous else
                 "The aggregation methods disagree on the winner: see the aggregates table.")
    return {"platform": first["platform"], "name": first["name"], "method": RANKING_METHOD,
            "score": first["score"], "runner_up": runner["platform"] if runner else None,
            "tied_with": [r["platform"] for r in tied], "methods_agree": unanimous, "text": " ".join(parts),
            "margin_text": answer["margin_text"], "caveats": answer["caveats"]}


def _robustness(rob: dict) -> dict[str, Any]:
    keys = ("method", "winners", "flips", "margin", "first_place_probability", "first_place_probability_near",
            "samples", "agreement", "note")
    return {k: rob[k] for k in keys if k in rob}


def _tco(tco: dict) -> dict[str, Any]:
    platforms = []
    for slug, t in tco["platforms"].items():
        years, running = [], 0.0
        for y in t["years"]:
            running += y["total_aud"]
            years.append({"year": y["year"], "total_aud": y["total_aud"], "cumulative_aud": running,
                          "lines": [{k: line.get(k) for k in ("category", "item", "aud", "quantity", "unit", "note")}
                                    for line in y["lines"]]})
        platforms.append({
            "platform": slug, "name": t["name"], "total_aud": t["total_aud"], "aud_per_tb": t.get("aud_per_tb"),
            "aud_per_cube": t.get("aud_per_cube"), "tb_processed": t.get("tb_processed"), "cubes": t.get("cubes"),
            "years": years,
            "cumulative_by_epoch": [{"epoch": int(epoch), "aud": aud} for epoch, aud in t["cumulative"]],
        })
    return {"horizon": tco["horizon"], "platforms": platforms, "break_even": tco["break_even"],
            "errors": tco.get("errors", {})}


def _median_results(entries) -> dict[str, dict]:
    """Platform name -> the median-makespan replication's result, for each platform whose run succeeded."""
    medians = {}
    for e in entries:
        if e.run is None or e.run.status != Status.SUCCEEDED:
            continue
        reps = sorted((r for r in e.run.replication_set.filter(status=Status.SUCCEEDED) if r.result),
                      key=lambda r: r.result["makespan_s"])
        if reps:
            medians[e.platform.name] = reps[(len(reps) - 1) // 2].result
    return medians


def _timeline(medians: dict[str, dict]) -> list[dict[str, Any]]:
    frame = stage_frame(medians)
    return [{"platform": r.platform, "stage": r.stage, "start_h": float(r.start_h), "end_h": float(r.end_h),
             "tasks": int(r.tasks), "bound_by": r.bound_by, "bound_share": float(r.bound_share),
             "task_hours": float(r.task_hours)} for r in frame.itertuples()]


def _figures(results: dict, scoring: dict, outcomes: dict, currency: dict, shown: dict | None) -> dict[str, Any]:
    """The plotly figures the results page draws, as figure dicts (the same JSON), the money ones (cost of a run,
    the median bill, cost a year, cumulative cost of ownership) in ``currency`` as the page draws them
    (``shown``: the scoring's cost-of-ownership curves in the scenario's currency)."""
    drawn = {**(results.get("figures") or {}), **money_figures(results, currency)}
    figures = {name: json.loads(fig) for name, fig in drawn.items() if fig}
    if outcomes:  # the cost a year by category, as the page shows it (one cost story)
        shown_outcomes = amounts_in(outcomes, currency["base_per_unit"])
        figures["costs"] = json.loads(charts.cost_per_year_figure(summary.cost_frame(shown_outcomes),
                                                                  currency["code"]).to_json())
    if scoring.get("radar"):
        figures["radar"] = json.loads(scoring["radar"])
    curves = (shown or {}).get("curves") if currency["code"] != "AUD" else scoring.get("curves")
    if curves:
        figures["tco"] = json.loads(curves)
    return figures


# --- inputs and their provenance -------------------------------------------------------------------------

def _dimension(model, name: str) -> str | None:
    try:
        field = model._meta.get_field(name)
    except Exception:  # noqa: BLE001 - a fact that is not a model field (e.g. a workload parameter)
        return None
    return field.dimension if isinstance(field, QuantityField) else None


def _input_row(owner: str, path: str, value, dimension: str | None, source: dict | None, status: str) -> dict:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and dimension:
        shown = format_quantity(float(value), dimension)
    elif isinstance(value, float):
        shown = f"{value:g}"
    elif isinstance(value, list):
        shown = ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value[:LIST_SHOWN])
        shown += f" … ({len(value)} values)" if len(value) > LIST_SHOWN else ""
    else:
        shown = str(value)
    return {"owner": owner, "path": path, "value": value, "shown": shown, "dimension": dimension or "",
            "source_kind": (source or {}).get("kind", status), "source_short": short_source(source)
            if source else status, "source": describe_source(source) if source else _STATUS_TEXT[status]}


_STATUS_TEXT = {
    "override": "Set by this scenario (a what-if or an option), not taken from the catalogue.",
    "changed": "The catalogue value has changed since this run; the run used the value shown.",
    "missing": "Not in the catalogue any more; the run used the value shown.",
}


def _source(obj, name: str, value, overridden: bool) -> tuple[dict | None, str]:
    if overridden:
        return None, "override"
    if obj is None:
        return None, "missing"
    current = obj.fact_value(name)
    if hasattr(current, "isoformat"):  # dates are snapshotted as ISO text
        current = current.isoformat()
    if current != value and not (isinstance(current, float) and isinstance(value, (int, float))
                                 and abs(current - value) <= 1e-9 * max(abs(current), 1.0)):
        return None, "changed"
    return obj.source_of(name), "catalogue"


def _inputs(entries) -> list[dict[str, Any]]:
    """Every input value the scenario's runs used (their snapshots), each with its provenance."""
    rows: list[dict[str, Any]] = []
    workload_done = False
    for e in entries:
        if e.run is None or not e.run.inputs:
            continue
        snap = e.run.inputs
        if not workload_done:
            rows.extend(_workload_inputs(e.run.workload, snap["workload"], e.scenario.workload_overrides or {}))
            workload_done = True
        rows.extend(_platform_inputs(snap["platform"], e.platform_overrides or {}))
    return rows


def _workload_inputs(workload, snap: dict, overrides: dict) -> list[dict]:
    rows = []
    dims = {p.name: p.dimension for p in TEMPLATES.get(snap.get("template"), ())}
    for name, value in snap.get("parameters", {}).items():
        source, status = _source(workload, name, value, name in overrides)
        rows.append(_input_row(snap["slug"], f"parameters.{name}", value, dims.get(name), source, status))
    stages = {s.name: s for s in workload.stages.all()} if workload else {}
    for st in snap.get("stages", []):
        for name, value in st["facts"].items():
            source, status = _source(stages.get(st["name"]), name, value, False)
            rows.append(_input_row(snap["slug"], f"stages.{st['name']}.{name}", value,
                                   _dimension(WorkloadStage, name), source, status))
    return rows


def _platform_inputs(snap: dict, overrides: dict) -> list[dict]:
    slug = snap["slug"]
    platform = Platform.objects.filter(slug=slug).prefetch_related("node_types", "storage_tiers").first()
    rows = []
    fact_overrides = overrides.get("facts") or {}
    for name, value in snap["facts"].items():
        source, status = _source(platform, name, value, name in fact_overrides)
        rows.append(_input_row(slug, f"facts.{name}", value, _dimension(Platform, name), source, status))
    nodes = {n.name: n for n in platform.node_types.all()} if platform else {}
    for node in snap.get("node_types", []):
        for name, value in node["facts"].items():
            source, status = _source(nodes.get(node["name"]), name, value, False)
            rows.append(_input_row(slug, f"node_types.{node['name']}.{name}", value, _dimension(NodeType, name),
                                   source, status))
    tiers = {t.name: t for t in platform.storage_tiers.all()} if platform else {}
    tier_overrides = overrides.get("storage_tiers") or {}
    for tier in snap.get("storage_tiers", []):
        for name, value in tier["facts"].items():
            overridden = name in (tier_overrides.get(tier["name"]) or {})
            source, status = _source(tiers.get(tier["name"]), name, value, overridden)
            rows.append(_input_row(slug, f"storage_tiers.{tier['name']}.{name}", value,
                                   _dimension(StorageTier, name), source, status))
    return rows
