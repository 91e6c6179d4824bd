"""Render a report document to bytes: JSON, CSV (a ZIP of one CSV per table), XLSX, self-contained HTML, PDF.

The PDF is the HTML report printed by headless Chromium, so its charts are the very plotly figures the
browser shows, drawn as vector graphics.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import tempfile
import zipfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.template.loader import render_to_string

from apps.core.limits import lift_address_space_limit
from apps.reports.currency import in_currency
from apps.reports.tables import Table, report_tables, safe_cell
from apps.scenarios.summary import validation_label
from apps.scoring.logic.aggregate import method_label

__all__ = ["RenderError", "render", "render_json", "render_csv", "render_xlsx", "render_html", "render_pdf",
           "chromium_path"]

#: longest a PDF print may take (seconds)
PDF_TIMEOUT_S = 180


class RenderError(RuntimeError):
    """A format could not be produced on this host (e.g. no Chromium for PDF); the message says what to do."""


def render(doc: dict, fmt: str) -> bytes:
    return {"json": render_json, "csv": render_csv, "xlsx": render_xlsx, "html": render_html,
            "pdf": render_pdf}[fmt](doc)


def render_json(doc: dict) -> bytes:
    return json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False).encode()


def _csv_bytes(table: Table) -> bytes:
    out = io.StringIO()
    # every text cell quoted: a spreadsheet splitting on another list separator (";") keeps it one cell
    writer = csv.writer(out, lineterminator="\r\n", quoting=csv.QUOTE_NONNUMERIC)
    writer.writerow([safe_cell(c) for c in table.columns])
    for row in table.rows:
        writer.writerow(["" if v is None else safe_cell(v) for v in row])
    return out.getvalue().encode("utf-8-sig")  # the BOM makes Excel read UTF-8


def render_csv(doc: dict) -> bytes:
    """A ZIP holding one CSV per table (``ranking.csv``, ``ranks.csv``, …) and the recommendation as text."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("recommendation.txt", _summary_text(doc))
        for table in report_tables(in_currency(doc)):
            archive.writestr(f"{table.name}.csv", _csv_bytes(table))
    return buffer.getvalue()


def _summary_text(doc: dict) -> str:
    s = doc["scenario"]
    return (f"Skyplan report of scenario {s['name']} ({s['id']}), schema {doc['schema_version']}, "
            f"generated {doc['generated_at']}\r\n{doc['currency']['text']}\r\n\r\nRecommendation: "
            f"{doc['recommendation']['text']}\r\n")


def render_xlsx(doc: dict) -> bytes:
    """One sheet per table after a summary sheet; text that would be a formula is kept as escaped text."""
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font

    book = Workbook()
    summary = book.active
    summary.title = "summary"
    s = doc["scenario"]
    for row in [("Scenario", s["name"]), ("Scenario id", s["id"]), ("Workload", s["workload"]["name"]),
                ("Generated", doc["generated_at"]), ("Schema version", doc["schema_version"]),
                ("Currency", doc["currency"]["text"]),
                ("Recommendation", doc["recommendation"]["name"]), ("Why", doc["recommendation"]["text"])]:
        _append(summary, row)
    summary.column_dimensions["A"].width = 18
    summary.column_dimensions["B"].width = 120
    for cell in summary["B"]:
        cell.alignment = Alignment(wrap_text=True, vertical="top")
    for table in report_tables(in_currency(doc)):
        sheet = book.create_sheet(table.name[:31])
        _append(sheet, table.columns)
        for cell in sheet[1]:
            cell.font = Font(bold=True)
        for row in table.rows:
            _append(sheet, row)
        sheet.freeze_panes = "A2"
        for i, column in enumerate(table.columns, start=1):
            width = max([len(str(column))] + [len(str(r[i - 1])) for r in table.rows[:200] if r[i - 1] is not None])
            sheet.column_dimensions[sheet.cell(row=1, column=i).column_letter].width = min(max(width + 2, 8), 60)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _append(sheet, values) -> None:
    sheet.append([safe_cell(v) for v in values])
    for cell in sheet[sheet.max_row]:
        if isinstance(cell.value, str):
            cell.data_type = "s"  # never a formula, whatever the text


@lru_cache(maxsize=1)
def _plotly_js() -> str:
    from apps.settings import _plotly_js_dir

    text = (Path(_plotly_js_dir()) / "plotly.min.js").read_text(encoding="utf-8")
    return text.replace("</script", "<\\/script")


@lru_cache(maxsize=1)
def _report_css() -> str:
    return (Path(settings.BASE_DIR) / "static" / "css" / "report.css").read_text(encoding="utf-8")


def render_html(doc: dict, *, for_print: bool = False) -> bytes:
    """The report as one HTML file with its CSS, plotly.js and figures inside (opens offline)."""
    doc = in_currency(doc)
    context = {"doc": doc, "currency": doc["currency"]["code"], "css": _report_css(), "plotly_js": _plotly_js(),
               "for_print": for_print,
               "names": {r["platform"]: r["name"] for r in doc["ranking"]},
               "figures": doc.get("figures", {}), "figure_titles": FIGURE_TITLES, **_html_rows(doc)}
    return render_to_string("reports/report.html", context).encode()


def _html_rows(doc: dict) -> dict[str, Any]:
    """The document reshaped for the HTML tables (criteria x platforms in ranking order)."""
    order = [r["platform"] for r in doc["ranking"]]
    names = {r["platform"]: r["name"] for r in doc["ranking"]}
    explanations = {(r["criterion"], r["platform"]): r["explanation"] for r in doc["ranks"]}
    counts: dict[str, int] = {}
    for i in doc["inputs"]:
        counts[i["source_kind"]] = counts.get(i["source_kind"], 0) + 1
    years = max((len(p["years"]) for p in doc["tco"]["platforms"]), default=0)
    return {
        "ranking_rows": [_ranking_row(r, doc["currency"]["code"]) for r in doc["ranking"]],
        "rank_matrix": [{"label": c["label"], "weight": c["weight"],
                         "cells": [explanations.get((c["key"], slug), "—") for slug in order]}
                        for c in doc["criteria"]],
        "aggregate_rows": [{"method": method_label(m), "values": [v.get(slug) for slug in order],
                            "order": " > ".join(names.get(s, s) for s in doc["orders"][m])}
                           for m, v in doc["aggregates"].items()],
        "cost_rows": [{"name": r["name"], "owned": r["kind"] == "owned_cluster", **r["cost"]}
                      for r in doc["ranking"] if r.get("cost")],
        "validation_rows": [{**v, "label": validation_label(v["quantity"], names), "platform_name": names.get(v["platform"],
                                                                                                   v["platform"])}
                            for v in (doc.get("validation") or {}).get("rows", [])],
        "first": doc["ranking"][0] if doc["ranking"] else None,
        "input_rows": [{**i, "owner_name": names.get(i["owner"], doc["scenario"]["workload"]["name"]
                                                    if i["owner"] == doc["scenario"]["workload"]["slug"] else i["owner"]),
                        "label": _input_label(i["path"])} for i in doc["inputs"]],
        "tco_years": list(range(1, years + 1)),
        "provenance_counts": f"{len(doc['inputs'])} inputs: " + ", ".join(
            f"{n} {kind}" for kind, n in sorted(counts.items(), key=lambda kv: -kv[1])),
    }


def _input_label(path: str) -> str:
    """An input's path as words: "facts.queue_wait_median" -> "queue wait median", "stages.split.cpu_seconds" ->
    "split: cpu seconds"."""
    parts = path.split(".")
    if parts[0] in ("facts", "parameters"):
        parts = parts[1:]
    elif parts[0] in ("stages", "node_types", "storage_tiers") and len(parts) > 2:
        parts = [f"{'.'.join(parts[1:-1])}:", parts[-1]]
    return " ".join(parts).replace("_", " ")


#: figure name -> heading, in the order the report shows them
FIGURE_TITLES: dict[str, str] = {
    "radar": "Radar of the ranks per criterion",
    "costs": "Cost a year by category (fixed costs and the runs' bills)",
    "tco": "Cumulative total cost of ownership",
    "gantt": "Timeline per platform (median replication)",
    "utilisation": "Bandwidth in use over time",
    "makespan": "Makespan over the Monte Carlo replications (hours)",
    "cost": "Cost over the Monte Carlo replications",
}


def _hours(seconds) -> str:
    return "—" if seconds is None else f"{seconds / 3600:,.1f} h"


def _money(value, code: str = "AUD") -> str:
    return "—" if value is None else f"{code} {value:,.0f}" if abs(value) >= 100 else f"{code} {value:,.2f}"


def _ranking_row(r: dict, code: str = "AUD") -> dict[str, Any]:
    """One ranked platform with its outcomes as short text (hours, money in the report's currency)."""
    def _aud(value):
        return _money(value, code)

    return {
        "position": r["position"], "name": r["name"], "score": r["score"],
        "makespan": _hours(r["makespan_p50_s"]),
        "makespan_range": f"{_hours(r['makespan_p10_s'])} – {_hours(r['makespan_p90_s'])}",
        "queue": _hours(r["queue_wait_s"]), "cost": _aud(r["cost_p50_aud"]),
        "cost_range": f"{_aud(r['cost_p10_aud'])} – {_aud(r['cost_p90_aud'])}", "tco": _aud(r["tco_total_aud"]),
        "per_run": _aud((r.get("cost") or {}).get("all_in_per_run_aud" if r["kind"] == "owned_cluster"
                                                 else "per_run_aud")),
        "owned": r["kind"] == "owned_cluster", "per_year": _aud((r.get("cost") or {}).get("per_year_aud")),
        "p_first": "—" if r["p_first"] is None else f"{100 * r['p_first']:.0f}%",
    }


def chromium_path() -> str | None:
    """The Chromium (or Chrome) binary to print PDFs with: ``SKYPLAN_CHROMIUM`` or the first one on PATH."""
    explicit = os.environ.get("SKYPLAN_CHROMIUM")
    if explicit:
        return explicit if Path(explicit).exists() else None
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


def render_pdf(doc: dict) -> bytes:
    """Print the HTML report to PDF with headless Chromium (A4, charts as vector graphics)."""
    binary = chromium_path()
    if binary is None:
        raise RenderError("PDF export needs Chromium on the worker host: install Debian's 'chromium' package "
                          "(make install does) or set SKYPLAN_CHROMIUM to a Chrome/Chromium binary")
    with tempfile.TemporaryDirectory(prefix="skyplan-pdf-") as tmp:
        page, out = Path(tmp) / "report.html", Path(tmp) / "report.pdf"
        page.write_bytes(render_html(doc, for_print=True))
        command = [
            binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-extensions", "--mute-audio", f"--user-data-dir={Path(tmp) / 'profile'}",
            "--no-pdf-header-footer", "--virtual-time-budget=15000", "--run-all-compositor-stages-before-draw",
            f"--print-to-pdf={out}", page.as_uri(),
        ]
        try:
            proc = subprocess.run(command, capture_output=True, timeout=PDF_TIMEOUT_S, check=False,
                                  preexec_fn=lift_address_space_limit)  # a worker's job cap would kill it
        except subprocess.TimeoutExpired:
            raise RenderError(f"Chromium did not print the PDF within {PDF_TIMEOUT_S} s") from None
        if not out.exists() or out.stat().st_size == 0 or not out.read_bytes().startswith(b"%PDF"):
            tail = proc.stderr.decode(errors="replace")[-800:]
            raise RenderError(f"Chromium exited with {proc.returncode} and wrote no PDF: {tail}")
        return out.read_bytes()


def table_frame(table: Table) -> list[dict[str, Any]]:
    """A table's rows as dicts keyed by column (for templates and tests)."""
    return [dict(zip(table.columns, row, strict=True)) for row in table.rows]
