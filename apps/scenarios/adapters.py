"""The one adapter between the ORM catalogue and the simulator's input dataclasses.

Catalogue rows are turned into the same dict shape as ``fixtures/catalogue/*.json``
(facts as bare base-unit values), and :mod:`simulator.model.catalogue` builds the
specs from it, so the fixtures and the database take a single conversion path.
"""

from __future__ import annotations

import copy
import math
from dataclasses import asdict
from typing import Any

import numpy as np
import pandas as pd

from apps.platforms.models import NodeType, Platform, StorageTier
from apps.workloads.models import ReferenceObservation, Workload
from apps.workloads.schemas import TEMPLATES
from simulator.model.catalogue import Observation, platform_from_dict, workload_from_dict
from simulator.model.chiles import default_placements
from simulator.model.simulate import check_scenario
from simulator.model.specs import POLICIES, PRICING_MODELS, PlatformSpec, ScenarioSpec, StagePlacement, WorkloadSpec

__all__ = [
    "platform_dict",
    "workload_dict",
    "platform_spec",
    "workload_spec",
    "observations",
    "scenario_from_inputs",
    "default_stage_placements",
    "apply_workload_overrides",
    "apply_platform_overrides",
    "PLATFORM_OVERRIDE_FACTS",
    "TIER_OVERRIDE_FACTS",
    "replication_frame",
    "stage_frame",
    "cost_frame",
    "utilisation_frame",
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
                fit=o.fit,
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
    scenario = ScenarioSpec(
        platform=platform, workload=workload, placements=tuple(placements), seed=int(seed),
        retention_after_run_s=float(retention), **flags,
    )
    check_scenario(scenario)  # options the model would otherwise ignore are refused here, naming the field
    return scenario


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


# --- scenario inputs: defaults and overrides -------------------------------------------------------

#: platform facts a scenario may override (what-ifs such as "halve the queue wait")
PLATFORM_OVERRIDE_FACTS = ("queue_wait_median", "wan_bandwidth")
#: storage-tier facts a scenario may override (what-ifs such as "raise the volume's IOPS")
TIER_OVERRIDE_FACTS = ("iops", "iops_per_client", "provisioned_iops", "read_bw", "write_bw",
                       "read_bw_per_client", "write_bw_per_client")


def default_stage_placements(platform: dict[str, Any], workload: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The placement the simulator uses for each stage when a run gives none, as JSON-safe dicts.

    Only the CHILES template has per-platform defaults (the paper's, §5); other templates
    start from the plain :class:`StagePlacement` defaults."""
    spec = platform_from_dict(platform)
    if workload.get("template") == "chiles" and (spec.node_types or spec.storage):
        return {p.stage: asdict(p) for p in default_placements(spec, workload_from_dict(workload))}
    return {s["name"]: asdict(StagePlacement(stage=s["name"])) for s in workload.get("stages", [])}


def _positive_number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{where}: must be a positive number")
    return float(value)


def apply_workload_overrides(workload: dict[str, Any], overrides: dict[str, Any] | None) -> dict[str, Any]:
    """A copy of a workload dict with some parameters replaced; raises ValueError naming a bad one."""
    if not overrides:
        return workload
    if not isinstance(overrides, dict):
        raise ValueError("workload_overrides: must be an object")
    out = copy.deepcopy(workload)
    params = out["parameters"]
    schema = {p.name: p for p in TEMPLATES.get(workload.get("template"), ())}
    for name, value in overrides.items():
        if name not in params:
            raise ValueError(f"workload.parameters.{name}: not a parameter of {workload['slug']}")
        params[name] = _positive_number(value, f"workload.parameters.{name}")
        if name in schema and (why := schema[name].check(params[name])):
            raise ValueError(f"workload.parameters.{name}: {why}")
    return out


def apply_platform_overrides(platform: dict[str, Any], overrides: dict[str, Any] | None) -> dict[str, Any]:
    """A copy of a platform dict with some facts replaced; raises ValueError naming a bad one.

    ``overrides`` is ``{"facts": {name: value}, "storage_tiers": {tier name: {name: value}}}``."""
    if not overrides:
        return platform
    if not isinstance(overrides, dict) or set(overrides) - {"facts", "storage_tiers"}:
        raise ValueError("platform_overrides: only 'facts' and 'storage_tiers' may be overridden")
    out = copy.deepcopy(platform)
    for name, value in (overrides.get("facts") or {}).items():
        if name not in PLATFORM_OVERRIDE_FACTS:
            raise ValueError(f"platform_overrides.facts.{name}: one of {', '.join(PLATFORM_OVERRIDE_FACTS)}")
        out["facts"][name] = _positive_number(value, f"platform_overrides.facts.{name}")
    tiers = {t["name"]: t for t in out["storage_tiers"]}
    for tier, facts in (overrides.get("storage_tiers") or {}).items():
        if tier not in tiers:
            raise ValueError(f"platform_overrides.storage_tiers: {platform['slug']} has no tier {tier!r}")
        for name, value in (facts or {}).items():
            if name not in TIER_OVERRIDE_FACTS:
                raise ValueError(f"platform_overrides.storage_tiers.{tier}.{name}: one of {', '.join(TIER_OVERRIDE_FACTS)}")
            tiers[tier]["facts"][name] = _positive_number(value, f"platform_overrides.storage_tiers.{tier}.{name}")
    return out


# --- simulation results -> pandas ------------------------------------------------------------------
HOUR = 3600.0


def replication_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """One row per replication: platform, index, makespan_h, cost_aud, queue_wait_h."""
    frame = pd.DataFrame(rows, columns=["platform", "index", "makespan_s", "cost_aud", "queue_wait_s"])
    frame["makespan_h"] = frame["makespan_s"].astype(float) / HOUR
    frame["queue_wait_h"] = frame["queue_wait_s"].astype(float) / HOUR
    return frame.drop(columns=["makespan_s", "queue_wait_s"])


def stage_frame(results: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """Per platform, the queue wait and each stage's span, with the resource that bounded it most."""
    rows = []
    for platform, result in results.items():
        queue = float(result.get("queue_wait_s") or 0.0)
        if queue > 0:
            rows.append({"platform": platform, "stage": "queue wait", "start_h": 0.0, "end_h": queue / HOUR,
                         "tasks": 0, "bound_by": "batch queue", "bound_share": 1.0, "task_hours": 0.0})
        for st in result.get("stages", []):
            shares = st.get("bound_shares") or {}
            bound = st.get("dominant_bound") or ""
            rows.append({
                "platform": platform, "stage": st["stage"], "start_h": st["start_s"] / HOUR, "end_h": st["end_s"] / HOUR,
                "tasks": st["tasks"], "bound_by": bound or "—", "bound_share": float(shares.get(bound, 0.0)),
                "task_hours": st["task_seconds"] / HOUR,
            })
    columns = ["platform", "stage", "start_h", "end_h", "tasks", "bound_by", "bound_share", "task_hours"]
    return pd.DataFrame(rows, columns=columns)


def cost_frame(results: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """Billed cost per platform and category (AUD); a platform with no bill has one zero row."""
    rows = []
    for platform, result in results.items():
        by_category = result.get("cost_by_category") or {}
        if not by_category:
            rows.append({"platform": platform, "category": "none billed", "aud": 0.0})
        for category, aud in by_category.items():
            rows.append({"platform": platform, "category": category, "aud": float(aud)})
    return pd.DataFrame(rows, columns=["platform", "category", "aud"])


def utilisation_frame(results: dict[str, dict[str, Any]], top: int = 4) -> pd.DataFrame:
    """Bandwidth in use over time on each platform's busiest resource groups (MB/s).

    Per-node instances (``nic@split-3``, ``EBS…@invert-7``) are summed into their group
    (``nic``, ``EBS…``); IOPS series are left out so one axis holds one unit."""
    frames = []
    for platform, result in results.items():
        series = result.get("utilisation_series") or {}
        moved = result.get("bytes_moved") or {}
        groups: dict[str, list[str]] = {}
        for name in series:
            group = name.split("@")[0]
            if not group.endswith(":iops"):
                groups.setdefault(group, []).append(name)
        ranked = sorted(groups, key=lambda g: sum(moved.get(n, 0.0) for n in groups[g]), reverse=True)[:top]
        for group in ranked:
            # one long frame of every instance's (time, rate) steps, then one pivot: a Series and a groupby per
            # instance took seconds for a group of a thousand instances
            parts = [(name, np.asarray(series[name], dtype=float).reshape(-1, 2)) for name in groups[group]
                     if series[name]]
            if not parts:
                continue
            long = pd.DataFrame({
                "name": np.concatenate([np.full(len(points), i) for i, (_, points) in enumerate(parts)]),
                "t": np.concatenate([points[:, 0] for _, points in parts]),
                "v": np.concatenate([points[:, 1] for _, points in parts]),
            }).drop_duplicates(["name", "t"], keep="last")
            wide = long.pivot(index="t", columns="name", values="v").sort_index().ffill().fillna(0.0)
            total = wide.sum(axis=1)
            frames.append(pd.DataFrame({"platform": platform, "resource": group, "t_h": total.index / HOUR,
                                        "mb_per_s": total.to_numpy() / 1e6}))
    if not frames:
        return pd.DataFrame(columns=["platform", "resource", "t_h", "mb_per_s"])
    return pd.concat(frames, ignore_index=True)
