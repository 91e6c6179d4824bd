"""The one adapter between the ORM catalogue and the simulator's input dataclasses.

Catalogue rows are turned into the same dict shape as ``fixtures/catalogue/*.json``
(facts as bare base-unit values), and :mod:`simulator.model.catalogue` builds the
specs from it, so the fixtures and the database take a single conversion path.
"""

from __future__ import annotations

import copy
from dataclasses import asdict
from typing import Any

import numpy as np
import pandas as pd

from apps.platforms.models import NodeType, Platform, StorageTier
from apps.workloads.models import ReferenceObservation, Workload
from apps.workloads.schemas import TEMPLATES
from simulator.contract import (
    PLATFORM_OVERRIDE_FACTS,
    TIER_OVERRIDE_FACTS,
    ContractError,
    FieldError,
    PlatformOverrides,
    RunOptions,
    WorkloadOverrides,
    check_overrides,
    parse,
    scenario_spec,
    stage_defaults,
)
from simulator.model.catalogue import Observation, platform_from_dict, seed_of, workload_from_dict
from simulator.model.specs import PlatformSpec, ScenarioSpec, WorkloadSpec

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
        if value is None or value == "" or value == []:  # not given (a list fact's default is empty)
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
                seed=seed_of(o.source),
            )
        )
    return out


def scenario_from_inputs(inputs: dict[str, Any], seed: int) -> ScenarioSpec:
    """The simulator scenario of a run's input snapshot, through the scenario contract (a partial placement is
    completed from the stage's default); raises :class:`~simulator.contract.ContractError` naming the field."""
    platform = platform_from_dict(inputs["platform"])
    workload = workload_from_dict(inputs["workload"])
    try:
        options = parse(RunOptions, inputs.get("options") or {})
    except ContractError as exc:
        raise exc.under("options") from None
    return scenario_spec(options, platform, workload, seed=seed)


# --- scenario inputs: defaults and overrides -------------------------------------------------------

def default_stage_placements(platform: dict[str, Any], workload: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The placement each stage gets when a run gives none (:func:`simulator.contract.stage_defaults`), as JSON-safe
    dicts."""
    return {stage: asdict(p) for stage, p in stage_defaults(platform_from_dict(platform),
                                                           workload_from_dict(workload)).items()}


def apply_workload_overrides(workload: dict[str, Any], overrides: dict[str, Any] | None) -> dict[str, Any]:
    """A copy of a workload dict with some parameters replaced; raises ContractError naming a bad one."""
    if not overrides:
        return workload
    try:
        values = parse(WorkloadOverrides, overrides)
    except ContractError as exc:
        raise exc.under("workload_overrides") from None
    check_overrides(values.root, workload_from_dict(workload))
    out = copy.deepcopy(workload)
    schema = {p.name: p for p in TEMPLATES.get(workload.get("template"), ())}
    errors = [FieldError(f"workload_overrides.{name}", why) for name, value in values.root.items()
              if name in schema and (why := schema[name].check(value))]
    if errors:
        raise ContractError(errors)
    out["parameters"].update(values.root)
    return out


def apply_platform_overrides(platform: dict[str, Any], overrides: dict[str, Any] | None) -> dict[str, Any]:
    """A copy of a platform dict with some facts replaced (``{"facts": {...}, "storage_tiers": {tier: {...}}}``, see
    :class:`simulator.contract.PlatformOverrides`); raises ContractError naming a bad one."""
    if not overrides:
        return platform
    try:
        values = parse(PlatformOverrides, overrides)
    except ContractError as exc:
        raise exc.under("platform_overrides") from None
    out = copy.deepcopy(platform)
    out["facts"].update(values.facts)
    tiers = {t["name"]: t for t in out["storage_tiers"]}
    for tier, facts in values.storage_tiers.items():
        if tier not in tiers:
            raise ContractError.at(f"platform_overrides.storage_tiers.{tier}",
                                   f"{platform['slug']} has no storage tier {tier!r} ({', '.join(tiers) or 'none'})")
        tiers[tier]["facts"].update(facts)
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
