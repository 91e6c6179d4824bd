"""Where a stage runs when the scenario does not say, from the stage's own placement facts.

A stage of the general model may say how it is run by default (``batch_policy`` on a cluster or
HPC centre; ``cloud_policy``, ``cloud_instances``, ``cloud_items_per_task``, ``cloud_launch_interval``
and ``cloud_pricing`` on the cloud), each a catalogue fact with its provenance.  This module turns
those facts into a :class:`~simulator.model.specs.StagePlacement`; a stage without them gets the
general default (:func:`simulator.model.stages.default_placement`).

* Cluster or HPC centre, ``batch_policy``: the platform's compute partition, as many nodes as the
  platform lets one job have (its node limit, else the partition's count), on its first storage
  tier.  Stages placed alike share one allocation when the scenario keeps ``single_allocation``.
* Cloud, ``cloud_policy``: the node type whose ``default_stage`` fact names the stage (else the
  platform's default type), ``cloud_instances`` at once.  Storage follows the data: a stage
  bringing its data over a link writes fresh block volumes (provisioned-IOPS if the platform has
  them, then snapshotted); every other stage writes to the object store; a stage reads where its
  first upstream stage wrote, and a stage reading from the object store copies its inputs to the
  instance disk and its outputs back (``stage_in``/``stage_out`` with the local SSD as scratch).
* Spot price ceiling: an elastic stage on spot whose node type's spot price rises with our own
  instances (``spot_rise_per_instance``) runs as many at once as keep that price under the
  workload's ``spot_price_ceiling_ratio`` (or the scenario's) times the base price (Fig. 3 of the
  founding case study); otherwise ``cloud_instances``.
"""

from __future__ import annotations

from .specs import PlatformSpec, StagePlacement, StageSpec, WorkloadSpec
from .spot import max_concurrent_under_ceiling, spot_market

__all__ = ["fact_placement", "placement_fact_errors", "stage_node_type", "BATCH_POLICIES", "CLOUD_POLICIES",
           "CLOUD_PRICING", "MAX_INSTANCES", "MAX_INSTANCES_UNDER_CEILING", "MAX_ITEMS_PER_TASK",
           "MAX_LAUNCH_INTERVAL_S"]

BATCH_POLICIES = ("static", "dynamic")
CLOUD_POLICIES = ("dynamic", "elastic")
CLOUD_PRICING = ("on_demand", "spot")

#: the most instances, work items per task and seconds between launches a stage's facts may ask for: the bounds a
#: scenario's own placement has (``simulator.contract.Limits`` takes them from here), so that a workload's defaults
#: cannot build a pool no request could
MAX_INSTANCES = 100_000
MAX_ITEMS_PER_TASK = 100_000
MAX_LAUNCH_INTERVAL_S = 1e6

#: upper bound on the instances a spot-price ceiling allows (an engine bound, not a fact: a rising price reaches any
#: realistic ceiling long before it)
MAX_INSTANCES_UNDER_CEILING = 1000


def stage_node_type(platform: PlatformSpec, stage: str) -> str:
    """The node type a cloud platform uses for ``stage``: the one whose ``default_stage`` fact names it (seed 000
    Table 2: "used for"), else the platform's default type."""
    for nt in platform.node_types:
        if nt.default_stage == stage:
            return nt.name
    return platform.node_type().name


def _block_tier(platform: PlatformSpec) -> str | None:
    return next((s.name for s in platform.storage if s.kind == "block_piops"),
                next((s.name for s in platform.storage if s.kind.startswith("block")), None))


def _object_tier(platform: PlatformSpec) -> str | None:
    return next((s.name for s in platform.storage if s.kind == "object_store"), None)


def _local_ssd(platform: PlatformSpec) -> str | None:
    return next((s.name for s in platform.storage if s.kind == "local_ssd"), None)


def _cloud_output(platform: PlatformSpec, st: StageSpec) -> str | None:
    if st.link:
        return _block_tier(platform) or _object_tier(platform)
    return _object_tier(platform)


def _instances(platform: PlatformSpec, workload: WorkloadSpec, st: StageSpec, node_type: str,
               spot_ceiling_ratio: float | None) -> int:
    nt = platform.node_type(node_type)
    ratio = spot_ceiling_ratio or workload.param("spot_price_ceiling_ratio")
    if (st.cloud_policy == "elastic" and st.cloud_pricing == "spot" and nt.spot_aud_per_hour
            and (nt.spot_rise_per_instance or 0.0) > 0 and ratio):
        return max_concurrent_under_ceiling(spot_market(nt), float(ratio), limit=MAX_INSTANCES_UNDER_CEILING)
    if st.cloud_instances is None:
        raise ValueError(f"stage {st.name!r}: runs on the cloud as {st.cloud_policy!r} instances, but gives no "
                         f"cloud_instances (how many at once)")
    return int(st.cloud_instances)


def placement_fact_errors(st: StageSpec) -> list[tuple[str, str]]:
    """What is wrong with a stage's placement facts, as ``(fact, message)`` pairs (empty when nothing)."""
    errors = []
    for fact, value, allowed in (("batch_policy", st.batch_policy, BATCH_POLICIES),
                                 ("cloud_policy", st.cloud_policy, CLOUD_POLICIES),
                                 ("cloud_pricing", st.cloud_pricing, CLOUD_PRICING)):
        if value and value not in allowed:
            errors.append((fact, f"unknown value {value!r}; one of {', '.join(allowed)}"))
    if st.cloud_policy and st.cloud_instances is None:
        errors.append(("cloud_instances", f"cloud_policy {st.cloud_policy!r} needs the number of instances"))
    for fact, value, top in (("cloud_instances", st.cloud_instances, MAX_INSTANCES),
                             ("cloud_items_per_task", st.cloud_items_per_task, MAX_ITEMS_PER_TASK)):
        if value is not None and not 1 <= value <= top:
            errors.append((fact, f"must be from 1 to {top:,}, not {value:g}"))
    if not 0 <= st.cloud_launch_interval_s <= MAX_LAUNCH_INTERVAL_S:
        errors.append(("cloud_launch_interval", f"must be from 0 to {MAX_LAUNCH_INTERVAL_S:g} s"))
    return errors


def fact_placement(platform: PlatformSpec, workload: WorkloadSpec, stage: str, *,
                   spot_ceiling_ratio: float | None = None) -> StagePlacement | None:
    """The placement ``stage`` of ``workload`` (general form) says for itself on ``platform``, ``None`` when its
    facts say nothing for this kind of platform (then the general default applies)."""
    st = workload.stage(stage)
    if st is None:
        return None
    if not platform.is_cloud:
        if not st.batch_policy:
            return None
        tier = platform.storage[0].name if platform.storage else None
        nodes = platform.max_nodes or platform.node_type().count or 1
        pricing = "node_hour" if platform.pricing.billing_unit == "node_hour" else "none"
        return StagePlacement(stage, platform.node_type().name, nodes, tier, tier, pricing, st.batch_policy)
    if not st.cloud_policy:
        return None
    node_type = stage_node_type(platform, stage)
    out = _cloud_output(platform, st)
    upstream = workload.stage(st.depends_on[0]) if st.depends_on else None
    tin = _cloud_output(platform, upstream) if upstream is not None and upstream.cloud_policy else None
    staged = {}
    if tin is not None and tin == _object_tier(platform) and _local_ssd(platform) is not None:
        staged = {"storage_scratch": _local_ssd(platform), "stage_in": True, "stage_out": True}
    return StagePlacement(stage, node_type, _instances(platform, workload, st, node_type, spot_ceiling_ratio), tin,
                          out, st.cloud_pricing or "on_demand", st.cloud_policy,
                          launch_interval_s=st.cloud_launch_interval_s,
                          subbands_per_task=st.cloud_items_per_task, **staged)
