"""Configuration search: enumerate the space a user opens, simulate each point, keep the Pareto front.

A space is JSON: ``{"stages": {"split": {"node_type": ["m3.xlarge", "m3.2xlarge"], "nodes": [20, 40],
"pricing": ["spot", "on_demand"], "storage_in": [...], "storage_out": [...], "launch_interval_s": [0, 300]},
...}}`` (:class:`simulator.contract.SearchSpace`); each list is one dimension, unset fields keep the stage's
default placement (:func:`simulator.contract.stage_defaults`).  A configuration is a dict stage -> overrides.
"""

from __future__ import annotations

import itertools
from typing import Any

from simulator.contract import (
    LIMITS,
    ContractError,
    FieldError,
    RunOptions,
    SearchDimensions,
    SearchSpace,
    parse,
    scenario_spec,
)
from simulator.model.simulate import simulate
from simulator.model.specs import PlatformSpec, ScenarioSpec, WorkloadSpec

__all__ = ["SpaceError", "DIMENSIONS", "MAX_CONFIGURATIONS", "validate_space", "enumerate_space", "evaluate",
           "pareto_front", "cheapest_within", "fastest_within", "chunks"]

#: the per-stage options a search may vary (the scenario contract's placement fields, with its types and bounds)
DIMENSIONS = tuple(SearchDimensions.model_fields)
#: a search larger than this is refused (each point is one simulation)
MAX_CONFIGURATIONS = LIMITS.max_search_configurations


class SpaceError(ContractError):
    """The space cannot be searched; each error names its field (``space.stages.split.nodes[0]``)."""


def validate_space(space: Any, platform: PlatformSpec, workload: WorkloadSpec) -> int:
    """Check ``space`` with the scenario contract and against the platform and workload; returns the number of
    configurations."""
    try:
        parsed = parse(SearchSpace, space)
    except ContractError as exc:
        raise SpaceError(exc.under("space").errors) from None
    # the stages a scenario places (a stage continuing another runs in that stage's tasks, where it is placed)
    stages = [s.name for s in workload.stages if s.dependency != "continues"]
    nodes = [n.name for n in platform.node_types]
    tiers = [t.name for t in platform.storage]
    errors = []
    for stage, dims in parsed.stages.items():
        where = f"space.stages.{stage}"
        if stage not in stages:
            errors.append(FieldError(where, f"not a stage of {workload.slug} ({', '.join(stages)})"))
        for i, v in enumerate(dims.node_type or []):
            if v not in nodes:
                errors.append(FieldError(f"{where}.node_type[{i}]", f"{v!r} is not a node type of {platform.slug} "
                                                                     f"({', '.join(nodes)})"))
        for key in ("storage_in", "storage_out"):
            for i, v in enumerate(getattr(dims, key) or []):
                if v not in tiers:
                    errors.append(FieldError(f"{where}.{key}[{i}]", f"{v!r} is not a storage tier of {platform.slug} "
                                                                    f"({', '.join(tiers)})"))
    if errors:
        raise SpaceError(errors)
    count = parsed.configurations()
    if count > MAX_CONFIGURATIONS:
        raise SpaceError([FieldError("space", f"{count:,} configurations; at most {MAX_CONFIGURATIONS:,}")])
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
    """The scenario of one configuration: each stage's default placement with the configuration's values, through
    the scenario contract (the same completion as a run's partial placement)."""
    options = parse(RunOptions, {"placements": [{"stage": stage, **values} for stage, values in config.items()],
                                 "include_copy": include_copy})
    return scenario_spec(options, platform, workload, seed=seed)


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
