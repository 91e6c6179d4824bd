"""The contract between pipeline models and the execution engine.

Models (``simulator.model``) turn a platform and a workload into a :class:`TaskGraph`:
fluid resources, pools of slots and tasks made of phases.  The runner
(``simulator.runner``) executes the graph and returns a :class:`RunResult`.
Everything here is a frozen dataclass of plain numbers and strings, so inputs and
outputs are hashable, picklable and JSON-serialisable with :func:`dataclasses.asdict`;
the one exception is :attr:`RunResult.tasks`, a :class:`TaskRecords` sequence that
keeps one column per field (about 40 bytes a task instead of a ~200-byte object) and
makes each :class:`TaskRecord` when it is read.

Units: amounts in bytes or operations, rates in units per second, times in seconds.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import MISSING, dataclass, field, fields
from typing import overload

__all__ = [
    "ResourceSpec",
    "Flow",
    "Phase",
    "Task",
    "PoolSpec",
    "TaskGraph",
    "TaskRecord",
    "TaskRecords",
    "PoolRecord",
    "RunResult",
    "NODE",
]

#: Placeholder in a flow's resource name, replaced by the node a task runs on
#: (``"nic@{node}"`` becomes ``"nic@split-3"``).  Per-node resources are declared
#: once with the placeholder and instantiated per node by the runner.
NODE = "{node}"


#: ``__class__`` assignment, without the frozen classes' ``__setattr__``
_set_class = object.__dict__["__class__"].__set__


def _stores_slots_directly(cls: type) -> type:
    """Give a frozen, slotted dataclass an ``__init__`` that stores its fields as plain assignments.

    The generated one calls ``object.__setattr__`` once a field (a frozen class refuses plain assignment).  This
    one gives the new object, for the time of its stores, a twin class with the same slots and no ``__setattr__``
    of its own (an assignment to ``__class__`` between classes of one layout), stores each field by a plain
    assignment and gives the object its class back: about a third of the time, which counts when a model builds a
    million tasks.  An instance of a subclass stores through the slots' descriptors instead.  Same parameters,
    order and defaults; the class stays frozen.
    """
    twin = type(f"_{cls.__name__}Slots", (), {"__slots__": cls.__slots__, "__module__": cls.__module__})  # type: ignore[attr-defined]
    probe: object = object.__new__(cls)
    _set_class(probe, twin)  # (a TypeError here: the layouts differ)
    _set_class(probe, cls)
    ns: dict = {"_cls": cls, "_twin": twin, "_set_class": _set_class}
    params = []
    stores = []
    slow = []
    for f in fields(cls):
        if f.default_factory is not MISSING or not f.init:
            raise TypeError(f"{cls.__name__}.{f.name}: only plain fields and defaults are supported")
        ns[f"_set_{f.name}"] = cls.__dict__[f.name].__set__
        if f.default is MISSING:
            params.append(f.name)
        else:
            ns[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        stores.append(f"        self.{f.name} = {f.name}\n")
        slow.append(f"        _set_{f.name}(self, {f.name})\n")
    exec(f"def __init__(self, {', '.join(params)}):\n"  # as dataclasses makes its own
         "    if type(self) is _cls:\n"
         "        _set_class(self, _twin)\n"
         f"{''.join(stores)}"
         "        self.__class__ = _cls\n"
         "    else:\n"
         f"{''.join(slow)}", ns)
    init = ns["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__annotations__ = dict(cls.__init__.__annotations__)  # type: ignore[misc]
    cls.__init__ = init  # type: ignore[misc]
    return cls


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    """A capacity shared max-min fairly by the flows active on it.

    ``capacity`` is in units per second (bytes/s for bandwidth, operations/s for
    IOPS).  ``per_flow_cap`` limits any single flow (per-client bandwidth).  When
    more than ``degrade_after`` flows are active, the aggregate capacity becomes
    ``capacity * (degrade_after / n) ** degrade_exponent`` (spinning disks behind one
    server seek between streams, so a too-parallel run gets slower, not just shared).
    A name containing :data:`NODE` declares one such resource per node of a pool.
    """

    name: str
    capacity: float
    per_flow_cap: float | None = None
    degrade_after: int | None = None
    degrade_exponent: float = 0.0
    kind: str = "bandwidth"  # "bandwidth" | "iops" | "link"


@_stores_slots_directly
@dataclass(frozen=True, slots=True)
class Flow:
    """An amount to move through one or more resources at once (all constrain it)."""

    resources: tuple[str, ...]
    amount: float
    cap: float | None = None
    label: str = ""  # "seq_read", "seq_write", "rand_read", "rand_write", "wan", ...

    def scaled(self, factor: float) -> Flow:
        """This flow with its amount times ``factor`` (as ``dataclasses.replace``, several times faster)."""
        return Flow(self.resources, self.amount * factor, self.cap, self.label)


@_stores_slots_directly
@dataclass(frozen=True, slots=True)
class Phase:
    """CPU work and I/O flows that overlap, after a fixed overhead.

    The phase lasts ``overhead_s`` and then until both the CPU work
    (``cpu_seconds`` core-seconds spread over ``min(threads, task cores)`` cores)
    and every flow are done.
    """

    name: str
    cpu_seconds: float = 0.0
    threads: int = 1
    flows: tuple[Flow, ...] = ()
    overhead_s: float = 0.0

    def with_flows(self, flows: tuple[Flow, ...]) -> Phase:
        """This phase with other flows (as ``dataclasses.replace``, several times faster)."""
        return Phase(self.name, self.cpu_seconds, self.threads, flows, self.overhead_s)


@_stores_slots_directly
@dataclass(frozen=True, slots=True)
class Task:
    """A unit of work: phases run one after another on one slot of ``pool``.

    A task with ``pool=None`` and no phases is a zero-cost barrier: it completes
    as soon as its dependencies do and holds nothing.  ``deps`` are task ids.
    ``slot`` pins the task to a slot index of a static pool (work-units cycling
    over days or sub-bands); ``None`` lets the pool's policy choose.  ``queue_s`` is
    the task's own wait in a batch queue (one job per task): it joins its pool's
    ready queue that long after it is ready.
    """

    id: int
    stage: str
    phases: tuple[Phase, ...] = ()
    deps: tuple[int, ...] = ()
    pool: str | None = "default"
    cores: int = 1
    memory_bytes: float = 0.0
    slot: int | None = None
    queue_s: float = 0.0

    def with_phases(self, phases: tuple[Phase, ...]) -> Task:
        """This task with other phases (as ``dataclasses.replace``, several times faster)."""
        return Task(self.id, self.stage, phases, self.deps, self.pool, self.cores, self.memory_bytes, self.slot,
                    self.queue_s)


@dataclass(frozen=True, slots=True)
class PoolSpec:
    """Nodes or instances on which tasks run.

    ``policy``: ``"static"`` (a fixed allocation requested when the first task of
    the pool becomes ready, available after ``queue_wait_s``, held until the last
    task of the pool ends), ``"dynamic"`` (same allocation, FIFO ready queue onto
    any free slot, ties by task id) or ``"elastic"`` (one instance per task,
    launched at most one per ``launch_interval_s``, ready after ``boot_s``,
    released when its task ends; at most ``nodes`` alive at once).

    ``max_running`` caps the tasks running at once (a scheduler's per-user limit on
    running jobs).  ``per_job``: each task is its own batch job, so a node is held (and
    billed) only while a task runs on it, not from the pool's first to its last task.
    """

    name: str
    nodes: int
    cores_per_node: int = 1
    slots_per_node: int = 1
    policy: str = "dynamic"
    queue_wait_s: float = 0.0
    boot_s: float = 0.0
    launch_interval_s: float = 0.0
    max_running: int | None = None
    per_job: bool = False


@dataclass(frozen=True, slots=True)
class TaskGraph:
    """Everything the runner needs: resources, pools and tasks (ids 0..n-1 in order)."""

    resources: tuple[ResourceSpec, ...]
    pools: tuple[PoolSpec, ...]
    tasks: tuple[Task, ...]


@dataclass(frozen=True, slots=True)
class TaskRecord:
    """What happened to one task (one Gantt bar)."""

    id: int
    stage: str
    pool: str | None
    node: str
    ready_s: float
    start_s: float
    end_s: float
    bound_by: str  # resource name, "cpu", "overhead" or "" for barriers


class TaskRecords(Sequence[TaskRecord]):
    """The :class:`TaskRecord` of every task, stored as columns (read-only).

    Behaves like a tuple of records (indexing, slicing, iteration, ``len``, equality
    with a tuple or list of records); a record is made only when it is read.  The
    columns ``ready_s``, ``start_s`` and ``end_s`` (``array('d')``), ``node`` and
    ``bound_by`` (lists of str) are public for consumers that need one field of
    every task without building the records.
    """

    __slots__ = ("_tasks", "node", "ready_s", "start_s", "end_s", "bound_by")

    def __init__(self, tasks: Sequence[Task], node: list[str], ready_s: array, start_s: array, end_s: array,
                 bound_by: list[str]) -> None:
        n = len(tasks)
        if not len(node) == len(ready_s) == len(start_s) == len(end_s) == len(bound_by) == n:
            raise ValueError("every column needs one value per task")
        self._tasks = tasks
        self.node = node
        self.ready_s = ready_s
        self.start_s = start_s
        self.end_s = end_s
        self.bound_by = bound_by

    def __len__(self) -> int:
        return len(self._tasks)

    def _record(self, i: int) -> TaskRecord:
        t = self._tasks[i]
        return TaskRecord(i, t.stage, t.pool, self.node[i], self.ready_s[i], self.start_s[i], self.end_s[i],
                          self.bound_by[i])

    @overload
    def __getitem__(self, i: int) -> TaskRecord: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[TaskRecord, ...]: ...

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(map(self._record, range(len(self._tasks))[i]))
        n = len(self._tasks)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("task record index out of range")
        return self._record(i)

    def __iter__(self) -> Iterator[TaskRecord]:
        tasks = self._tasks
        return map(TaskRecord, range(len(tasks)), [t.stage for t in tasks], [t.pool for t in tasks], self.node,
                   self.ready_s, self.start_s, self.end_s, self.bound_by)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TaskRecords | tuple | list):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # like a list: equal to tuples, so not hashable

    def __repr__(self) -> str:
        return f"TaskRecords({len(self)} tasks)"


@dataclass(frozen=True, slots=True)
class PoolRecord:
    """When a pool was requested, available and released; ``node_seconds`` is what billing uses.

    For elastic pools ``instances`` lists ``(launch_s, release_s)`` per instance.
    """

    name: str
    requested_s: float
    available_s: float
    released_s: float
    nodes: int
    node_seconds: float
    instances: tuple[tuple[float, float], ...] = ()


@dataclass(frozen=True, slots=True)
class RunResult:
    """The outcome of one run of a :class:`TaskGraph`."""

    makespan_s: float
    tasks: Sequence[TaskRecord]  # a TaskRecords from the runner
    pools: tuple[PoolRecord, ...]
    #: resource name -> ((time_s, rate_in_use), ...) step function, per resource instance
    utilisation: dict[str, tuple[tuple[float, float], ...]] = field(default_factory=dict)
    #: resource name -> total units moved through it
    moved: dict[str, float] = field(default_factory=dict)
    events: int = 0
    #: timer -> seconds per task (indexed by task id) of the flows ``run(timed_flows=...)`` timed
    flow_seconds: dict[str, Sequence[float]] = field(default_factory=dict)
