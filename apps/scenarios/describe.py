"""A scenario's inputs in words: labels a reader knows and values with their units, never a Python dict.

The results page lists each platform's set-up with these; the comparison diffs the same ``label -> text``
pairs, so a changed input reads "Magnus (Pawsey Cray XC40): queue wait median — 3.54 days → 1.77 days".
"""

from __future__ import annotations

from typing import Any

from apps.core.fields import QuantityField
from apps.platforms.models import NodeType, Platform, StorageTier
from apps.workloads.schemas import TEMPLATES
from simulator.units import format_quantity

__all__ = ["setup_lines", "scenario_inputs_in_words", "catalogue_values", "value_text"]

_PLACEMENT = {
    "node_type": "node type", "nodes": "nodes", "storage_in": "reads from", "storage_out": "writes to",
    "pricing": "pricing", "policy": "scheduling policy", "launch_interval_s": "launch interval",
    "queue_wait_s": "queue wait", "subbands_per_task": "sub-bands per task",
}
_FLAGS = {"spot_interruptions": "spot interruptions", "include_copy": "the copy stage",
          "single_allocation": "one allocation for every stage"}


def _field(model, name: str):
    try:
        return model._meta.get_field(name)
    except Exception:  # noqa: BLE001 - a fact that is not a model field
        return None


def value_text(value: Any, dimension: str | None = None) -> str:
    """A value with its unit at a sensible precision ("3.54 day", "10,000 IOPS", "yes")."""
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        if dimension:
            return format_quantity(float(value), dimension)
        return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"
    if isinstance(value, list):
        return ", ".join(value_text(v, dimension) for v in value[:8]) + (f" … ({len(value)} values)"
                                                                         if len(value) > 8 else "")
    return str(value)


def _fact(model, name: str, value: Any) -> tuple[str, str]:
    field = _field(model, name)
    label = str(field.verbose_name) if field is not None else name.replace("_", " ")
    dimension = field.dimension if isinstance(field, QuantityField) else None
    return label, value_text(value, dimension)


def _placement_text(p: dict) -> str:
    parts = []
    for key, label in _PLACEMENT.items():
        if p.get(key) is None:
            continue
        value = value_text(p[key], "time" if key.endswith("_s") else None)
        parts.append(f"{value} {label}" if key == "nodes" else f"{label} {value}")
    return f"{p.get('stage', '?')}: " + (", ".join(parts) or "default placement")


def setup_lines(options: dict | None, overrides: dict | None) -> list[str]:
    """A platform's options and overrides in a scenario, one short sentence each (empty: the default set-up)."""
    options, overrides = options or {}, overrides or {}
    lines = [_placement_text(p) for p in options.get("placements") or [] if isinstance(p, dict)]
    for key, label in _FLAGS.items():
        if key in options:
            lines.append(f"{label}: {'on' if options[key] else 'off'}")
    if options.get("retention_after_run_s"):
        lines.append(f"data kept {value_text(options['retention_after_run_s'], 'time')} after the run")
    for name, value in (overrides.get("facts") or {}).items():
        label, text = _fact(Platform, name, value)
        lines.append(f"{label} set to {text}")
    for tier, facts in (overrides.get("storage_tiers") or {}).items():
        for name, value in (facts or {}).items():
            label, text = _fact(StorageTier, name, value)
            lines.append(f"{tier}: {label} set to {text}")
    for node, facts in (overrides.get("node_types") or {}).items():
        for name, value in (facts or {}).items():
            label, text = _fact(NodeType, name, value)
            lines.append(f"{node}: {label} set to {text}")
    return lines


def scenario_inputs_in_words(scenario) -> dict[str, str]:
    """Every input of a scenario as ``label -> text`` (with units): the workload and its parameters, the Monte
    Carlo and cost-of-ownership settings, and each platform's set-up."""
    out = {
        "Workload": scenario.workload.name, "Replications per platform": f"{scenario.replications}",
        "Random seed": f"{scenario.seed}", "Cost of ownership horizon": f"{scenario.tco_years:g} years",
        "Runs a year": f"{scenario.epochs_per_year:g}",
    }
    dims = {p.name: (p.label, p.dimension) for p in TEMPLATES.get(scenario.workload.template, ())}
    for name, value in sorted((scenario.workload_overrides or {}).items()):
        label, dimension = dims.get(name, (name.replace("_", " "), None))
        out[f"Workload: {label}"] = value_text(value, dimension)
    for e in scenario.entries.select_related("platform"):
        name = e.platform.name
        out[f"{name}"] = "included"
        for i, p in enumerate((e.options or {}).get("placements") or []):
            if isinstance(p, dict):
                stage = p.get("stage", i)
                for key, label in _PLACEMENT.items():
                    if p.get(key) is not None:
                        out[f"{name}: {stage} {label}"] = value_text(p[key], "time" if key.endswith("_s") else None)
        for key, label in _FLAGS.items():
            if key in (e.options or {}):
                out[f"{name}: {label}"] = "on" if e.options[key] else "off"
        if (e.options or {}).get("retention_after_run_s") is not None:
            out[f"{name}: data kept after the run"] = value_text(e.options["retention_after_run_s"], "time")
        overrides = e.platform_overrides or {}
        for fact, value in (overrides.get("facts") or {}).items():
            label, text = _fact(Platform, fact, value)
            out[f"{name}: {label}"] = text
        for tier, facts in (overrides.get("storage_tiers") or {}).items():
            for fact, value in (facts or {}).items():
                label, text = _fact(StorageTier, fact, value)
                out[f"{name}: {tier} {label}"] = text
        for node, facts in (overrides.get("node_types") or {}).items():
            for fact, value in (facts or {}).items():
                label, text = _fact(NodeType, fact, value)
                out[f"{name}: {node} {label}"] = text
    return out


def catalogue_values(scenario) -> dict[str, str]:
    """What each of the scenario's platform overrides replaced: ``label -> text`` of the catalogue's value (the
    comparison shows it on the side that kept it)."""
    out = {}
    for e in scenario.entries.select_related("platform").prefetch_related("platform__storage_tiers",
                                                                          "platform__node_types"):
        overrides = e.platform_overrides or {}
        for fact in overrides.get("facts") or {}:
            label, text = _fact(Platform, fact, getattr(e.platform, fact, None))
            out[f"{e.platform.name}: {label}"] = text
        for kind, model, related in (("storage_tiers", StorageTier, e.platform.storage_tiers),
                                     ("node_types", NodeType, e.platform.node_types)):
            children = {c.name: c for c in related.all()}
            for child, facts in (overrides.get(kind) or {}).items():
                for fact in facts or {}:
                    label, text = _fact(model, fact, getattr(children.get(child), fact, None))
                    out[f"{e.platform.name}: {child} {label}"] = text
    return out
