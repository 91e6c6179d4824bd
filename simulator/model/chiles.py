"""The CHILES imaging pipeline (seed 000, Fig. 1 and §5) as a TaskGraph.

COPY (one per day, WAN -> storage; on the cloud to an EBS volume that is then
snapshotted) -> SPLIT (one per day, or per chunk of sub-bands on the cloud, reading
the day's spectral window for each sub-band and writing one file per sub-band) -> a
zero-cost barrier -> INVERT (one per sub-band, reading that sub-band from every day;
on the cloud staged object store -> instance SSD first) -> CONCAT (groups of at most
``max_concat_subbands`` sub-bands).

Per-work-unit demands live in :class:`ChilesDemands`, built by :func:`chiles_demands`
from the workload record alone (its parameters and stage facts, each with provenance
in the catalogue; the INVERT CPU split is fitted by :mod:`simulator.model.calibration`
and stored back as two parameters); this module only scales them with the day sizes,
channel counts and days imaged:

* SPLIT: selection and flag-table reads and the regrid CPU scale linearly with the
  day size; the regrid reads the 32 MHz spectral window holding the sub-band.
* INVERT: CPU ~ channels^1 x (days)^0.5 (§7: linear in channels, square root of the
  number of visibilities); input bytes linear in days x channels; image products and
  their random writes linear in channels.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from simulator.graph import Phase, PoolSpec, ResourceSpec, Task, TaskGraph

from .built import BuiltGraph, DataObject, PoolInfo, WaitDraw
from .placement import effective_threads, make_pool, nic_resource, tier_access, tier_resources, wan_resource
from .queue import sample_queue_wait
from .sizes import spread_sizes
from .specs import PlatformSpec, ScenarioSpec, StagePlacement, StorageSpec, WorkloadSpec
from .stage_defaults import MAX_INSTANCES_UNDER_CEILING, stage_node_type

__all__ = [
    "ChilesDemands",
    "chiles_demands",
    "day_sizes",
    "n_subbands",
    "n_concat_groups",
    "default_placements",
    "build_chiles",
    "STAGES",
]

STAGES = ("copy", "split", "invert", "concat")


@dataclass(frozen=True)
class ChilesDemands:
    """Per-work-unit demands at the reference sizes (from the workload record: :func:`chiles_demands`)."""

    # SPLIT, per sub-band produced, at ``split_ref_day_bytes``
    split_ref_day_bytes: float
    split_select_read_bytes: float
    split_regrid_cpu_seconds: float
    split_flag_read_bytes: float
    split_peak_memory_bytes: float
    #: CasaPy's own ceiling on SPLIT sequential reads (the same ~100 MB/s peak on Lustre and NFS)
    split_read_cap_bytes_per_s: float | None
    # INVERT, per sub-band, at ``invert_ref_days`` days of ``invert_ref_day_bytes`` and ``invert_ref_channels``
    invert_ref_days: int
    invert_ref_day_bytes: float
    invert_ref_channels: int
    invert_create_s: float
    invert_cpu_serial_seconds: float
    invert_cpu_parallel_seconds: float
    invert_max_threads: int
    invert_random_write_ops: float
    invert_random_op_bytes: float
    invert_peak_memory_bytes: float
    # CONCAT, per group
    concat_create_s: float
    concat_peak_memory_bytes: float


# --------------------------------------------------------------------------------------- sizes
def day_sizes(workload: WorkloadSpec) -> list[float]:
    """Deterministic per-day sizes with the published mean, min and max (§1.1).

    Only the mean (330 GB), min (45 GB) and max (803 GB) are published; the days are
    spread as ``min + (max-min) * u**g`` on an even grid of ``u`` with ``g`` solved so
    the mean is exact, then interleaved (largest, smallest, ...) in a fixed order.
    An explicit ``day_sizes`` list parameter overrides this.
    """
    explicit = workload.param("day_sizes")
    if explicit:
        return [float(x) for x in explicit]
    n = int(workload.param("n_days", 1))
    mean = float(workload.param("day_size_mean"))
    lo = float(workload.param("day_size_min", mean))
    hi = float(workload.param("day_size_max", mean))
    return spread_sizes(n, mean, lo, hi)


def n_subbands(workload: WorkloadSpec) -> int:
    """S = instantaneous bandwidth / sub-band width (480 MHz / 4 MHz = 120)."""
    if workload.param("n_subbands"):
        return int(workload.param("n_subbands"))
    return max(1, int(round(float(workload.param("bandwidth")) / float(workload.param("subband_width")))))


def n_concat_groups(workload: WorkloadSpec) -> int:
    return math.ceil(n_subbands(workload) / int(workload.param("max_concat_subbands", 12)))


def _channels_per_subband(workload: WorkloadSpec) -> int:
    return int(round(float(workload.param("subband_width")) / float(workload.param("channel_width"))))


def _image_bytes(workload: WorkloadSpec) -> float:
    px = float(workload.param("image_pixels"))
    return px * px * _channels_per_subband(workload) * float(workload.param("bytes_per_voxel", 4))


def _spw_fraction(workload: WorkloadSpec) -> float:
    """Fraction of a day's data read to regrid one sub-band: its 32 MHz spectral window."""
    spw = float(workload.param("spw_width", workload.param("subband_width")))
    full = float(workload.param("day_bandwidth", workload.param("bandwidth")))
    return min(1.0, spw / full)


def _subband_fraction(workload: WorkloadSpec) -> float:
    full = float(workload.param("day_bandwidth", workload.param("bandwidth")))
    return float(workload.param("subband_width")) / full


def chiles_demands(workload: WorkloadSpec) -> ChilesDemands:
    """The per-work-unit demands of a CHILES workload, from its record only.

    SPLIT: the selection and flag-table phases read for their published length at
    the CasaPy read rate (``split_*_time`` x ``split_read_rate``, §8.4, §8.2), which is
    also the cap on SPLIT's sequential reads; the regrid CPU and peak memory are the
    split stage's facts.  INVERT: creation overhead, threads, peak memory and random
    operations (reads + writes, all on the image products) are the invert stage's
    facts; the serial and parallel CPU parts are the ``invert_cpu_*`` parameters
    (fitted, see :mod:`simulator.model.calibration`).  CONCAT: overhead and memory
    from its stage.  A missing value raises ``ValueError`` naming it."""
    def param(name: str) -> float:
        value = workload.param(name)
        if value is None:
            hint = " (fitted: run 'manage.py fit_model')" if name.startswith("invert_cpu_") else ""
            raise ValueError(f"workload {workload.slug!r}: parameter {name!r} is missing; the CHILES model needs "
                             f"it{hint}")
        return float(value)

    def stage(name: str):
        st = workload.stage(name)
        if st is None:
            raise ValueError(f"workload {workload.slug!r}: the CHILES model needs a {name!r} stage with its demands")
        return st

    split, invert, concat = stage("split"), stage("invert"), stage("concat")
    rate = param("split_read_rate")
    return ChilesDemands(
        split_ref_day_bytes=param("reference_day_size"),
        split_select_read_bytes=param("split_selection_time") * rate,
        split_regrid_cpu_seconds=split.cpu_seconds,
        split_flag_read_bytes=param("split_flag_time") * rate,
        split_peak_memory_bytes=split.peak_memory_bytes,
        split_read_cap_bytes_per_s=rate,
        invert_ref_days=int(param("invert_reference_days")),
        invert_ref_day_bytes=param("day_size_mean"),
        invert_ref_channels=_channels_per_subband(workload),
        invert_create_s=invert.overhead_s,
        invert_cpu_serial_seconds=param("invert_cpu_serial"),
        invert_cpu_parallel_seconds=param("invert_cpu_parallel"),
        invert_max_threads=invert.usable_threads,
        invert_random_write_ops=invert.random_read_ops + invert.random_write_ops,
        invert_random_op_bytes=invert.random_op_bytes,
        invert_peak_memory_bytes=invert.peak_memory_bytes,
        concat_create_s=concat.overhead_s,
        concat_peak_memory_bytes=concat.peak_memory_bytes,
    )


# ----------------------------------------------------------------------------------- placements
def _cloud_param(workload: WorkloadSpec, name: str) -> float:
    value = workload.param(name)
    if value is None:
        raise ValueError(f"workload {workload.slug!r}: parameter {name!r} is missing; the CHILES model needs it "
                         "to place the stages on a cloud platform")
    return float(value)


def default_placements(platform: PlatformSpec, workload: WorkloadSpec, *,
                       spot_ceiling_ratio: float | None = None) -> tuple[StagePlacement, ...]:
    """The paper's placements (§5): one allocation on the cluster/HPC, Table 2 instances on the cloud.

    On the cloud each stage runs on the node type whose ``default_stage`` names it; the
    instance counts, sub-bands per SPLIT instance, INVERT launch interval and spot-price
    ceiling are the workload's parameters (``cloud_*``, ``subbands_per_split_instance``,
    ``invert_launch_interval``, ``spot_price_ceiling_ratio``).  The number of concurrent
    INVERT instances is the largest that keeps the INVERT type's spot price under the
    ceiling x base (Fig. 3); without a spot price it is ``cloud_invert_instances``."""
    if platform.is_cloud:
        from .spot import max_concurrent_under_ceiling, spot_market

        block = next((s.name for s in platform.storage if s.kind == "block_piops"),
                     next((s.name for s in platform.storage if s.kind.startswith("block")), None))
        obj = next((s.name for s in platform.storage if s.kind == "object_store"), None)
        inv = platform.node_type(stage_node_type(platform, "invert"))
        ratio = spot_ceiling_ratio or _cloud_param(workload, "spot_price_ceiling_ratio")
        if inv.spot_aud_per_hour:
            n_inv = max_concurrent_under_ceiling(spot_market(inv), ratio, limit=MAX_INSTANCES_UNDER_CEILING)
        else:
            n_inv = int(_cloud_param(workload, "cloud_invert_instances"))
        return (
            StagePlacement("copy", stage_node_type(platform, "copy"), 1, None, block, "spot", "dynamic"),
            StagePlacement("split", stage_node_type(platform, "split"), int(_cloud_param(workload, "cloud_split_instances")),
                           block, obj, "spot", "elastic",
                           subbands_per_task=int(_cloud_param(workload, "subbands_per_split_instance"))),
            StagePlacement("invert", inv.name, n_inv, obj, obj, "spot", "elastic",
                           launch_interval_s=_cloud_param(workload, "invert_launch_interval")),
            StagePlacement("concat", stage_node_type(platform, "concat"),
                           int(_cloud_param(workload, "cloud_concat_instances")), obj, obj, "spot", "elastic"),
        )
    tier = platform.storage[0].name if platform.storage else None
    nodes = platform.max_nodes or platform.node_type().count or 1
    pricing = "node_hour" if platform.pricing.billing_unit == "node_hour" else "none"
    return tuple(StagePlacement(s, platform.node_type().name, nodes, tier, tier, pricing, "static") for s in STAGES)


# --------------------------------------------------------------------------------------- builder
class _Builder:
    def __init__(self, scenario: ScenarioSpec, demands: ChilesDemands, rng: random.Random):
        self.sc = scenario
        self.p = scenario.platform
        self.w = scenario.workload
        self.d = demands
        self.rng = rng
        self.tasks: list[Task] = []
        self.resources: dict[str, ResourceSpec] = {}
        self.pools: dict[str, PoolSpec] = {}
        self.pool_info: dict[str, PoolInfo] = {}
        self.objects: list[DataObject] = []
        self.labels: dict[int, str] = {}
        self.notes: list[str] = []
        self.queue_wait_s = 0.0
        self.wait_draws: list[WaitDraw] = []
        self.placements = {pl.stage: pl for pl in (scenario.placements or default_placements(
            self.p, self.w, spot_ceiling_ratio=scenario.spot_price_ceiling_ratio))}

    # -- helpers
    def placement(self, stage: str) -> StagePlacement:
        return self.placements.get(stage) or default_placements(
            self.p, self.w, spot_ceiling_ratio=self.sc.spot_price_ceiling_ratio)[STAGES.index(stage)]

    def tier(self, name: str | None) -> StorageSpec | None:
        return None if name is None else self.p.storage_tier(name)

    def use_tier(self, tier: StorageSpec) -> None:
        for r in tier_resources(tier):
            self.resources.setdefault(r.name, r)

    def use_node(self, node_type) -> None:
        r = nic_resource(node_type)
        if r is not None:
            self.resources.setdefault(r.name, r)

    def add(self, stage: str, phases, deps, pool, cores, memory, slot=None, label="") -> int:
        tid = len(self.tasks)
        self.tasks.append(Task(tid, stage, tuple(phases), tuple(deps), pool, cores, float(memory), slot))
        if label:
            self.labels[tid] = label
        return tid

    def pool_for(self, stage: str) -> tuple[str, object]:
        pl = self.placement(stage)
        node_type = self.p.node_type(pl.node_type)
        if pl.policy != "elastic" and not self.p.is_cloud and self.sc.single_allocation:
            name = "allocation"
            if name not in self.pools:
                nodes = max(self.placement(s).nodes for s in STAGES)
                wait = pl.queue_wait_s if pl.queue_wait_s is not None else sample_queue_wait(
                    self.p.scheduler.queue_wait, self.rng)
                self.wait_draws.append(WaitDraw(name, pl.queue_wait_s, True))
                self.queue_wait_s = wait
                self.pools[name] = make_pool(name, pl.policy, node_type, nodes, queue_wait_s=wait)
                self.pool_info[name] = PoolInfo(name, "all", node_type.name, pl.pricing, True)
            return name, node_type
        name = stage
        if name not in self.pools:
            wait = 0.0
            if pl.policy != "elastic" and not self.p.is_cloud:
                wait = pl.queue_wait_s if pl.queue_wait_s is not None else sample_queue_wait(
                    self.p.scheduler.queue_wait, self.rng)
                self.wait_draws.append(WaitDraw(name, pl.queue_wait_s, False))
                self.queue_wait_s = max(self.queue_wait_s, wait)
            self.pools[name] = make_pool(name, pl.policy, node_type, pl.nodes, queue_wait_s=wait,
                                         launch_interval_s=pl.launch_interval_s)
            self.pool_info[name] = PoolInfo(name, stage, node_type.name, pl.pricing, True)
        return name, node_type

    def slot(self, stage: str, index: int) -> int | None:
        pl = self.placement(stage)
        if pl.policy != "static":
            return None
        pool = self.pools["allocation" if "allocation" in self.pools and not self.p.is_cloud
                          and self.sc.single_allocation else stage]
        return index % pool.nodes

    # -- stages
    def copy(self, days: list[float]) -> list[int | None]:
        pl = self.placement("copy")
        self.resources["wan"] = wan_resource(self.p)
        out = self.tier(pl.storage_out) or self.tier(self.placement("split").storage_in)
        if self.p.is_cloud:
            pool, node_type = self.pool_for("copy")
        else:  # data-transfer node of the centre, not billed to the project (§9.3)
            node_type = self.p.node_type()
            pool = "dtn"
            self.pools[pool] = make_pool(pool, "dynamic", node_type, 1)
            self.pool_info[pool] = PoolInfo(pool, "copy", node_type.name, "none", False)
        ids = []
        snap = next((s.name for s in self.p.storage if s.kind == "snapshot"), None)
        for i, size in enumerate(days):
            if out is not None and out.scope == "shared":
                self.use_tier(out)
                acc = tier_access(out, node_type)
                flow = acc.write(size, "wan")
                flow = type(flow)(("wan",) + flow.resources, flow.amount, flow.cap, "wan")
            else:  # a fresh block volume per day, written at the WAN rate (large sequential blocks)
                from simulator.graph import Flow

                flow = Flow(("wan",), size, None, "wan")
            tid = self.add("copy", [Phase("transfer", flows=(flow,))], (), pool, 1, 0.0, None, f"day {i}")
            if out is not None and out.scope == "per_volume":
                self.objects.append(DataObject(out.name, size, tid, tid, True, f"copy volume day {i}"))
                if snap:
                    self.objects.append(DataObject(snap, size, tid, None, False, f"snapshot day {i}"))
            elif out is not None:
                self.objects.append(DataObject(out.name, size, tid, None, False, f"day {i}"))
            ids.append(tid)
        return ids

    def split(self, days: list[float], copies: list[int | None], subbands: int) -> list[int]:
        pl = self.placement("split")
        d = self.d
        pool, node_type = self.pool_for("split")
        tin = self.tier(pl.storage_in)
        tout = self.tier(pl.storage_out) or tin
        self.use_tier(tin)
        self.use_tier(tout)
        self.use_node(node_type)
        ain = tier_access(tin, node_type)
        aout = tier_access(tout, node_type)
        per_task = pl.subbands_per_task or subbands
        restore = tin.snapshot_restore_seconds if (tin.scope == "per_volume" and copies and copies[0] is not None
                                                    and self.p.is_cloud) else 0.0
        threads = effective_threads(self.p, node_type, 1)
        speed = node_type.core_speed or 1.0
        ids = []
        spw = _spw_fraction(self.w)
        sub = _subband_fraction(self.w)
        for day, size in enumerate(days):
            scale = size / d.split_ref_day_bytes
            chunks = [min(per_task, subbands - c) for c in range(0, subbands, per_task)]
            for ci, k in enumerate(chunks):
                phases = []
                if restore:
                    phases.append(Phase("volume_from_snapshot", overhead_s=restore or 0.0))
                cap = d.split_read_cap_bytes_per_s
                phases += [
                    Phase("selection", flows=(ain.read(k * d.split_select_read_bytes * scale, cap=cap),)),
                    Phase("regrid_apply", cpu_seconds=k * d.split_regrid_cpu_seconds * scale / speed, threads=threads,
                          flows=(ain.read(k * spw * size, cap=cap), aout.write(k * sub * size))),
                    Phase("flagging", flows=(ain.read(k * d.split_flag_read_bytes * scale, "flag_read", cap=cap),)),
                ]
                deps = (copies[day],) if copies and copies[day] is not None else ()
                slot_index = day if len(chunks) == 1 else day * len(chunks) + ci
                tid = self.add("split", phases, deps, pool, threads, d.split_peak_memory_bytes,
                               self.slot("split", slot_index), f"day {day} sub-bands {ci * per_task}..{ci * per_task + k - 1}")
                if tin.scope == "per_volume" and self.p.is_cloud:
                    self.objects.append(DataObject(tin.name, size, tid, tid, True, f"split volume day {day}"))
                self.objects.append(DataObject(tout.name, k * sub * size, tid, None, False, f"sub-bands day {day}"))
                ids.append(tid)
        return ids

    def invert(self, days: list[float], deps: tuple[int, ...], subbands: int) -> list[int]:
        pl = self.placement("invert")
        d = self.d
        pool, node_type = self.pool_for("invert")
        tin = self.tier(pl.storage_in)
        tout = self.tier(pl.storage_out) or tin
        work = tin
        stage_in = None
        if tin.kind == "object_store":
            ssd = next((s for s in self.p.storage if s.kind == "local_ssd"), None)
            if ssd is None:
                raise ValueError("INVERT from an object store needs a local_ssd tier to stage to")
            work = ssd
            self.use_tier(tin)
            stage_in = tier_access(tin, node_type)
        self.use_tier(work)
        self.use_tier(tout)
        self.use_node(node_type)
        aw = tier_access(work, node_type)
        aout = tier_access(tout, node_type)
        channels = _channels_per_subband(self.w)
        ch = channels / d.invert_ref_channels
        n = len(days)
        vis = (n / d.invert_ref_days) ** float(self.w.param("invert_time_visibility_exponent", 0.5))
        ch_exp = ch ** float(self.w.param("invert_time_channel_exponent", 1.0))
        speed = node_type.core_speed or 1.0
        threads = effective_threads(self.p, node_type, d.invert_max_threads)
        sub = _subband_fraction(self.w)
        input_bytes = sum(days) * sub
        image = _image_bytes(self.w)
        ids = []
        for b in range(subbands):
            phases = []
            if stage_in is not None:
                phases.append(Phase("stage_in", flows=(stage_in.read(input_bytes, "stage_in"),)))
            phases += [
                Phase("create", overhead_s=d.invert_create_s),
                Phase("grid_serial", cpu_seconds=d.invert_cpu_serial_seconds * vis * ch_exp / speed, threads=1),
                Phase("grid_parallel", cpu_seconds=d.invert_cpu_parallel_seconds * vis * ch_exp / speed,
                      threads=threads, flows=(aw.read(input_bytes),)),
                Phase("deconvolve_restore", flows=(aw.ops(d.invert_random_write_ops * ch),)),
                Phase("finalise", flows=(aw.write(image),)),
            ]
            if stage_in is not None or tout.name != work.name:
                phases.append(Phase("stage_out", flows=(aout.write(image, "stage_out"),)))
            tid = self.add("invert", phases, deps, pool, threads, d.invert_peak_memory_bytes,
                           self.slot("invert", b), f"sub-band {b}")
            if stage_in is not None:
                self.objects.append(DataObject(work.name, input_bytes + image, tid, tid, True, f"scratch sub-band {b}"))
            self.objects.append(DataObject(tout.name, image, tid, None, False, f"image sub-band {b}"))
            ids.append(tid)
        return ids

    def concat(self, inverts: list[int], subbands: int) -> list[int]:
        pl = self.placement("concat")
        d = self.d
        pool, node_type = self.pool_for("concat")
        tin = self.tier(pl.storage_in)
        tout = self.tier(pl.storage_out) or tin
        work = tin
        stage = None
        if tin.kind == "object_store":
            ssd = next((s for s in self.p.storage if s.kind == "local_ssd"), None)
            work = ssd or tin
            stage = tier_access(tin, node_type)
            self.use_tier(tin)
        self.use_tier(work)
        self.use_tier(tout)
        self.use_node(node_type)
        aw = tier_access(work, node_type)
        aout = tier_access(tout, node_type)
        group = int(self.w.param("max_concat_subbands", 12))
        image = _image_bytes(self.w)
        ids = []
        for g in range(math.ceil(subbands / group)):
            members = inverts[g * group:(g + 1) * group]
            size = image * len(members)
            phases = []
            if stage is not None:
                phases.append(Phase("stage_in", flows=(stage.read(size, "stage_in"),)))
            phases += [Phase("create", overhead_s=d.concat_create_s),
                       Phase("concatenate", flows=(aw.read(size), aw.write(size)))]
            if stage is not None:
                phases.append(Phase("stage_out", flows=(aout.write(size, "stage_out"),)))
            tid = self.add("concat", phases, tuple(members), pool, 1, d.concat_peak_memory_bytes,
                           self.slot("concat", g), f"group {g}")
            self.objects.append(DataObject(tout.name, size, tid, None, False, f"cube group {g}"))
            ids.append(tid)
        return ids


def build_chiles(scenario: ScenarioSpec, demands: ChilesDemands, *, stages: tuple[str, ...] = STAGES,
                 days: list[float] | None = None, subbands: int | None = None,
                 rng: random.Random | None = None) -> BuiltGraph:
    """The CHILES TaskGraph for ``scenario`` (``stages`` selects a sub-pipeline, e.g. a single SPLIT).

    ``days`` overrides the per-day sizes, ``subbands`` the number of sub-bands S."""
    rng = rng or random.Random(scenario.seed)
    b = _Builder(scenario, demands, rng)
    day_list = list(days) if days is not None else day_sizes(scenario.workload)
    s = subbands if subbands is not None else n_subbands(scenario.workload)
    copies: list[int | None] = [None] * len(day_list)
    if "copy" in stages and scenario.include_copy:
        copies = list(b.copy(day_list))
    splits: list[int] = []
    if "split" in stages:
        splits = b.split(day_list, copies, s)
    inverts: list[int] = []
    if "invert" in stages:
        deps: tuple[int, ...] = ()
        if splits:
            barrier = b.add("barrier", (), tuple(splits), None, 1, 0.0, None, "all splits done")
            deps = (barrier,)
        inverts = b.invert(day_list, deps, s)
    if "concat" in stages and inverts:
        b.concat(inverts, s)
    graph = TaskGraph(tuple(b.resources.values()), tuple(b.pools.values()), tuple(b.tasks))
    return BuiltGraph(graph, tuple(b.objects), tuple(b.pool_info.values()), b.queue_wait_s, tuple(b.notes), b.labels,
                      tuple(b.wait_draws))
