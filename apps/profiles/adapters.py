"""The one adapter of the profiles app between the ORM and the simulator.

:func:`simulate_stage_task` runs one task of a workload stage, with given demand facts, on
one node of a catalogue platform reading and writing one storage tier, without queue wait or
instance boot (as the single work-unit runs of ``simulator.model.validation``), and returns
the task's duration.  The stage is simulated from its demand facts through the generic stage
model (one compute phase overlapping CPU, sequential I/O and random operations, plus the fixed
overhead).
"""

from __future__ import annotations

from dataclasses import replace

from apps.platforms.models import Platform
from apps.profiles.analysis import Capacity
from apps.scenarios.adapters import platform_spec
from simulator.model.simulate import simulate
from simulator.model.specs import PlatformSpec, ScenarioSpec, StagePlacement, StageSpec, WorkloadSpec

__all__ = ["platform_spec", "simulate_stage_task", "stage_facts", "default_node_and_tier", "host_capacity"]


def stage_facts(stage) -> dict[str, float]:
    """A WorkloadStage's demand facts (base units) as a dict; missing facts are left out."""
    from apps.profiles.calibration import DEMAND_FACTS

    return {name: float(getattr(stage, name)) for name in DEMAND_FACTS if getattr(stage, name) is not None}


def default_node_and_tier(platform: Platform) -> tuple[str | None, str | None]:
    """The node type and storage tier a single work-unit uses by default: the model's own default (a cluster's
    compute partition, the cloud's first type; the first tier)."""
    spec = platform_spec(platform)
    nt = spec.node_type() if spec.node_types else None
    return (nt.name if nt else None), (spec.storage[0].name if spec.storage else None)


def host_capacity(platform: Platform | None) -> Capacity | None:
    """What one node of ``platform`` can do (the cores of its default node type and the bandwidth and IOPS
    of its default tier, chosen as the model chooses them: :func:`default_node_and_tier`), for labelling a
    profile's phases; None without a platform."""
    if platform is None:
        return None
    node_name, tier_name = default_node_and_tier(platform)
    nt = platform.node_types.filter(name=node_name).first() if node_name else None
    tier = platform.storage_tiers.filter(name=tier_name).first() if tier_name else None
    per_client = tier is not None and tier.scope == "shared"

    def bw(name: str) -> float | None:
        if tier is None:
            return None
        value = getattr(tier, f"{name}_per_client", None) if per_client else None
        return value or getattr(tier, name, None)

    return Capacity(cores=float(nt.cores) if nt and nt.cores else None, read_bytes_per_s=bw("read_bw"),
                    write_bytes_per_s=bw("write_bw"), iops=bw("iops"),
                    source=f"platform {platform.name}" + (f", tier {tier.name}" if tier else ""))


def _stage_spec(name: str, facts: dict[str, float]) -> StageSpec:
    return StageSpec(
        name=name,
        seq_read_bytes=facts.get("seq_read_bytes", 0.0) or 0.0,
        seq_write_bytes=facts.get("seq_write_bytes", 0.0) or 0.0,
        random_read_ops=facts.get("random_read_ops", 0.0) or 0.0,
        random_write_ops=facts.get("random_write_ops", 0.0) or 0.0,
        random_op_bytes=facts.get("random_op_bytes", 0.0) or 0.0,
        cpu_seconds=facts.get("cpu_seconds", 0.0) or 0.0,
        usable_threads=max(1, int(round(facts.get("usable_threads", 1.0) or 1.0))),
        peak_memory_bytes=facts.get("peak_memory", 0.0) or 0.0,
        overhead_s=facts.get("overhead", 0.0) or 0.0,
        n_tasks=1,
    )


def simulate_stage_task(spec: PlatformSpec, stage_name: str, facts: dict[str, float], *, node_type: str | None,
                        tier: str | None) -> float:
    """Seconds one task of ``stage_name`` with ``facts`` takes on one node of ``spec``."""
    spec.node_type(node_type)  # raises KeyError naming the known node types
    if tier is not None:
        spec.storage_tier(tier)
    if spec.is_cloud:
        spec = replace(spec, node_types=tuple(replace(n, boot_seconds=0.0) for n in spec.node_types))
        placement = StagePlacement(stage_name, node_type, 1, tier, tier, "on_demand", "elastic", queue_wait_s=0.0)
    else:
        placement = StagePlacement(stage_name, node_type, 1, tier, tier, "none", "static", queue_wait_s=0.0)
    workload = WorkloadSpec(slug="profile-calibration", name="one task", template="custom_dag",
                            stages=(_stage_spec(stage_name, facts),))
    scenario = ScenarioSpec(platform=spec, workload=workload, placements=(placement,), include_copy=False,
                            label=f"one {stage_name} task")
    result = simulate(scenario, seed=0, record_utilisation=False)
    task = next(t for t in result.tasks if t.stage == stage_name)
    return task.end_s - task.start_s
