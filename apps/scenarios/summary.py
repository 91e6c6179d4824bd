"""The answer first: what a scenario's results page, its comparison and its report lead with.

Pure functions over the cached results bundle (:func:`apps.scenarios.services.scenario_results`) and the scoring
section (:func:`apps.scoring.services.scoring_section`): no ORM, no simulation.  The recommendation depends on
the weights, so the page computes it for the saved weights and again, through one endpoint, for every slider
move; the template that shows it is the same both times.
"""

from __future__ import annotations

import pandas as pd

from apps.scoring.logic.aggregate import METHOD_LABELS, aggregate
from apps.scoring.logic.robustness import tiers, weight_verdict
from apps.scoring.logic.tco import cost_story

__all__ = ["SLIDER_MAX", "cost_frame", "METHOD_LABELS", "platform_outcomes", "recommendation", "validation_label", "caveats"]

#: the weight sliders run from 0 to this
SLIDER_MAX = 3.0
_VALIDATION_LABELS = {
    "split_single_time": "split: one task's time", "split_cpu_use": "split: CPU use",
    "split_instance_time": "split: one cloud instance's time (several sub-bands)",
    "invert_single_time": "invert: one task's time", "epoch_run_time": "run time of the epoch",
    "queue_wait": "batch-queue wait", "node_hour_cost": "cost of the node-hours", "compute_hours": "compute hours",
    "compute_cost": "compute cost", "ebs_cost": "EBS storage cost", "s3_cost": "S3 storage cost",
    "sequential_estimate": "sequential run-time estimate", "parallel_vs_sequential": "parallel against sequential",
    "split_throughput_ratio_vs_aws": "split: throughput against AWS", "bill_total": "total bill",
    "invert_s3_transfer_time": "invert: copies to and from the object store", "capital_cost": "capital cost",
    "invert_time_visibility_exponent": "invert: how its time grows with the days imaged",
    "invert_time_channel_exponent": "invert: how its time grows with the channels imaged",
}


def validation_label(quantity: str, names: dict[str, str] | None = None) -> str:
    """A validation quantity as a reader says it ("run time of the epoch", not ``epoch_run_time``); a quantity
    against another platform (``<what>_vs_<platform>``) names that platform as ``names`` gives it."""
    if quantity in _VALIDATION_LABELS:
        return _VALIDATION_LABELS[quantity]
    what, vs, other = quantity.partition("_vs_")
    if vs and other:
        return f"{what.replace('_', ' ')} against {(names or {}).get(other, other.replace('-', ' ').title())}"
    return quantity.replace("_", " ")


def platform_outcomes(results: dict, scoring: dict) -> dict[str, dict]:
    """Per platform (slug, in the scenario's order): its name and kind, time and cost over the replications, and
    its one cost story (per run, per year, over the horizon) from its cost of ownership."""
    report = scoring["report"]
    horizon = report["tco"]["horizon"]
    tco = report["tco"]["platforms"]
    summaries = {s["platform"]: s for s in results["summary"]}
    out = {}
    for p in report["platforms"]:
        slug = p["slug"]
        outcome = (summaries.get(slug) or {}).get("results") or {}
        run = p["run"]
        out[slug] = {
            "slug": slug, "name": p["name"], "kind": p["kind"], "owned": p["kind"] == "owned_cluster",
            "makespan_p10_s": outcome.get("makespan_p10_s"), "makespan_p50_s": outcome.get("makespan_p50_s"),
            "makespan_p90_s": outcome.get("makespan_p90_s"), "queue_wait_s": run.get("queue_wait_s"),
            "cost_p10_aud": outcome.get("cost_p10_aud"), "cost_p90_aud": outcome.get("cost_p90_aud"),
            "run_bill_aud": run.get("total_cost_aud"),
            "cost": cost_story(tco[slug], horizon["epochs_per_year"],
                               (run.get("makespan_s") or 0.0) / 3600.0) if slug in tco else None,
            "tco_error": report["tco"].get("errors", {}).get(slug, ""),
            "p_first_any": (report["robustness"].get("first_place_probability") or {}).get(slug),
            "missing": [s["criterion"] for s in p["scores"] if s.get("missing")],
        }
    return out


def caveats(results: dict, outcomes: dict[str, dict], criteria_labels: dict[str, str], papers: bool) -> list[str]:
    """What a reader should know before acting on the recommendation: the model's validation misses on these
    platforms, inputs it did not know, and what an owned platform's cost means."""
    names = {slug: o["name"] for slug, o in outcomes.items()}
    out = []
    validation = results.get("validation")
    if validation:
        misses = [r for r in validation["rows"] if not r["met"] and r["platform"] in names]
        if misses:
            listed = "; ".join(
                f"{validation_label(r['quantity'], names)} on {names[r['platform']]}"
                + (f" ({r['error_pct']:+.0f}%)" if r.get("error_pct") is not None else "") for r in misses)
            out.append(f"The model misses {len(misses)} of {validation['total']} published targets on these "
                       f"platforms: {listed}.")
    elif not papers:
        out.append("No published measurement matches this scenario's inputs, so its numbers are not validated; "
                   "the paper's own scenario is (see Model validation).")
    for o in outcomes.values():
        if o["missing"]:
            labels = ", ".join(criteria_labels.get(c, c) for c in o["missing"])
            out.append(f"{o['name']}: unknown input for {labels} (left out of its aggregate, not ranked 0).")
        if o["owned"] and o["cost"]:
            out.append(f"{o['name']} is owned: a run bills nothing, its cost is the year's capital, staff and "
                       "power, whether it runs once or more.")
    return out


def _margin_text(margin: dict | None, labels: list[str], names: dict[str, str]) -> str:
    if margin is None:
        return "No change of a single weight changes the winner."
    label = labels[margin["criterion"]]
    verb = "Raising" if margin["to_weight"] > margin["from_weight"] else "Lowering"
    to = margin["to_weight"]
    where = f"{to:.2f}".rstrip("0").rstrip(".")
    if to > SLIDER_MAX + 0.005:
        where += f" (past the slider's end, {SLIDER_MAX:g})"
    frm = f"{margin['from_weight']:.2f}".rstrip("0").rstrip(".")
    tied = " and ".join(names.get(s, s) for s in margin["tied"])
    after = " and ".join(names.get(s, s) for s in margin["after"])
    direction = "above" if verb == "Raising" else "below"
    if abs(to - margin["from_weight"]) < 0.005:  # a knife edge: the smallest move changes the winner
        lead = "The tie breaks at the slightest change: " if len(margin["base"]) > 1 else "A knife edge: "
        return f"{lead}the weight of {label} {direction} {frm} makes {after} rank first."
    if margin["tie"]:
        return f"{verb} the weight of {label} from {frm} to {where} makes {tied} tie; past that, {after} ranks first."
    return f"{verb} the weight of {label} from {frm} to {where} makes {after} rank first."


def recommendation(results: dict, scoring: dict, weights: list[float] | None = None, *,
                   papers: bool = False) -> dict | None:
    """The recommendation for ``weights`` (the criteria's saved weights by default): the winner(s) in words,
    their deciding numbers, how firm the choice is, the caveats, and every platform in rank order with ties
    shared.  None when the scenario cannot be ranked."""
    if not scoring or scoring.get("error") or scoring["report"].get("error"):
        return None
    report = scoring["report"]
    ranks = scoring["ranks"]
    weights = list(weights if weights is not None else scoring["weights"])
    verdict = weight_verdict(ranks, weights, report["robustness"].get("method", "weighted_sum"),
                             samples=report["robustness"].get("samples", 2000), seed=report.get("seed", 0))
    outcomes = platform_outcomes(results, scoring)
    names = {slug: o["name"] for slug, o in outcomes.items()}
    labels = [c["label"] for c in report["criteria"]]
    rows, position = [], 1
    for tier in verdict["tiers"]:
        for slug in tier:
            rows.append({**outcomes[slug], "position": position, "tied": len(tier) > 1,
                         "score": verdict["values"][slug], "p_first_near": verdict["p_first_near"][slug]})
        position += len(tier)
    winners = [r for r in rows if r["slug"] in verdict["winners"]]
    runner = next((r for r in rows if r["slug"] not in verdict["winners"]), None)
    return {
        "winners": winners, "tie": len(winners) > 1, "winner_names": " and ".join(w["name"] for w in winners),
        "runner_up": runner, "rows": rows, "weights": weights, "method": METHOD_LABELS.get(verdict["method"]),
        "margin": verdict["margin"], "margin_text": _margin_text(verdict["margin"], labels, names),
        "horizon": report["tco"]["horizon"],
        "caveats": caveats(results, outcomes, {c["key"]: c["label"] for c in report["criteria"]}, papers),
        "methods": _methods(ranks, weights, names), "platform_names": list(names.values()),
    }


def _methods(ranks: dict, weights: list[float], names: dict[str, str]) -> list[dict]:
    """Every aggregation method's value per platform and its order, ties written "=" (for the weights given)."""
    rows = []
    for method, values in aggregate(ranks, weights).items():
        order = " > ".join(" = ".join(names[s] for s in tier) for tier in tiers(values))
        rows.append({"method": method, "label": METHOD_LABELS.get(method, method),
                     "values": [values[s] for s in names], "order": order})
    return rows


#: the cost story's categories in the order a reader adds them up (fixed per year, then what the runs add)
COST_PARTS = [("capital", "Capital"), ("staff", "Staff"), ("power", "Power"), ("compute", "Compute"),
              ("storage", "Storage"), ("transfer", "Transfer")]


def cost_frame(outcomes: dict[str, dict]) -> pd.DataFrame:
    """One row per platform and cost category: AUD a year (fixed costs, and each run's bill × runs a year)."""
    rows = []
    for o in outcomes.values():
        story = o["cost"]
        if story is None:
            continue
        for key, label in COST_PARTS:
            if key in story["fixed_per_year"]:
                aud = story["fixed_per_year"][key]
            else:
                aud = story["per_run"][key] * story["runs_per_year"]
            rows.append({"platform": o["name"], "category": label, "aud_per_year": aud,
                         "per_year_aud": story["per_year_aud"]})
    return pd.DataFrame(rows, columns=["platform", "category", "aud_per_year", "per_year_aud"])
