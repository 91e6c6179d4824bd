"""Placement: storage tiers and node types -> fluid resources, flows and pools.

Naming of resources in the TaskGraph:

* shared tier ``T`` (parallel file system, NFS RAID, object store): one bandwidth
  resource ``T`` (reads and writes share it; per-client limits become flow caps) and,
  when the tier has an IOPS figure, ``T:iops``.  Disk-stream degradation
  (``degrade_after_streams``/``degrade_exponent``) applies to both.
* per-node / per-volume tier ``T`` (instance SSD, EBS volume): ``T@{node}`` and
  ``T:iops@{node}``, instantiated by the runner on each node of the pool using it.
* ``nic@{node}`` when the node type has a NIC bandwidth; ``wan`` for the ingest link.

* ``cpu@{node}`` (capacity: the node's cores) when a node runs several tasks at once
  (job slots, :func:`share_node_cores`): their CPU work shares the node's cores.

Policies (:func:`make_pool`): ``static`` (paper style, work-units pinned to slots
that cycle over days/sub-bands, allocation held until the last task ends),
``dynamic`` (same allocation, FIFO onto any free slot) and ``elastic`` (one cloud
instance per task, boot latency, launch-rate limit, bounded concurrency).  A node of
a static or dynamic pool has the node type's job slots (``NodeTypeSpec.slots``, or the
placement's ``slots_per_node``): that many tasks run on it at once and share its NIC,
its node-local tiers and its cores; billing stays per node.

Storage roles (:func:`stage_tiers`): per stage, the input, scratch and output tiers
and whether inputs are staged in to scratch before computing and outputs staged out
after; staging copies are flows through the source tier, the NIC and the target tier
(:func:`staging_phases`).

Scheduler semantics (:func:`submission`, ``SchedulerSpec``): ``allocation`` submits a
stage as one job holding its nodes (one queue wait, the scheduler's dispatch overhead
once, nodes held from the first task to the last); ``job_per_task`` (a job array)
makes each task its own job with its own queue wait and dispatch overhead, at most
``max_running_jobs`` running at once, a node held only while a job runs on it.

Background load (``StorageSpec.background_load``): the share of a tier's aggregate
bandwidth and IOPS other users take; the simulated jobs get the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from simulator.graph import NODE, Flow, Phase, PoolSpec, ResourceSpec, TaskGraph

from .specs import SUBMISSIONS, NodeTypeSpec, PlatformSpec, StagePlacement, StorageSpec

__all__ = [
    "UNLIMITED_BYTES_PER_S",
    "UNLIMITED_IOPS",
    "TierAccess",
    "tier_access",
    "tier_resources",
    "nic_resource",
    "wan_resource",
    "make_pool",
    "effective_threads",
    "slots_per_node",
    "submission",
    "share_node_cores",
    "StageTiers",
    "stage_tiers",
    "copy_flow",
    "staging_phases",
    "CPU",
]

#: the per-node core resource of a node running several tasks at once (capacity: cores; units: core-seconds)
CPU = f"cpu@{NODE}"

#: capacity used for a tier with no published aggregate limit (object stores, 70 GB/s Lustre is finite)
UNLIMITED_BYTES_PER_S = 1e15
UNLIMITED_IOPS = 1e12


@dataclass(frozen=True)
class TierAccess:
    """How a task on some node reaches a tier: resource names and per-client caps."""

    tier: StorageSpec
    bw: str
    iops: str | None
    read_cap: float | None
    write_cap: float | None
    iops_cap: float | None
    nic: str | None

    def _res(self, *names: str | None) -> tuple[str, ...]:
        return tuple(n for n in names if n)

    def read(self, amount: float, label: str = "seq_read", cap: float | None = None) -> Flow:
        c = _min(self.read_cap, cap)
        return Flow(self._res(self.bw, self.nic if self.is_remote else None), float(amount), c, label)

    def write(self, amount: float, label: str = "seq_write", cap: float | None = None) -> Flow:
        c = _min(self.write_cap, cap)
        return Flow(self._res(self.bw, self.nic if self.is_remote else None), float(amount), c, label)

    def ops(self, amount: float, label: str = "rand_write") -> Flow:
        if self.iops is None:
            raise ValueError(f"tier {self.tier.name!r} has no IOPS figure, and this stage does random I/O: "
                             f"give the tier an IOPS (or per-client IOPS) value, or place the stage on another tier")
        return Flow((self.iops,), float(amount), self.iops_cap, label)

    @property
    def is_remote(self) -> bool:
        return self.tier.scope == "shared"


def _min(a: float | None, b: float | None) -> float | None:
    vals = [v for v in (a, b) if v is not None]
    return min(vals) if vals else None


def _local(tier: StorageSpec) -> bool:
    return tier.scope in ("per_node", "per_volume")


def tier_access(tier: StorageSpec, node_type: NodeTypeSpec | None = None, *,
                client_bytes_per_s: float | None = None) -> TierAccess:
    """Resource names and caps for a task on ``node_type`` using ``tier``.

    ``client_bytes_per_s`` overrides the per-client cap (a fitted rate such as the
    S3 -> instance staging rate)."""
    suffix = f"@{NODE}" if _local(tier) else ""
    bw = f"{tier.name}{suffix}"
    has_iops = tier.iops is not None or tier.iops_per_client is not None
    iops = f"{tier.name}:iops{suffix}" if has_iops else None
    read_cap = tier.read_bytes_per_s_per_client
    write_cap = tier.write_bytes_per_s_per_client
    if client_bytes_per_s is not None:
        read_cap = write_cap = client_bytes_per_s
    nic = f"nic@{NODE}" if node_type is not None and node_type.nic_bytes_per_s else None
    return TierAccess(tier, bw, iops, read_cap, write_cap, tier.iops_per_client, nic)


def tier_resources(tier: StorageSpec) -> list[ResourceSpec]:
    """Resources declared for ``tier`` (bandwidth, and IOPS when known), less the tier's background load.

    A background load takes its share of each aggregate the catalogue gives; a tier with neither an aggregate
    bandwidth nor an aggregate IOPS cannot carry one (there is nothing to take a share of)."""
    suffix = f"@{NODE}" if _local(tier) else ""
    agg_bw = max(tier.read_bytes_per_s or 0.0, tier.write_bytes_per_s or 0.0)
    load = float(tier.background_load or 0.0)
    if not 0.0 <= load < 1.0:
        raise ValueError(f"storage tier {tier.name!r}: background_load is a share of the tier, "
                         f"0 or more and less than 1, not {load:g}")
    if load and tier.scope == "per_node":
        raise ValueError(f"storage tier {tier.name!r} is node-local: other users do not share it, so it carries "
                         f"no background load")
    if load and not agg_bw and tier.iops is None:
        raise ValueError(f"storage tier {tier.name!r} has a background load of {load:.0%} but no aggregate "
                         f"bandwidth or IOPS to take it from; give the tier's aggregate read/write bandwidth")
    left = 1.0 - load
    cap = agg_bw * left if agg_bw else UNLIMITED_BYTES_PER_S
    out = [ResourceSpec(f"{tier.name}{suffix}", cap, None, tier.degrade_after_streams, tier.degrade_exponent,
                        "bandwidth")]
    if tier.iops is not None or tier.iops_per_client is not None:
        out.append(ResourceSpec(f"{tier.name}:iops{suffix}", tier.iops * left if tier.iops is not None
                                else UNLIMITED_IOPS, None, tier.degrade_after_streams, tier.degrade_exponent, "iops"))
    return out


def nic_resource(node_type: NodeTypeSpec) -> ResourceSpec | None:
    if not node_type.nic_bytes_per_s:
        return None
    return ResourceSpec(f"nic@{NODE}", node_type.nic_bytes_per_s, None, None, 0.0, "bandwidth")


def wan_resource(platform: PlatformSpec) -> ResourceSpec:
    if not platform.wan.bytes_per_s:
        raise ValueError(f"platform {platform.slug!r} has no WAN bandwidth; cannot model the COPY stage")
    return ResourceSpec("wan", platform.wan.bytes_per_s, None, None, 0.0, "link")


def effective_threads(platform: PlatformSpec, node_type: NodeTypeSpec, wanted: int) -> int:
    """Threads a task can use: what it wants, capped by the scheduler and the node's cores."""
    t = max(1, int(wanted))
    cap = platform.scheduler.usable_threads_per_task
    if cap is not None:
        t = min(t, cap)
    return max(1, min(t, node_type.cores))


def slots_per_node(node_type: NodeTypeSpec, placement: StagePlacement | None = None) -> int:
    """Tasks one node runs at once: the placement's ``slots_per_node``, else the node type's job slots."""
    given = placement.slots_per_node if placement is not None else None
    slots = int(given if given is not None else (node_type.slots or 1))
    if slots < 1:
        raise ValueError(f"node type {node_type.name!r}: job slots must be at least 1, not {slots}")
    return slots


def make_pool(name: str, policy: str, node_type: NodeTypeSpec, nodes: int, *, queue_wait_s: float = 0.0,
              launch_interval_s: float = 0.0, boot_s: float | None = None, slots: int = 1, per_job: bool = False,
              max_running: int | None = None) -> PoolSpec:
    """A :class:`PoolSpec` for ``policy`` (static | dynamic | elastic) with ``slots`` task slots per node
    (an elastic instance runs one task); ``per_job``: one batch job per task, at most ``max_running`` running."""
    if policy not in ("static", "dynamic", "elastic"):
        raise ValueError(f"unknown policy {policy!r}; expected static, dynamic or elastic")
    if nodes < 1:
        raise ValueError("a pool needs at least one node")
    if policy == "elastic":
        return PoolSpec(name, nodes, node_type.cores, 1, "elastic", 0.0,
                        float(boot_s if boot_s is not None else (node_type.boot_seconds or 0.0)),
                        float(launch_interval_s))
    if slots < 1:
        raise ValueError(f"pool {name!r}: job slots per node must be at least 1, not {slots}")
    return PoolSpec(name, nodes, node_type.cores, int(slots), policy, float(queue_wait_s), 0.0, 0.0,
                    int(max_running) if max_running else None, bool(per_job))


def submission(platform: PlatformSpec, placement: StagePlacement) -> str:
    """How the stage's tasks are submitted: the placement's choice, else the scheduler's (``allocation`` or
    ``job_per_task``); elastic instances are never batch jobs (``allocation``)."""
    if placement.policy == "elastic":
        return "allocation"
    value = placement.submission or platform.scheduler.submission or "allocation"
    if value not in SUBMISSIONS:
        raise ValueError(f"unknown submission {value!r}; expected {' or '.join(SUBMISSIONS)}")
    return value


def share_node_cores(graph: TaskGraph) -> TaskGraph:
    """``graph`` with the CPU work of tasks in pools of several slots per node made a flow on the node's cores.

    A node runs ``slots_per_node`` tasks at once; their CPU work (core-seconds) shares the node's
    ``cores_per_node`` max-min fairly, each task using at most its threads, instead of every task having the
    node's cores to itself.  Pools of one slot per node (and elastic pools) are left as they are."""
    shared = {p.name: p for p in graph.pools if p.policy != "elastic" and p.slots_per_node > 1}
    if not shared:
        return graph
    counts = sorted({p.cores_per_node for p in shared.values()})
    # one core resource per core count (a template is instantiated per node with one capacity)
    names = {c: CPU if len(counts) == 1 else f"{CPU}:{c}" for c in counts}
    memo: dict[tuple[int, int, int], tuple[Phase, ...]] = {}
    tasks = list(graph.tasks)
    for i, t in enumerate(tasks):
        pool = shared.get(t.pool) if t.pool is not None else None
        if pool is None or not any(ph.cpu_seconds > 0 for ph in t.phases):
            continue
        key = (id(t.phases), t.cores, pool.cores_per_node)
        phases = memo.get(key)
        if phases is None:
            res = (names[pool.cores_per_node],)
            phases = tuple(
                replace(ph, cpu_seconds=0.0, flows=ph.flows + (
                    Flow(res, float(ph.cpu_seconds), float(max(1, min(ph.threads, t.cores, pool.cores_per_node))),
                         "cpu"),))
                if ph.cpu_seconds > 0 else ph for ph in t.phases)
            memo[key] = phases
        tasks[i] = replace(t, phases=phases)
    resources = graph.resources + tuple(ResourceSpec(names[c], float(c), None, None, 0.0, "cpu") for c in counts)
    return replace(graph, resources=resources, tasks=tuple(tasks))


@dataclass(frozen=True)
class StageTiers:
    """The storage roles of one stage on one platform, and whether inputs/outputs are staged.

    ``compute_in``/``compute_out`` are the tiers the compute phase reads inputs from and writes outputs to:
    scratch when that side is staged, else the input/output tier itself."""

    input: StorageSpec | None
    scratch: StorageSpec | None
    output: StorageSpec | None
    stage_in: bool = False
    stage_out: bool = False

    @property
    def compute_in(self) -> StorageSpec | None:
        return self.scratch if self.stage_in else self.input

    @property
    def compute_out(self) -> StorageSpec | None:
        return self.scratch if self.stage_out else self.output

    def tiers(self) -> tuple[StorageSpec, ...]:
        """Every distinct tier the stage touches (to declare their resources); scratch only when staging."""
        out: list[StorageSpec] = []
        staged = self.stage_in or self.stage_out
        for t in (self.input, self.scratch if staged else None, self.output):
            if t is not None and t not in out:
                out.append(t)
        return tuple(out)

    def resources(self, node_type: NodeTypeSpec | None) -> list[ResourceSpec]:
        """The resources of every tier of the stage and of the node's NIC."""
        out = [r for t in self.tiers() for r in tier_resources(t)]
        nic = nic_resource(node_type) if node_type is not None else None
        return out + ([nic] if nic is not None else [])


def _node_local(platform: PlatformSpec) -> StorageSpec | None:
    return next((t for t in platform.storage if t.scope == "per_node"), None)


def stage_tiers(platform: PlatformSpec, placement: StagePlacement) -> StageTiers:
    """The input, scratch and output tiers of ``placement`` on ``platform``.

    Input: ``storage_in`` (default: the platform's first tier).  Output: ``storage_out`` (default: the input
    tier).  Scratch: ``storage_scratch`` (default: the platform's node-local (per node) tier if it has one, else
    the input tier).  Staging in needs a scratch tier other than the input tier, staging out one
    other than the output tier (a copy onto the same tier moves nothing); a ``ValueError`` says which."""
    def get(name: str | None) -> StorageSpec | None:
        if name is not None:
            return platform.storage_tier(name)
        return platform.storage_tier() if platform.storage else None

    tin = get(placement.storage_in)
    tout = get(placement.storage_out) if placement.storage_out is not None else tin
    scratch = (platform.storage_tier(placement.storage_scratch) if placement.storage_scratch is not None
               else _node_local(platform) or tin)
    for on, side, tier in ((placement.stage_in, "in", tin), (placement.stage_out, "out", tout)):
        if on and (tier is None or scratch is None or tier.name == scratch.name):
            what = "input" if side == "in" else "output"
            raise ValueError(f"stage {placement.stage!r}: staging {side} copies between the {what} tier and "
                             f"scratch, but both are {tier.name if tier else 'missing'!r} on {platform.slug}; "
                             f"give a scratch tier (storage_scratch) other than the {what} tier")
    return StageTiers(tin, scratch, tout, bool(placement.stage_in), bool(placement.stage_out))


def copy_flow(src: TierAccess, dst: TierAccess, amount: float, label: str) -> Flow:
    """A copy of ``amount`` bytes from ``src`` to ``dst`` by a task on one node: one flow through the source
    tier, the target tier and the node's NIC when either tier is across the network, capped by the source's
    per-client read rate and the target's per-client write rate."""
    nic = src.nic if (src.is_remote or dst.is_remote) else None
    names: list[str] = []
    for r in (src.bw, nic, dst.bw):
        if r and r not in names:
            names.append(r)
    return Flow(tuple(names), float(amount), _min(src.read_cap, dst.write_cap), label)


def staging_phases(tiers: StageTiers, node_type: NodeTypeSpec, in_bytes: float,
                   out_bytes: float) -> tuple[tuple[Phase, ...], tuple[Phase, ...]]:
    """The phases a task runs before computing (copy its ``in_bytes`` of inputs from the input tier to scratch)
    and after (copy its ``out_bytes`` of outputs from scratch to the output tier), each only when that side is
    staged and moves something."""
    before: tuple[Phase, ...] = ()
    after: tuple[Phase, ...] = ()
    if tiers.stage_in and in_bytes > 0:
        before = (Phase("stage_in", flows=(copy_flow(tier_access(tiers.input, node_type),
                                                     tier_access(tiers.scratch, node_type), in_bytes, "stage_in"),)),)
    if tiers.stage_out and out_bytes > 0:
        after = (Phase("stage_out", flows=(copy_flow(tier_access(tiers.scratch, node_type),
                                                     tier_access(tiers.output, node_type), out_bytes,
                                                     "stage_out"),)),)
    return before, after
