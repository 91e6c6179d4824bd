"""Configuration search: enumerate the space a user opens, simulate each point, keep the Pareto front.

A space is JSON: ``{"stages": {"split": {"node_type": ["m3.xlarge", "m3.2xlarge"], "nodes": [20, 40],
"pricing": ["spot", "on_demand"], "storage_in": [...], "storage_out": [...], "launch_interval_s": [0, 300]},
...}}``; each list is one dimension, unset fields keep the paper's placement for that stage
(:func:`simulator.model.chiles.default_placements`).  A configuration is a dict stage -> overrides.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

from simulator.model.chiles import STAGES, default_placements
from simulator.model.simulate import simulate
from simulator.model.specs import POLICIES, PRICING_MODELS, PlatformSpec, ScenarioSpec, WorkloadSpec

__all__ = ["SpaceError", "DIMENSIONS", "MAX_CONFIGURATIONS", "validate_space", "enumerate_space", "evaluate",
           "pareto_front", "cheapest_within", "fastest_within", "chunks"]

DIMENSIONS = {"node_type": str, "nodes": int, "pricing": str, "policy": str, "storage_in": str, "storage_out": str,
              "launch_interval_s": float}
#: a search larger than this is refused (each point is one simulation)
MAX_CONFIGURATIONS = 5000


class SpaceError(ValueError):
    """The space cannot be searched; the message names the field."""


def validate_space(space: Any, platform: PlatformSpec, workload: WorkloadSpec) -> int:
    """Check ``space`` against the platform and workload; returns the number of configurations."""
    if not isinstance(space, dict) or not isinstance(space.get("stages"), dict) or not space["stages"]:
        raise SpaceError("space.stages: an object mapping stage names to dimensions")
    stages = {s.name for s in workload.stages} or set(STAGES)
    nodes = {n.name for n in platform.node_types}
    tiers = {t.name for t in platform.storage}
    count = 1
    for stage, dims in space["stages"].items():
        where = f"space.stages.{stage}"
        if stage not in stages:
            raise SpaceError(f"{where}: not a stage of {workload.slug} ({', '.join(sorted(stages))})")
        if not isinstance(dims, dict) or not dims:
            raise SpaceError(f"{where}: an object of dimension -> list of values")
        for key, values in dims.items():
            if key not in DIMENSIONS:
                raise SpaceError(f"{where}.{key}: unknown dimension; one of {', '.join(DIMENSIONS)}")
            if not isinstance(values, list) or not values:
                raise SpaceError(f"{where}.{key}: a non-empty list")
            for v in values:
                kind = DIMENSIONS[key]
                if kind is str and not isinstance(v, str):
                    raise SpaceError(f"{where}.{key}: {v!r} must be text")
                if kind in (int, float) and (isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0):
                    raise SpaceError(f"{where}.{key}: {v!r} must be a non-negative number")
                if key == "nodes" and (v < 1 or v != int(v)):
                    raise SpaceError(f"{where}.nodes: {v!r} must be a whole number of at least 1")
                if key == "node_type" and v not in nodes:
                    raise SpaceError(f"{where}.node_type: {v!r} is not a node type of {platform.slug} "
                                     f"({', '.join(sorted(nodes))})")
                if key in ("storage_in", "storage_out") and v not in tiers:
                    raise SpaceError(f"{where}.{key}: {v!r} is not a storage tier of {platform.slug} "
                                     f"({', '.join(sorted(tiers))})")
                if key == "pricing" and v not in PRICING_MODELS:
                    raise SpaceError(f"{where}.pricing: {v!r}; one of {', '.join(PRICING_MODELS)}")
                if key == "policy" and v not in POLICIES:
                    raise SpaceError(f"{where}.policy: {v!r}; one of {', '.join(POLICIES)}")
            count *= len(values)
    if count > MAX_CONFIGURATIONS:
        raise SpaceError(f"space: {count:,} configurations; at most {MAX_CONFIGURATIONS:,}")
    return count


def enumerate_space(space: dict) -> list[dict[str, dict[str, Any]]]:
    """Every configuration of the space, in a stable order."""
    axes = []
    for stage in sorted(space["stages"]):
        for key in sorted(space["stages"][stage]):
            axes.append((stage, key, space["stages"][stage][key]))
    out = []
    for combo in itertools.product(*(values for _, _, values in axes)):
        config: dict[str, dict[str, Any]] = {}
        for (stage, key, _), value in zip(axes, combo, strict=True):
            config.setdefault(stage, {})[key] = value
        out.append(config)
    return out


def scenario_for(platform: PlatformSpec, workload: WorkloadSpec, config: dict, *, seed: int = 0,
                 include_copy: bool = True) -> ScenarioSpec:
    """The scenario of one configuration: the paper's placements with the configuration's overrides."""
    defaults = {pl.stage: pl for pl in default_placements(platform, workload)}
    placements = []
    for stage, overrides in config.items():
        base = defaults.get(stage)
        values = {k: (int(v) if k == "nodes" else float(v) if k == "launch_interval_s" else v)
                  for k, v in overrides.items()}
        placements.append(replace(base, **values) if base else None)
    placements = [p for p in placements if p is not None]
    return ScenarioSpec(platform=platform, workload=workload, placements=tuple(placements), seed=seed,
                        include_copy=include_copy)


def evaluate(platform: PlatformSpec, workload: WorkloadSpec, config: dict, *, seed: int = 0) -> dict:
    """Simulate one configuration: makespan, cost, or the error that stopped it."""
    try:
        r = simulate(scenario_for(platform, workload, config, seed=seed), record_utilisation=False)
    except (ValueError, KeyError, ZeroDivisionError) as exc:
        return {"config": config, "error": f"{type(exc).__name__}: {exc}".strip()}
    return {"config": config, "makespan_s": r.makespan_s, "cost_aud": r.total_cost_aud,
            "cost_by_category": r.cost_by_category}


def pareto_front(points: list[dict]) -> list[dict]:
    """Points no other point beats on both cost and makespan (both minimised), cheapest first."""
    ok = sorted((p for p in points if "error" not in p), key=lambda p: (p["cost_aud"], p["makespan_s"]))
    front = []
    best_time = float("inf")
    for p in ok:
        if p["makespan_s"] < best_time:
            front.append(p)
            best_time = p["makespan_s"]
    return front


def cheapest_within(points: list[dict], deadline_s: float) -> dict | None:
    """The cheapest point finishing by the deadline (ties: the faster)."""
    ok = [p for p in points if "error" not in p and p["makespan_s"] <= deadline_s]
    return min(ok, key=lambda p: (p["cost_aud"], p["makespan_s"])) if ok else None


def fastest_within(points: list[dict], budget_aud: float) -> dict | None:
    """The fastest point costing at most the budget (ties: the cheaper)."""
    ok = [p for p in points if "error" not in p and p["cost_aud"] <= budget_aud]
    return min(ok, key=lambda p: (p["makespan_s"], p["cost_aud"])) if ok else None


def chunks(n: int, size: int) -> list[tuple[int, int]]:
    """``[start, end)`` index ranges covering ``n`` items in pieces of ``size``."""
    return [(i, min(i + size, n)) for i in range(0, n, max(1, size))]
