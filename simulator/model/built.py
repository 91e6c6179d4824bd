"""What a workload builder gives the engine and billing: the task graph, the data objects billed by the GB-month, the
pools billing needs to know, the queue waits the build drew (so that a model built once can draw them again for
another seed) and a label per task."""

from __future__ import annotations

from dataclasses import dataclass, field

from simulator.graph import TaskGraph

__all__ = ["DataObject", "PoolInfo", "BuiltGraph", "WaitDraw"]


@dataclass(frozen=True)
class DataObject:
    """Bytes held in a storage tier, for GB-month billing.

    Held from the start (``at_start=True``) or end of task ``created_by`` until the end
    of task ``deleted_by`` (``None``: until the end of the run plus retention)."""

    tier: str
    bytes: float
    created_by: int
    deleted_by: int | None = None
    at_start: bool = False
    label: str = ""


@dataclass(frozen=True)
class PoolInfo:
    """What billing needs to know about a pool."""

    pool: str
    stage: str
    node_type: str
    pricing: str  # on_demand | spot | node_hour | none
    billable: bool = True


@dataclass(frozen=True)
class BuiltGraph:
    graph: TaskGraph
    data_objects: tuple[DataObject, ...]
    pools: tuple[PoolInfo, ...]
    queue_wait_s: float
    notes: tuple[str, ...] = ()
    #: task id -> (stage, work description) for reports
    task_labels: dict[int, str] = field(default_factory=dict)
    #: the queue waits the build drew, in order, so that a model built once can draw them again for another seed
    #: (:func:`simulator.model.simulate.prepare`); ``None`` when the builder does not record them
    wait_draws: tuple[WaitDraw, ...] | None = None


@dataclass(frozen=True)
class WaitDraw:
    """One queue wait of a build: pool ``pool`` waits ``fixed_s`` (the placement's own wait) or, when that is
    ``None``, a wait drawn from the scheduler's distribution; ``allocation``: the wait of the one allocation every
    batch stage shares (it is the run's wait), else one stage's (the run waits for the longest).  The pool starts
    ``extra_s`` after its wait (the scheduler dispatching its job), which is not part of the run's wait."""

    pool: str
    fixed_s: float | None
    allocation: bool
    extra_s: float = 0.0
