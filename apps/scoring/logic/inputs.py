"""Plain inputs to scoring: a platform's facts and one representative simulated run, in base units.

Filled by :mod:`apps.scoring.adapters` from the ORM and the simulator; built by hand in tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["StorageFacts", "NodeFacts", "RunSummary", "PlatformInputs"]


@dataclass(frozen=True)
class StorageFacts:
    name: str
    kind: str
    read_bytes_per_s: float | None = None
    read_bytes_per_s_per_client: float | None = None
    iops: float | None = None
    iops_per_client: float | None = None
    aud_per_gb_month: float | None = None


@dataclass(frozen=True)
class NodeFacts:
    name: str
    cores: int = 1
    on_demand_aud_per_hour: float | None = None
    spot_aud_per_hour: float | None = None


@dataclass(frozen=True)
class RunSummary:
    """The median-makespan replication of a simulated epoch (``error`` set when it could not be simulated)."""

    label: str = ""
    replications: int = 0
    makespan_s: float | None = None
    queue_wait_s: float | None = None
    run_time_s: float | None = None
    total_cost_aud: float | None = None
    cost_by_category: dict[str, float] = field(default_factory=dict)
    cost_lines: tuple[dict[str, Any], ...] = ()
    node_hours_used: float = 0.0
    compute_hours_billed: float = 0.0
    tiers_used: tuple[str, ...] = ()
    stage_tasks: dict[str, int] = field(default_factory=dict)
    completed: bool = True
    error: str = ""
    note: str = ""
    #: the median over tasks of what each task's reads achieved (bytes / its read seconds), and how many tasks
    #: read; ``read_tasks`` is None when the run did not record it (simulated before it was recorded)
    read_bytes_per_s: float | None = None
    read_tasks: int | None = None
    #: the same for random I/O: the median over tasks of requests / the seconds their random I/O took
    ops_per_s: float | None = None
    ops_tasks: int | None = None
    #: the same for writes: the median over tasks of bytes written / their write seconds; ``write_tasks`` is None
    #: when the run did not record it (simulated before writes were timed)
    write_bytes_per_s: float | None = None
    write_tasks: int | None = None


@dataclass(frozen=True)
class PlatformInputs:
    slug: str
    name: str
    kind: str  # owned_cluster | hpc_centre | public_cloud
    facts: dict[str, Any] = field(default_factory=dict)
    storage: tuple[StorageFacts, ...] = ()
    node_types: tuple[NodeFacts, ...] = ()
    run: RunSummary | None = None

    def fact(self, name: str, default: Any = None) -> Any:
        value = self.facts.get(name)
        return default if value is None or value == "" else value
