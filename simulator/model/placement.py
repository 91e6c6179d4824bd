"""Placement: storage tiers and node types -> fluid resources, flows and pools.

Naming of resources in the TaskGraph:

* shared tier ``T`` (parallel file system, NFS RAID, object store): one bandwidth
  resource ``T`` (reads and writes share it; per-client limits become flow caps) and,
  when the tier has an IOPS figure, ``T:iops``.  Disk-stream degradation
  (``degrade_after_streams``/``degrade_exponent``) applies to both.
* per-node / per-volume tier ``T`` (instance SSD, EBS volume): ``T@{node}`` and
  ``T:iops@{node}``, instantiated by the runner on each node of the pool using it.
* ``nic@{node}`` when the node type has a NIC bandwidth; ``wan`` for the ingest link.

Policies (:func:`make_pool`): ``static`` (paper style, work-units pinned to slots
that cycle over days/sub-bands, allocation held until the last task ends),
``dynamic`` (same allocation, FIFO onto any free slot) and ``elastic`` (one cloud
instance per task, boot latency, launch-rate limit, bounded concurrency).
"""

from __future__ import annotations

from dataclasses import dataclass

from simulator.graph import NODE, Flow, PoolSpec, ResourceSpec

from .specs import NodeTypeSpec, PlatformSpec, StorageSpec

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
]

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
    """Resources declared for ``tier`` (bandwidth, and IOPS when known)."""
    suffix = f"@{NODE}" if _local(tier) else ""
    cap = max(tier.read_bytes_per_s or 0.0, tier.write_bytes_per_s or 0.0) or UNLIMITED_BYTES_PER_S
    out = [ResourceSpec(f"{tier.name}{suffix}", cap, None, tier.degrade_after_streams, tier.degrade_exponent,
                        "bandwidth")]
    if tier.iops is not None or tier.iops_per_client is not None:
        out.append(ResourceSpec(f"{tier.name}:iops{suffix}", tier.iops if tier.iops is not None else UNLIMITED_IOPS,
                                None, tier.degrade_after_streams, tier.degrade_exponent, "iops"))
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


def make_pool(name: str, policy: str, node_type: NodeTypeSpec, nodes: int, *, queue_wait_s: float = 0.0,
              launch_interval_s: float = 0.0, boot_s: float | None = None) -> PoolSpec:
    """A :class:`PoolSpec` for ``policy`` (static | dynamic | elastic); one task slot per node."""
    if policy not in ("static", "dynamic", "elastic"):
        raise ValueError(f"unknown policy {policy!r}; expected static, dynamic or elastic")
    if nodes < 1:
        raise ValueError("a pool needs at least one node")
    if policy == "elastic":
        return PoolSpec(name, nodes, node_type.cores, 1, "elastic", 0.0,
                        float(boot_s if boot_s is not None else (node_type.boot_seconds or 0.0)),
                        float(launch_interval_s))
    return PoolSpec(name, nodes, node_type.cores, 1, policy, float(queue_wait_s), 0.0, 0.0)
