"""The report's tables, from the report document: what the CSV and XLSX exports hold and the HTML shows.

A :class:`Table` is a name, a title, column names and rows of plain values (numbers stay numbers).  Cells
that a spreadsheet would run as a formula are escaped on the way out by :func:`safe_cell`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from apps.core.provenance import describe_source

__all__ = ["Table", "report_tables", "safe_cell", "FORMULA_PREFIXES"]

#: a text cell starting with one of these is a formula (or DDE) to Excel, LibreOffice and Google Sheets
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")
#: a list separator (a spreadsheet may split a cell on ``,`` ``;`` tab or ``|``, whatever the file's own delimiter)
#: followed by a formula prefix: the start of a formula once the cell is split
_SPLIT_FORMULA = re.compile("([,;|\t\r\n])(?=[" + re.escape("".join(FORMULA_PREFIXES)) + "])")


@dataclass(frozen=True)
class Table:
    name: str
    title: str
    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)


def safe_cell(value: Any) -> Any:
    """``value`` safe for a spreadsheet, the one guard of every CSV and XLSX cell: text that would start a formula
    gets a leading apostrophe (OWASP's advice against CSV/formula injection), and so does text holding a list
    separator followed by a formula prefix, with an apostrophe after each such separator too — a spreadsheet
    reading the file with ``;`` as its list separator splits ``Magnus;=1+1`` into a cell ``=1+1`` otherwise.
    Numbers, booleans and empty cells pass unchanged, lists and objects become JSON text.  (The CSV writer also
    quotes every text cell.)"""
    if isinstance(value, (list, dict, tuple)):
        value = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, str):
        return value
    split = _SPLIT_FORMULA.search(value) is not None
    if split:
        value = _SPLIT_FORMULA.sub(r"\1'", value)
    if split or value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def report_tables(doc: dict) -> list[Table]:
    """Every table of the report, in the order the report presents them (amounts as the document holds them: pass
    :func:`apps.reports.currency.in_currency` of it for the reader's currency)."""
    names = {r["platform"]: r["name"] for r in doc["ranking"]}
    cur = doc["currency"]["code"]
    criteria = {c["key"]: c for c in doc["criteria"]}
    rate = doc["currency"]
    tables = [
        Table("currency", "Currency of the amounts", ["currency", "base currency", "base per unit", "rate date",
                                                      "rate source", "note"],
              [[cur, rate["base"], rate["base_per_unit"], rate["date"], describe_source(rate["source"])
                if rate["source"] else "", rate["text"]]]),
        Table("ranking", "Ranked platforms", [
            "position", "platform", "name", "kind", f"score ({doc['recommendation']['method']})",
            "makespan P10 (h)", "makespan P50 (h)", "makespan P90 (h)", f"cost P10 ({cur})", f"cost P50 ({cur})",
            f"cost P90 ({cur})", "queue wait (h)", f"TCO total ({cur})", "P(first), any weights", "P(first), near weights",
        ], [[r["position"], r["platform"], r["name"], r["kind"], r["score"], _h(r["makespan_p10_s"]),
             _h(r["makespan_p50_s"]), _h(r["makespan_p90_s"]), r["cost_p10_aud"], r["cost_p50_aud"],
             r["cost_p90_aud"], _h(r["queue_wait_s"]), r["tco_total_aud"], r["p_first"], r["p_first_near"]]
            for r in doc["ranking"]]),
        Table("ranks", "Ranks (0-5) with explanations", [
            "criterion", "label", "weight", "platform", "score", "value", "explanation",
        ], [[r["criterion"], criteria[r["criterion"]]["label"], criteria[r["criterion"]]["weight"], r["platform"],
             r["score"], r["value"], r["explanation"]] for r in doc["ranks"]]),
        Table("aggregates", "Aggregate scores by method", ["method", *names, "order"],
              [[method, *(values.get(slug) for slug in names), " > ".join(doc["orders"][method])]
               for method, values in doc["aggregates"].items()]),
        Table("robustness", "Robustness of the winner", ["platform", "P(first), any weights",
                                                          "P(first), near weights"],
              [[slug, doc["robustness"].get("first_place_probability", {}).get(slug),
                doc["robustness"].get("first_place_probability_near", {}).get(slug)] for slug in names]),
        Table("weight_flips", "Single-weight changes that flip the winner",
              ["criterion", "from weight", "to weight", "change", "new winner"],
              [[f["criterion"], f["from_weight"], f["to_weight"], f["change"], f["new_winner"]]
               for f in doc["robustness"].get("flips", [])]),
        Table("costs", "Cost breakdown of the median replication",
              ["platform", "category", "item", "quantity", "unit", f"rate ({cur})", f"cost ({cur})", "note"],
              [[c["platform"], c["category"], c["item"], c["quantity"], c["unit"], c["rate_aud"], c["aud"], c["note"]]
               for c in doc["costs"]]),
        Table("tco", "Total cost of ownership per year", ["platform", "year", f"cost ({cur})", f"cumulative ({cur})"],
              [[p["platform"], y["year"], y["total_aud"], y["cumulative_aud"]]
               for p in doc["tco"]["platforms"] for y in p["years"]]),
        Table("timeline", "Timeline of the median replication", [
            "platform", "stage", "start (h)", "end (h)", "tasks", "bounded by", "share of task time", "task hours",
        ], [[t["platform"], t["stage"], t["start_h"], t["end_h"], t["tasks"], t["bound_by"], t["bound_share"],
             t["task_hours"]] for t in doc["timeline"]]),
    ]
    if doc.get("validation"):
        tables.append(Table("validation", "Validation against the published measurements", [
            "quantity", "platform", "published", "simulated", "unit", "error (%)", "target", "met", "in sample",
            "where",
        ], [[r["quantity"], r["platform"], r["published"], r["simulated"], r["unit"], r["error_pct"], r["target"],
             r["met"], r.get("in_sample", False), r.get("where", "")] for r in doc["validation"]["rows"]]))
    tables.append(Table("inputs", "Inputs and their provenance",
                        ["owner", "input", "value", "shown", "source kind", "source"],
                        [[i["owner"], i["path"], _scalar(i["value"]), i["shown"], i["source_kind"], i["source"]]
                         for i in doc["inputs"]]))
    return tables


def _h(seconds):
    return None if seconds is None else seconds / 3600.0


def _scalar(value):
    if isinstance(value, (list, dict)):
        return ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
    return value
