"""Validate the simulator against the reference observations held in the catalogue, and refit the values
fitted to them.

Both build the simulator's inputs with the one adapter (``apps.scenarios.adapters``) from the records the
observations name, so the numbers here are the numbers a user's run of the same platform gives.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from pathlib import Path

import pandas as pd
from django.conf import settings
from django.db import transaction

from apps.core.labels import readable
from apps.core.provenance import bibliography
from apps.platforms.models import Platform
from apps.scenarios.adapters import observations, platform_spec, workload_spec
from apps.scenarios.charts import io_curves_figure, validation_error_figure
from apps.workloads.models import ReferenceObservation, Workload
from simulator.model.calibration import (
    FIT_INVERT_CPU,
    QUANTITIES,
    Demand,
    FittedParameter,
    fit_demands,
    fit_invert_cpu,
    scenario_predictor,
)
from simulator.model.io_rate import Benchmarks, benchmarks_from_dict
from simulator.model.io_validation import fit_io, io_curve, validate_io
from simulator.model.specs import PlatformSpec, ScenarioSpec, WorkloadSpec
from simulator.model.validation import validate
from simulator.units import from_base

__all__ = ["validation_report", "seed_sections", "io_benchmarks", "io_fitted_values", "io_rows", "seed_summaries", "io_curve_frames", "fitted_from", "pass_rates", "fitted_values", "fit_model", "write_fitted_to_fixtures", "default_scenario", "store_fitted"]

DEFAULT_WORKLOAD = "chiles-epoch1"


def _inputs(workload: Workload):
    rows = ReferenceObservation.objects.filter(workload=workload).select_related("platform", "workload")
    slugs = {o.platform.slug for o in rows if o.platform is not None}
    platforms = Platform.objects.filter(slug__in=slugs).prefetch_related("node_types", "storage_tiers")
    return {p.slug: platform_spec(p) for p in platforms}, workload_spec(workload), observations(rows)


def fitted_values(workload: Workload) -> list[dict]:
    """Every value of the workload (parameters, stage facts) and of the platforms its observations name whose
    provenance is "fitted", with its method."""
    out = []

    def add(owner: str, name: str, value, source: dict | None) -> None:
        if value is None or not source or source.get("kind") != "fitted":
            return
        out.append({"name": f"{owner}{name}", "value": value, "unit": "",
                    "method": source.get("method", ""), "sources": ", ".join(source.get("observations") or [])})

    for name, value in (workload.parameters or {}).items():
        add("", name, value, (workload.provenance or {}).get(name))
    for stage in workload.stages.all():
        for name in stage.FACT_FIELDS:
            add(f"{stage.name}.", name, getattr(stage, name), (stage.provenance or {}).get(name))
    return out


def fitted_from(workload: Workload) -> frozenset[str]:
    """The keys of the observations the fits that produced the workload's fitted values used, and those of the
    fitted facts of the platforms its observations name (a platform's, a node type's or a storage tier's), as
    their provenance records them (``fit_model`` writes it for the workload; the catalogue for the platforms)."""
    sources = [(workload.provenance or {}).get(name) for name in (workload.parameters or {})]
    sources += [(stage.provenance or {}).get(name) for stage in workload.stages.all() for name in stage.FACT_FIELDS]
    slugs = ReferenceObservation.objects.filter(workload=workload).values_list("platform__slug", flat=True)
    for p in Platform.objects.filter(slug__in=set(slugs)).prefetch_related("node_types", "storage_tiers"):
        for row in (p, *p.node_types.all(), *p.storage_tiers.all()):
            sources += [(row.provenance or {}).get(name) for name in row.FACT_FIELDS]
    return frozenset(key for src in sources if src and src.get("kind") == "fitted"
                     for key in src.get("observations") or ())


def pass_rates(rows: list[dict]) -> dict:
    """Targets met among the out-of-sample numeric rows; in-sample rows and qualitative checks counted apart."""
    numeric = [r for r in rows if r["target_pct"] is not None and r["published"] is not None]
    scored = [r for r in numeric if not r["in_sample"]]
    qualitative = [r for r in rows if r["target_pct"] is None and not r["in_sample"]]
    return {"met": sum(1 for r in scored if r["met"]), "total": len(scored),
            "in_sample": sum(1 for r in numeric if r["in_sample"]),
            "qualitative_met": sum(1 for r in qualitative if r["met"]), "qualitative_total": len(qualitative),
            "qualitative_in_sample": sum(1 for r in rows if r["target_pct"] is None and r["in_sample"])}


def io_benchmarks(directory: Path | None = None) -> Benchmarks:
    """The catalogue's I/O benchmark systems and runs (``io_benchmarks.json``, seeds 001, 002, 004)."""
    path = Path(directory or settings.SKYPLAN_CATALOGUE_DIR) / "io_benchmarks.json"
    return benchmarks_from_dict(json.loads(path.read_text(encoding="utf-8")), name=path.name)


def _all_observations():
    return observations(ReferenceObservation.objects.select_related("platform", "workload"))


def io_fitted_values() -> list[dict]:
    """The I/O benchmark facts the validation fits (``fit_io``), in the catalogue's units, with their method."""
    path = Path(settings.SKYPLAN_CATALOGUE_DIR) / "io_benchmarks.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    entries = {("storage", e["slug"]): e for e in raw.get("storage", ())}
    entries |= {("library", e["slug"]): e for e in raw.get("libraries", ())}
    b = io_benchmarks()
    out = []
    for f in fit_io(b, _all_observations())[1]:
        unit = entries[(f.owner, f.slug)]["facts"][f.fact].get("unit") or ""
        owner = b.storage[f.slug].name if f.owner == "storage" else b.libraries[f.slug].name
        out.append({"name": f"{owner}: {readable(f.fact)}", "value": from_base(f.value, unit) if unit else f.value,
                    "unit": unit, "method": f.method, "sources": ", ".join(f.observations)})
    return out


def io_rows() -> list[dict]:
    """Published vs predicted for every I/O benchmark of the catalogue whose observation is loaded."""
    return [asdict(r) for r in validate_io(io_benchmarks(), _all_observations())]


_AXIS = {"nodes": ("nodes", 1.0, "nodes (count)"), "data_bytes": ("data", 1e9, "data size (GB)"),
         "request_bytes": ("request", 1024.0, "request (chunk) size (KiB)")}


def io_curve_frames(rows: list[dict]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The model's curve through every I/O experiment that has one (seed, experiment, axis title, x, GB/s) and the
    published figures on them (the same plus ``in_sample``; a knee's published node count as ``knee``).

    ``rows`` are the report's rows, which say each observation's seed and whether it is in sample."""
    by_obs = {r["observation"]: r for r in rows if r["target_pct"] is None}
    by_obs.update({r["observation"]: r for r in rows if r["target_pct"] is not None})  # a numeric row first
    b, _ = fit_io(io_benchmarks(), _all_observations())  # the values the validation's fits produce
    curves, points = [], []
    for e in b.experiments:
        row = next((by_obs[k] for k in e.observations if k in by_obs), None)
        if e.curve is None or row is None:
            continue
        axis, values, _unit = e.curve
        _, scale, title = _AXIS[axis]
        per_node = e.measure == "rate_per_node"
        label = (f"{b.storage[e.storage].name} · {b.libraries[e.library].name} "
                 f"({e.direction}{', per node' if per_node else ''})")
        for x, rate in io_curve(b, e, axis, list(values)):
            nodes = x if axis == "nodes" else e.nodes
            curves.append({"seed": row["seed"], "experiment": e.key, "label": label, "axis": title, "x": x / scale,
                           "gb_per_s": rate / 1e9 / (nodes if per_node else 1)})
        x_here = getattr(e, axis) / scale
        if e.measure in ("rate", "rate_per_node") and row["published"] is not None:
            points.append({"seed": row["seed"], "experiment": e.key, "label": label, "axis": title, "x": x_here,
                           "gb_per_s": row["published"], "in_sample": row["in_sample"], "kind": "point",
                           "text": f"{row['quantity_label']}: {row['published']:g} {row['unit']} ({row['where']})"})
        elif e.measure in ("knee_nodes", "cache_knee") and row["published"] is not None:
            said = "flattens after" if e.measure == "knee_nodes" else "drops around"
            points.append({"seed": row["seed"], "experiment": e.key, "label": label, "axis": title,
                           "x": row["published"], "gb_per_s": None, "in_sample": row["in_sample"], "kind": "knee",
                           "text": f"published: {said} ~{row['published']:g} {row['unit']} ({row['where']})"})
    return pd.DataFrame(curves), pd.DataFrame(points)


def seed_sections(report: dict) -> list[dict]:
    """Per seed study for the validation page: its citation, summary line and figures (``{"id", "title",
    "json"}``): predicted against published for every numeric row, and the model's curves with the
    published figures on them."""
    rows = report["rows"] + report["qualitative"]
    curves, points = io_curve_frames(rows)
    bib = bibliography()
    frame = pd.DataFrame(report["rows"])
    out = []
    for sm in report["seeds"][1:]:
        seed = sm["seed"]
        figures = []
        mine = frame[frame["seed"] == seed] if not frame.empty else frame
        if not mine.empty:
            figures.append({"id": f"errors-{seed}", "title": "Simulated against published, every numeric row",
                            "json": validation_error_figure(mine).to_json()})
        if not curves.empty:
            c = curves[curves["seed"] == seed]
            p = points[points["seed"] == seed] if not points.empty else points
            for i, axis in enumerate(dict.fromkeys(c["axis"])):
                figures.append({"id": f"curves-{seed}-{i}", "title": f"Model curves against {axis.rsplit(' (', 1)[0]}",
                                "json": io_curves_figure(c, p, axis).to_json()})
        out.append({"seed": seed, "short": bib.get(seed, {}).get("short", f"seed {seed}"),
                    "citation": bib.get(seed, {}).get("citation", ""), "summary": sm, "figures": figures})
    return out


def seed_summaries(rows: list[dict]) -> list[dict]:
    """Per seed study: out-of-sample numeric rows, their median |error|, how many within 25% and beyond 50%,
    in-sample rows and qualitative checks met; ``seed`` "all" first."""

    def one(seed: str, rs: list[dict]) -> dict:
        scored = [r for r in rs if r["target_pct"] is not None and r["published"] is not None and not r["in_sample"]]
        errs = sorted(abs(r["error_pct"]) for r in scored)
        median = None
        if errs:
            mid = len(errs) // 2
            median = errs[mid] if len(errs) % 2 else (errs[mid - 1] + errs[mid]) / 2
        qual = [r for r in rs if r["target_pct"] is None and not r["in_sample"]]
        return {"seed": seed, "rows": len(scored), "median_abs_error_pct": median,
                "within_25": sum(1 for e in errs if e <= 25.0), "beyond_50": sum(1 for e in errs if e > 50.0),
                "met": sum(1 for r in scored if r["met"]),
                "in_sample": sum(1 for r in rs if r["in_sample"] and r["target_pct"] is not None),
                "qualitative_met": sum(1 for r in qual if r["met"]), "qualitative": len(qual),
                "qualitative_in_sample": sum(1 for r in rs if r["target_pct"] is None and r["in_sample"])}

    seeds = sorted({r["seed"] for r in rows if r["seed"]})
    return [one("all", rows)] + [one(s, [r for r in rows if r["seed"] == s]) for s in seeds]


def validation_report(workload_slug: str = DEFAULT_WORKLOAD, seed: int = 0) -> dict:
    """Published vs simulated for every reference quantity of ``workload_slug``, plus every fitted value.

    ``met``/``total`` count the out-of-sample numeric rows only; qualitative checks are counted apart."""
    workload = Workload.objects.prefetch_related("stages").get(slug=workload_slug)
    platforms, spec, obs = _inputs(workload)
    rows = [asdict(r) for r in validate(platforms, spec, obs, seed=seed, fitted_from=fitted_from(workload))]
    rows = _for_reading(rows + io_rows())
    return {
        "workload": workload.slug,
        "workload_name": workload.name,
        "seed": seed,
        "rows": [r for r in rows if r["target_pct"] is not None],
        "qualitative": [r for r in rows if r["target_pct"] is None],
        "fitted": [{**f, "method": _in_words(f["method"]), "sources": _in_words(f["sources"])}
                   for f in fitted_values(workload) + io_fitted_values()],
        "seeds": seed_summaries(rows),
        **pass_rates(rows),
    }


def _names() -> dict[str, str]:
    """Every observation key, platform slug and storage system of the I/O benchmarks (which stands for the platform
    in their rows) -> how a reader sees it: "invert single time (Magnus)", "Magnus", "CSD3 data accelerator (DAC)"."""
    platforms = {**{slug: s.name for slug, s in io_benchmarks().storage.items()},
                 **dict(Platform.objects.values_list("slug", "name"))}
    names = {key: f"{readable(quantity)} ({platforms.get(slug, slug)})" if slug else readable(quantity)
             for key, quantity, slug in ReferenceObservation.objects.values_list("key", "quantity", "platform__slug")}
    return {**platforms, **names}


def _in_words(text: str, names: dict[str, str] | None = None) -> str:
    """``text`` with the observation keys and platform slugs it names replaced by what a reader knows them by."""
    names = _names() if names is None else names
    if not text or not names:
        return text
    pattern = r"(?<![\w.-])(" + "|".join(map(re.escape, sorted(names, key=len, reverse=True))) + r")(?![\w-]|\.\w)"
    return re.sub(pattern, lambda m: names[m.group(1)], text)


def _for_reading(rows: list[dict]) -> list[dict]:
    """The rows with what the page shows of them in words: ``platform_name``, ``quantity_label`` and the
    explanation and assumptions without identifiers (``platform`` and ``quantity`` stay as they are)."""
    names = _names()
    return [{**r, "platform_name": names.get(r["platform"], r["platform"]), "quantity_label": _in_words(readable(r["quantity"]), names),
             "explanation": _in_words(r["explanation"], names), "assumptions": _in_words(r["assumptions"], names)}
            for r in rows]


def _source(f: FittedParameter) -> dict:
    return {"kind": "fitted", "method": f.method, "observations": list(f.observations)}


#: a StageSpec field -> the WorkloadStage field holding it, where the names differ
_STAGE_FIELD = {"overhead_s": "overhead"}


def default_scenario(platform: PlatformSpec, workload: WorkloadSpec) -> ScenarioSpec:
    """The workload on ``platform`` with its default placements (without the WAN copy when the platform has no WAN
    bandwidth): what a fit to a user's observed run of that workload there simulates."""
    return ScenarioSpec(platform=platform, workload=workload, include_copy=platform.wan.bytes_per_s is not None,
                        label=f"{workload.slug} on {platform.slug}")


def store_fitted(workload: Workload, fitted: list[FittedParameter]) -> None:
    """Each fitted value into the workload (a parameter, or a stage's demand ``<stage>.<field>``) with provenance
    "fitted to observations ..."."""
    params = {f.name: f for f in fitted if "." not in f.name}
    workload.parameters = {**(workload.parameters or {}), **{k: f.value for k, f in params.items()}}
    workload.provenance = {**(workload.provenance or {}), **{k: _source(f) for k, f in params.items()}}
    workload.save(update_fields=["parameters", "provenance"])
    stages = {st.name: st for st in workload.stages.all()}
    for f in fitted:
        if "." not in f.name:
            continue
        stage, name = f.name.split(".", 1)
        row, field = stages[stage], _STAGE_FIELD.get(name, name)
        setattr(row, field, f.value)
        row.provenance = {**(row.provenance or {}), field: _source(f)}
        row.save(update_fields=[field, "provenance"])


def fit_model(workload_slug: str = DEFAULT_WORKLOAD, demands: list[Demand] | None = None, *,
              seed: int = 0) -> list[FittedParameter]:
    """Refit the workload's fitted values from the observations marked for fitting and store them, each with
    provenance "fitted to observations ..."; raises ValueError when the fit cannot be made (nothing is saved).

    With no ``demands``, the INVERT CPU split (:func:`~simulator.model.calibration.invert_cpu_demands`: the CPU of the
    invert task's serial and parallel phases) fitted to the observations marked ``invert_cpu``.  With ``demands`` (a
    stage's per-task demand ``<stage>.<field>`` or a parameter, bounded), any workload: fitted to its observations
    of a ``makespan``, ``run_time`` or ``stage_time:<stage>`` marked for fitting, each simulated with the workload's
    default placements on the observation's platform (:func:`default_scenario`)."""
    with transaction.atomic():
        workload = Workload.objects.select_for_update().prefetch_related("stages").get(slug=workload_slug)
        platforms, spec, obs = _inputs(workload)
        if demands:
            runs = [o for o in obs if o.quantity.partition(":")[0] in QUANTITIES and o.value is not None]
            scenarios = {slug: (lambda w, p=p: default_scenario(p, w)) for slug, p in platforms.items()}
            fitted = fit_demands(spec, list(demands), runs, scenario_predictor(scenarios, seed=seed)).fitted
        elif not any(o.fit == FIT_INVERT_CPU for o in obs):
            raise ValueError(f"workload {workload_slug!r}: name the demands to fit, e.g. --demand "
                             f"<stage>.cpu_seconds:1:100000 (only the INVERT CPU split, of a workload with "
                             f"observations marked fit={FIT_INVERT_CPU!r}, has a default)")
        else:
            fitted = fit_invert_cpu(platforms, spec, obs)
        store_fitted(workload, fitted)
    return fitted


def write_fitted_to_fixtures(directory: Path, workload_slug: str, fitted: list[FittedParameter]) -> Path:
    """Write the fitted values into ``workloads.json`` of the catalogue in ``directory`` (seconds, with provenance:
    a parameter, or the stage's fact for ``<stage>.<field>``), so the next ``load_catalogue`` keeps them."""
    path = Path(directory) / "workloads.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    entry = next((w for w in data["workloads"] if w.get("slug") == workload_slug), None)
    if entry is None:
        raise ValueError(f"{path.name}: no workload {workload_slug!r}")
    stages = {st.get("name"): st for st in entry.get("stages", ())}
    for f in fitted:
        fact = {"value": f.value, "unit": f.unit, "source": _source(f)}
        if "." not in f.name:
            entry.setdefault("parameters", {})[f.name] = fact
            continue
        stage, name = f.name.split(".", 1)
        if stage not in stages:
            raise ValueError(f"{path.name}: workload {workload_slug!r} has no stage {stage!r}")
        stages[stage].setdefault("facts", {})[_STAGE_FIELD.get(name, name)] = fact
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
