"""The one adapter between the ORM catalogue and the simulator's input dataclasses.

Catalogue rows are turned into the same dict shape as ``fixtures/catalogue/*.json``
(facts as bare base-unit values), and :mod:`simulator.model.catalogue` builds the
specs from it, so the fixtures and the database take a single conversion path.
"""

from __future__ import annotations

from typing import Any

from apps.platforms.models import NodeType, Platform, StorageTier
from apps.workloads.models import ReferenceObservation, Workload
from simulator.model.catalogue import Observation, platform_from_dict, workload_from_dict
from simulator.model.specs import POLICIES, PRICING_MODELS, PlatformSpec, ScenarioSpec, StagePlacement, WorkloadSpec

__all__ = [
    "platform_dict",
    "workload_dict",
    "platform_spec",
    "workload_spec",
    "observations",
    "scenario_from_inputs",
]


def _facts(obj, names) -> dict[str, Any]:
    facts = {}
    for name in names:
        value = getattr(obj, name)
        if value is None or value == "":
            continue
        if hasattr(value, "isoformat"):
            value = value.isoformat()
        facts[name] = value
    return facts


def platform_dict(platform: Platform) -> dict[str, Any]:
    """A platform as a catalogue-format dict with base-unit facts."""
    return {
        "slug": platform.slug,
        "name": platform.name,
        "kind": platform.kind,
        "facts": _facts(platform, Platform.FACT_FIELDS),
        "node_types": [
            {"name": n.name, "facts": _facts(n, NodeType.FACT_FIELDS)} for n in platform.node_types.all()
        ],
        "storage_tiers": [
            {"name": t.name, "kind": t.kind, "facts": _facts(t, StorageTier.FACT_FIELDS)}
            for t in platform.storage_tiers.all()
        ],
    }


def workload_dict(workload: Workload) -> dict[str, Any]:
    """A workload as a catalogue-format dict with base-unit parameters and stage facts."""
    stages = []
    for stage in workload.stages.all():
        facts = _facts(stage, [f for f in stage.FACT_FIELDS if f != "depends_on"])
        stages.append({"name": stage.name, "facts": facts, "depends_on": list(stage.depends_on or [])})
    return {
        "slug": workload.slug,
        "name": workload.name,
        "template": workload.template,
        "parameters": dict(workload.parameters or {}),
        "stages": stages,
    }


def platform_spec(platform: Platform) -> PlatformSpec:
    return platform_from_dict(platform_dict(platform))


def workload_spec(workload: Workload) -> WorkloadSpec:
    return workload_from_dict(workload_dict(workload))


def observations(queryset=None) -> list[Observation]:
    """Reference observations as the simulator's validation inputs (base units)."""
    rows = queryset if queryset is not None else ReferenceObservation.objects.select_related("platform", "workload")
    out = []
    for o in rows:
        scatter = o.scatter
        if isinstance(scatter, (int, float)) and not isinstance(scatter, bool) and o.base_value is not None:
            value = o.value if isinstance(o.value, (int, float)) and o.value else None
            scatter = scatter * (o.base_value / value) if value else None
        else:
            scatter = None
        out.append(
            Observation(
                key=o.key,
                quantity=o.quantity,
                platform=o.platform.slug if o.platform else "",
                value=o.base_value,
                unit=o.unit,
                workload=o.workload.slug if o.workload else "",
                scatter=scatter,
                note=o.note,
                where=str((o.source or {}).get("where", "")),
            )
        )
    return out


#: options a run accepts, with their types (the form and the API validate against this)
PLACEMENT_KEYS = {
    "stage": str,
    "node_type": str,
    "nodes": int,
    "storage_in": str,
    "storage_out": str,
    "pricing": str,
    "policy": str,
    "launch_interval_s": float,
    "queue_wait_s": float,
    "subbands_per_task": int,
}
FLAG_KEYS = {"spot_interruptions": bool, "include_copy": bool, "single_allocation": bool}


def scenario_from_inputs(inputs: dict[str, Any], seed: int) -> ScenarioSpec:
    """The simulator scenario of a run's input snapshot; raises ValueError naming the bad option."""
    platform = platform_from_dict(inputs["platform"])
    workload = workload_from_dict(inputs["workload"])
    options = inputs.get("options") or {}
    if not isinstance(options, dict):
        raise ValueError("options: must be an object")
    unknown = set(options) - set(FLAG_KEYS) - {"placements", "retention_after_run_s"}
    if unknown:
        raise ValueError(f"options: unknown option(s) {', '.join(sorted(unknown))}")
    placements = []
    for i, raw in enumerate(options.get("placements") or []):
        placements.append(_placement(raw, i, platform, workload))
    flags = {}
    for key in FLAG_KEYS:
        if key in options:
            if not isinstance(options[key], bool):
                raise ValueError(f"options.{key}: must be true or false")
            flags[key] = options[key]
    retention = options.get("retention_after_run_s", 0.0)
    if isinstance(retention, bool) or not isinstance(retention, (int, float)) or retention < 0:
        raise ValueError("options.retention_after_run_s: must be a non-negative number of seconds")
    return ScenarioSpec(
        platform=platform, workload=workload, placements=tuple(placements), seed=int(seed),
        retention_after_run_s=float(retention), **flags,
    )


def _placement(raw: Any, i: int, platform: PlatformSpec, workload: WorkloadSpec) -> StagePlacement:
    where = f"options.placements[{i}]"
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: must be an object")
    unknown = set(raw) - set(PLACEMENT_KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    values = {}
    for key, value in raw.items():
        if value is None:
            continue
        kind = PLACEMENT_KEYS[key]
        if kind is str and not isinstance(value, str):
            raise ValueError(f"{where}.{key}: must be text")
        if kind in (int, float) and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise ValueError(f"{where}.{key}: must be a number")
        if kind in (int, float) and value < 0:
            raise ValueError(f"{where}.{key}: must not be negative")
        values[key] = kind(value)
    if "stage" not in values:
        raise ValueError(f"{where}.stage: required")
    stage_names = {s.name for s in workload.stages}
    if stage_names and values["stage"] not in stage_names:
        raise ValueError(f"{where}.stage: {values['stage']!r} is not a stage of {workload.slug} ({', '.join(sorted(stage_names))})")
    if "node_type" in values:
        platform.node_type(values["node_type"])  # KeyError names the known ones
    for key in ("storage_in", "storage_out"):
        if key in values:
            platform.storage_tier(values[key])
    if values.get("nodes", 1) < 1:
        raise ValueError(f"{where}.nodes: must be at least 1")
    if "policy" in values and values["policy"] not in POLICIES:
        raise ValueError(f"{where}.policy: one of {', '.join(POLICIES)}")
    if "pricing" in values and values["pricing"] not in PRICING_MODELS:
        raise ValueError(f"{where}.pricing: one of {', '.join(PRICING_MODELS)}")
    return StagePlacement(**values)
