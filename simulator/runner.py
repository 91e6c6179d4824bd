"""Execute a :class:`~simulator.graph.TaskGraph` and return a :class:`~simulator.graph.RunResult`.

The runner is deterministic (no randomness, every tie broken by task id or by
scheduling order) and pure Python; mypyc can compile this module (with :mod:`simulator.core` and
:mod:`simulator.fluid`) to the same behaviour, so its state lives in typed, module-level classes.
Semantics, in short:

* A task runs its phases one after another on one slot.  A phase lasts its
  ``overhead_s``, then until its CPU work (``cpu_seconds / min(threads, cores)``)
  and all its flows are done.  Flows are fluid (see :mod:`simulator.fluid`); a
  resource name containing ``{node}`` is instantiated per node.
* ``bound_by``: each phase's overhead is attributed to ``"overhead"`` and the rest
  of the phase to whichever of ``"cpu"`` or its flows finished last (a flow is
  labelled by the resource instance that limited it, e.g. ``"nic@split-3"``).  The
  label with the most time over the task's phases wins (ties: first seen).
* Barriers (``pool=None``, no phases) complete when their dependencies do.
* ``dynamic``/``static`` pools: ``nodes * slots_per_node`` slots, requested when
  the first of their tasks becomes ready, available ``queue_wait_s`` later,
  released when their last task ends.  Ready tasks wait in one FIFO queue (ties by
  task id) and take the lowest-numbered free slot.  In a ``static`` pool a task
  with ``slot`` set waits for that slot (it has priority on it over unpinned tasks).
* A task with ``queue_s`` (its own batch job's queue wait) joins its pool's ready
  queue that long after it is ready.  At most ``max_running`` tasks of a pool run at
  once.  A ``per_job`` pool holds a node only while tasks run on it: its record lists
  those intervals as ``instances`` (what billing charges) instead of every node from
  the pool's first task to its last.
* ``elastic`` pools: one instance per task, launched in FIFO order, at most
  ``nodes`` alive, launches at least ``launch_interval_s`` apart, the task starts
  ``boot_s`` after the launch and the instance is released when the task ends.
  ``PoolRecord.nodes`` is then the peak number of instances alive at once.
* ``utilisation`` per resource instance is the rate in use, recorded at changes and
  reduced (area preserving) to at most ``max_utilisation_points`` points.
* ``events`` counts engine events processed (including superseded wake-ups).
* ``timed_flows(label)`` names a timer for a flow label (or ``None``): then, per task and timer,
  ``RunResult.flow_seconds`` sums over the task's phases the time from the phase's start until the last
  flow of that timer in it ended (how long the task's reads took at the rates it got, say).  One float a
  task and timer, kept only when asked for.
"""

from __future__ import annotations

from array import array
from collections import deque
from collections.abc import Callable
from heapq import heappop, heappush
from math import inf
from typing import Any, Final, final

from .core import DISPATCH, URGENT, Environment, SimulationError
from .fluid import FluidSystem, GeneralGroup, GeneralResource, PSResource, decimate
from .graph import NODE, Flow, Phase, PoolRecord, PoolSpec, ResourceSpec, RunResult, TaskGraph, TaskRecords

__all__ = ["run", "SimulationError"]

_CPU: Final = "cpu"
_OVERHEAD: Final = "overhead"
_URGENT: Final = URGENT
_DISPATCH: Final = DISPATCH
_heappush: Final = heappush
_heappop: Final = heappop

#: A compiled flow group: (kind, what, amount, weight, cap, timer); kind 0 = fixed processor-sharing resource
#: instance ``what``, 1 = node template name, 2 = several resources or a cap that binds (a tuple of
#: (is_template, name_or_instance)), 3 = fixed general resource instance.
_Group = tuple[int, Any, float, int, "float | None", int]
#: A compiled phase: (overhead, cpu_duration, flow_groups, parts: flow groups + 1 if CPU work).
_CPhase = tuple[float, float, tuple[_Group, ...], int]
#: A task's compiled phases, ending with None.
_Compiled = tuple["_CPhase | None", ...]
#: How a flow is added: (kind, what, cap, timer), see :data:`_Group`.
_How = tuple[int, Any, "float | None", int]


@final
class _Node:
    """A node (or elastic instance): its name and its per-node resource instances."""

    __slots__ = ("name", "res")

    def __init__(self, name: str) -> None:
        self.name = name
        self.res: dict[str, Any] = {}


@final
class _Running:
    """A task holding a slot, or a cohort of tasks in lockstep.

    A cohort: tasks of one pool started at the same instant, one after the other, with the same compiled phases
    whose flows each cross one processor-sharing resource (no per-node resource).  Such tasks add the same flows at
    the same instants, so their flows share heap entries and finish together, their CPU work ends together, and
    they end together: the cohort runs their phases once, adding each flow group ``copies`` times at once, and
    ends each of its tasks in the order they started.  ``ids`` and ``slots`` list them (``i`` and ``slot`` are
    the first); a single task has ``copies`` 1 and ``ids`` None.
    """

    __slots__ = ("i", "phases", "pi", "pending", "in_ov", "t0", "node", "slot", "pool", "lab", "sec", "attr", "marks",
                 "ids", "slots", "copies")

    def __init__(self, i: int, phases: _Compiled, node: _Node, slot: int, pool: _Pool) -> None:
        self.ids: list[int] | None = None
        self.slots: list[int] | None = None
        self.copies = 1
        self.i = i
        self.phases = phases
        self.pi = -1  # index of the current phase
        self.pending = 1  # the "start" part, completed at once by the pool
        self.in_ov = False
        self.t0 = 0.0
        self.node = node
        self.slot = slot
        self.pool = pool
        # what the time went to: the first label and its seconds, then (from a second label on) label -> seconds
        self.lab: Any = None
        self.sec = 0.0
        self.attr: dict[Any, float] | None = None
        #: timer -> (phase index, seconds counted in it), for timed flows
        self.marks: dict[int, tuple[int, float]] | None = None

    def attribute(self, label: Any, seconds: float) -> None:
        """Count ``seconds`` of this task's time to ``label``."""
        a = self.attr
        if a is not None:
            a[label] = a.get(label, 0.0) + seconds
            return
        lab = self.lab
        if lab is None:
            self.lab = label
            self.sec = seconds
        elif lab is label or lab == label:
            self.sec += seconds
        else:
            self.attr = {lab: self.sec, label: seconds}


@final
class _Timed:
    """The owner of a timed flow group: its task and timer."""

    __slots__ = ("rt", "k")

    def __init__(self, rt: _Running, k: int) -> None:
        self.rt = rt
        self.k = k


@final
class _UnionFind:
    __slots__ = ("parent",)

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        p = self.parent.setdefault(x, x)
        while p != x:
            gp = self.parent[p]
            self.parent[x] = gp
            x, p = p, gp
        return p

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _flow_is_simple(flow: Flow, specs: dict[str, ResourceSpec]) -> bool:
    if len(flow.resources) != 1:
        return False
    cap = flow.cap
    if cap is None:
        return True
    spec = specs[flow.resources[0]]
    # a cap at or above what the resource can ever give a flow never binds
    pfc = spec.per_flow_cap
    return cap >= spec.capacity or (pfc is not None and cap >= pfc)


#: the runner reports progress at least this often (tasks ended), whatever the graph's size
PROGRESS_EVERY_TASKS = 1000


def run(
    graph: TaskGraph,
    *,
    progress: Callable[[int, int], object] | None = None,
    record_utilisation: bool = True,
    max_utilisation_points: int = 4000,
    timed_flows: Callable[[str], str | None] | None = None,
) -> RunResult:
    """Simulate ``graph`` from t=0 until every task has ended.

    ``progress(done_tasks, total_tasks)`` is called every 1% of the tasks, and at least every ``PROGRESS_EVERY_TASKS``
    tasks, so a caller can stop a long run promptly by raising from it (it propagates).
    Raises :class:`ValueError` for an inconsistent graph and
    :class:`~simulator.core.SimulationError` if tasks can never run (a cycle).
    """
    sim = _Sim(graph, progress, record_utilisation, timed_flows, PROGRESS_EVERY_TASKS)
    sim.simulate()
    return sim.result(max_utilisation_points)


@final
class _Sim:
    """The state of one run; its methods are the event handlers (see :func:`run`)."""

    __slots__ = (
        "tasks", "n", "progress", "record", "timed_flows", "specs", "pool_specs", "env", "heap", "deferred", "next_seq",
        "ready_s", "start_s", "end_s", "node_of", "bound", "timer_of", "timer_names", "timer_cols", "ndeps", "succ",
        "pool_of", "shared_phases", "uf", "general_names", "fluid", "groups", "instances", "fixed",
        "compiled_cache", "in_lockstep", "last_ph", "last_cores", "last_c", "last_lockstep", "added", "last_fres", "last_fcap", "last_flabel", "last_how", "timers", "done", "step",
        "next_report", "pools", "fire",
    )

    def __init__(self, graph: TaskGraph, progress: Callable[[int, int], object] | None, record_utilisation: bool,
                 timed_flows: Callable[[str], str | None] | None, progress_every: int) -> None:
        tasks = graph.tasks
        n = len(tasks)
        self.tasks = tasks
        self.n = n
        self.progress = progress
        self.record = record_utilisation
        self.timed_flows = timed_flows
        specs: dict[str, ResourceSpec] = {}
        for spec in graph.resources:
            if spec.name in specs:
                raise ValueError(f"resource {spec.name!r} declared twice")
            specs[spec.name] = spec
        self.specs = specs
        pool_specs: dict[str, PoolSpec] = {}
        for ps in graph.pools:
            if ps.name in pool_specs:
                raise ValueError(f"pool {ps.name!r} declared twice")
            if ps.policy not in ("static", "dynamic", "elastic"):
                raise ValueError(f"pool {ps.name!r}: unknown policy {ps.policy!r}")
            if ps.nodes < 1 or (ps.policy != "elastic" and ps.slots_per_node < 1):
                raise ValueError(f"pool {ps.name!r}: needs at least one node and one slot")
            pool_specs[ps.name] = ps
        self.pool_specs = pool_specs

        env = Environment()
        self.env = env
        # A running task is a small state machine driven by part_done(rt, label), see there.
        self.heap = env.heap
        self.deferred = env.deferred
        self.next_seq: Callable[[], object] = env.seq.__next__  # next(env.seq)
        self.timers: dict[float, list[tuple[_Running, Any]]] = {}  # CPU/overhead ends at the same time: one event
        self.fire: Callable[[Any], None] = self.fire_timers  # (one bound method for every timer)
        # per-task state in flat columns (8 bytes a value): the result keeps them as they are
        zeros = bytes(8 * n)
        self.ready_s = array("d", zeros)
        self.start_s = array("d", zeros)
        self.end_s = array("d", zeros)
        del zeros
        self.node_of: list[str] = [""] * n
        self.bound: list[str] = [""] * n
        self.timer_of: dict[str, int] = {}  # flow label -> timer index (-1: not timed)
        self.timer_names: list[str] = []
        self.timer_cols: list[array] = []

        # ------------------------------------------------------------------ pools
        # (made first: a task's entry in ``pool_of`` is how it joins its pool, set in the one pass over the tasks)
        pools: dict[str, _Pool] = {}
        self.pools = pools
        joins: dict[str, Callable[[int], None]] = {}  # a ready task joins its pool's queue at once (see ``delayed``)
        for name, ps in pool_specs.items():
            if ps.policy == "elastic":
                elastic = ElasticPool(self, ps)
                pools[name] = elastic
                joins[name] = elastic.enqueue
            else:
                slot_pool = SlotPool(self, ps)
                pools[name] = slot_pool
                joins[name] = slot_pool.arrive
        pool_count: dict[str, int] = {name: 0 for name in pool_specs}

        # ------------------------------------------------------------------ graph
        ndeps = [0] * n
        succ: list[Any] = [None] * n  # successors of a task: None, one task id, or a list of ids
        pool_of: list[Any] = [None] * n  # how a ready task joins its pool; None: a barrier
        delayed: set[str] = set()  # pools with a task that has a queue wait of its own
        distinct_phases: dict[int, tuple[Phase, ...]] = {}
        shared_phases: set[int] = set()  # ids of phase tuples used by several tasks (worth caching compiled)
        prev_ph: object = None  # the previous task's phases (runs of tasks sharing them are common)
        prev_shared = False  # (they are in shared_phases)
        # the previous task's pool, how its tasks join it, and how many tasks in a row had it (counted at a change)
        prev_p: str | None = None
        join: Any = None
        run_p = 0
        unknown = -1  # the first task of an unknown pool
        # (ids and their class read untyped: read as an ``int`` or tested by ``type(x) is int``, a compiler
        # would turn an id into a machine integer, and storing it would make a new int object)
        int_class: Any = int
        i = 0
        for t in tasks:
            task: Any = t
            ti = task.id
            if type(ti) is int_class:
                tn: int = ti  # (compared as machine integers when compiled)
                if tn != i:
                    raise ValueError(f"task ids must be 0..n-1 in order; position {i} has id {ti}")
            else:
                if ti != i:
                    raise ValueError(f"task ids must be 0..n-1 in order; position {i} has id {ti}")
                ti = i  # (the graph's own int object otherwise: no new one, 28 bytes, a task)
            p = t.pool
            if p is None:
                if t.phases:
                    raise ValueError(f"task {i}: a task without pool must have no phases (a barrier)")
            else:
                if p is not prev_p:
                    if prev_p is not None and join is not None:
                        pool_count[prev_p] += run_p
                    prev_p = p
                    run_p = 0
                    join = joins.get(p)
                    if join is None and unknown < 0:
                        unknown = i
                run_p += 1
                pool_of[i] = join
                if t.queue_s > 0.0:
                    delayed.add(p)
                ph = t.phases
                if ph is not prev_ph:
                    k = id(ph)
                    if k in distinct_phases:
                        shared_phases.add(k)
                        prev_shared = True
                    else:
                        distinct_phases[k] = ph
                        prev_shared = False
                    prev_ph = ph
                elif not prev_shared:
                    shared_phases.add(id(ph))
                    prev_shared = True
            deps = t.deps
            if deps:
                ndeps[i] = len(deps)
                for d in deps:
                    if not 0 <= d < n or d == i:
                        raise ValueError(f"task {i}: bad dependency {d}")
                    sd = succ[d]
                    if sd is None:
                        succ[d] = ti
                    elif type(sd) is int_class:
                        succ[d] = [sd, ti]
                    else:
                        more: list[Any] = sd
                        more.append(ti)
            i += 1
        if unknown >= 0:
            raise ValueError(f"task {unknown}: unknown pool {tasks[unknown].pool!r}")
        for name, ps in pool_specs.items():
            if ps.policy == "static":
                total = ps.nodes * ps.slots_per_node
                for t in tasks:
                    s = t.slot
                    if t.pool == name and s is not None and not 0 <= s < total:
                        raise ValueError(f"task {t.id}: slot {s} outside pool {name!r} (0..{total - 1})")
        if prev_p is not None:
            pool_count[prev_p] += run_p
        for name, pool in pools.items():
            pool.expect(pool_count[name])
            if name in delayed and pool.__class__ is SlotPool:  # (then every task of the pool joins through enqueue)
                arrive = joins[name]
                enqueue = pool.enqueue
                i = 0
                for j in pool_of:
                    if j is arrive:
                        pool_of[i] = enqueue
                    i += 1
        self.ndeps = ndeps
        self.succ = succ
        self.pool_of = pool_of
        self.shared_phases = shared_phases

        # ------------------------------------------------------------------ flows
        # Classify resources (by declared name, templates included): a resource that
        # carries a multi-resource or capped flow is "general"; connected general
        # resources share one water-filling group.
        uf = _UnionFind()
        general_names: set[str] = set()
        seen_res: object = None  # the resources and cap (the objects) of the last flow looked at: the same again,
        seen_cap: object = None  # as phases of their own per task often have, need no second look
        for phs in distinct_phases.values():
            for phase in phs:
                for f in phase.flows:
                    resources = f.resources
                    cap = f.cap
                    if resources is seen_res and cap is seen_cap:
                        continue
                    seen_res = resources
                    seen_cap = cap
                    for r in resources:
                        if r not in specs:
                            raise ValueError(f"flow on undeclared resource {r!r} (phase {phase.name!r})")
                    if not _flow_is_simple(f, specs):
                        general_names.update(resources)
                        for r in resources[1:]:
                            uf.union(resources[0], r)
        del distinct_phases
        self.uf = uf
        self.general_names = general_names

        fluid = FluidSystem(env, self.part_done if timed_flows is None else self.timed_done, record_utilisation)
        self.fluid = fluid
        self.groups: dict[str, GeneralGroup] = {}
        self.instances: dict[str, Any] = {}  # instance name -> resource, in creation order
        fixed: dict[str, Any] = {}
        self.fixed = fixed
        for spec in graph.resources:
            if NODE not in spec.name:
                fixed[spec.name] = self.make_instance(spec.name, None)

        self.compiled_cache: dict[tuple[int, int], _Compiled] = {}
        self.in_lockstep: set[int] = set()  # ids of cached compiled phases a cohort can run (see _Running)
        self.last_ph: object = None  # memo of the last (phases, cores) -> compiled
        self.last_cores = 0
        self.last_c: _Compiled = ()
        self.last_lockstep = False  # (id(last_c) in in_lockstep)
        self.added: dict[tuple[tuple[str, ...], float | None, str], _How] = {}  # (resources, cap, label) of a flow
        # memo of the last single flow of a phase compiled: its resources, cap and label (the objects) -> how added
        self.last_fres: object = None
        self.last_fcap: object = None
        self.last_flabel: object = None
        self.last_how: _How = (0, None, None, -1)

        self.done = 0
        self.step = max(1, min(-(-n // 100), progress_every))
        self.next_report = self.step

    # ------------------------------------------------------------------ flows
    def timer(self, label: str) -> int:
        k = self.timer_of.get(label)
        if k is None:
            timed_flows = self.timed_flows
            name = timed_flows(label) if timed_flows is not None else None
            if name is None:
                k = -1
            else:
                if name not in self.timer_names:
                    self.timer_names.append(name)
                    self.timer_cols.append(array("d", bytes(8 * self.n)))
                k = self.timer_names.index(name)
            self.timer_of[label] = k
        return k

    def make_instance(self, template: str, node_name: str | None) -> Any:
        spec = self.specs[template]
        name = template.replace(NODE, node_name) if node_name is not None else template
        res: Any
        if template in self.general_names:
            root = self.uf.find(template)
            grp = self.groups.get(root)
            if grp is None:
                grp = self.groups[root] = GeneralGroup(self.fluid)
            res = self.fluid.general(name, spec.capacity, grp, spec.per_flow_cap, spec.degrade_after,
                                     spec.degrade_exponent)
        else:
            res = self.fluid.ps(name, spec.capacity, spec.per_flow_cap, spec.degrade_after, spec.degrade_exponent)
        self.instances[name] = res
        return res

    def how_added(self, f: Flow) -> _How:
        """(kind, what, cap, timer) of a flow: kind 0 = fixed processor-sharing resource instance ``what``, 3 = fixed
        general resource instance, 1 = node template name ``what``, 2 = several resources or a cap that binds
        (``what`` a tuple of (is_template, name_or_instance)); ``cap`` None unless it can bind."""
        key = (f.resources, f.cap, f.label)
        how = self.added.get(key)
        if how is None:
            cap = None if _flow_is_simple(f, self.specs) else f.cap
            tk = self.timer(f.label) if self.timed_flows is not None else -1
            resources = f.resources
            fixed = self.fixed
            if len(resources) == 1 and cap is None:
                r = resources[0]
                if NODE in r:
                    how = (1, r, None, tk)
                else:
                    res = fixed[r]
                    how = (0 if res.__class__ is PSResource else 3, res, None, tk)
            else:
                how = (2, tuple([(True, r) if NODE in r else (False, fixed[r]) for r in resources]), cap, tk)
            if len(self.added) < 4096:  # (flows with a cap of their own each could make it grow with the graph)
                self.added[key] = how
        return how

    def compile_phases(self, phases: tuple[Phase, ...], cores: int) -> _Compiled:
        if phases is self.last_ph and cores == self.last_cores:
            return self.last_c
        shared = id(phases) in self.shared_phases
        if shared:
            c = self.compiled_cache.get((id(phases), cores))
            if c is not None:
                self.last_ph = phases
                self.last_cores = cores
                self.last_c = c
                self.last_lockstep = id(c) in self.in_lockstep
                return c
        added = self.added
        out: list[_CPhase | None] = []
        for p in phases:
            threads = p.threads
            if threads > cores:
                threads = cores
            if threads < 1:
                threads = 1
            cpu_seconds = p.cpu_seconds
            cpu = cpu_seconds / threads if cpu_seconds > 0 else 0.0
            flows = p.flows
            grps: tuple[_Group, ...]
            if len(flows) == 1:  # (most phases: no merging)
                f = flows[0]
                amount: Any = f.amount  # (as it is: the compiled group keeps this float object)
                if amount > 0:
                    res = f.resources
                    fcap = f.cap
                    label = f.label
                    if res is self.last_fres and fcap is self.last_fcap and label is self.last_flabel:
                        how = self.last_how  # (a phase of its own per task, with the same kind of flow as the last)
                    else:
                        known = added.get((res, fcap, label))
                        how = known if known is not None else self.how_added(f)
                        self.last_fres = res
                        self.last_fcap = fcap
                        self.last_flabel = label
                        self.last_how = how
                    grps = ((how[0], how[1], amount, 1, how[2], how[3]),)
                else:
                    grps = ()
            else:
                merged: dict[tuple[_How, float], int] = {}  # identical flows (same resources, amount, cap, timer)
                for f in flows:
                    if f.amount > 0:
                        mk = (self.how_added(f), f.amount)
                        merged[mk] = merged.get(mk, 0) + 1
                grps = tuple([(h[0], h[1], amount, w, h[2], h[3]) for (h, amount), w in merged.items()])
            ov: Any = p.overhead_s
            if type(ov) is not float:
                ov = float(ov)
            out.append((ov, cpu, grps, len(grps) + 1 if cpu > 0.0 else len(grps)))
        out.append(None)  # (the end: part_done needs no len())
        c = tuple(out)
        if shared:  # a task's own phases are compiled once, when it starts, and not kept (nor memoised)
            self.compiled_cache[(id(phases), cores)] = c
            lockstep = False
            for cp in out:
                if cp is not None and (cp[0] > 0.0 or cp[1] > 0.0 or cp[2]):
                    lockstep = True
            for cp in out:
                if cp is not None:
                    for g in cp[2]:
                        if g[0] != 0:
                            lockstep = False
            if lockstep:
                self.in_lockstep.add(id(c))  # tasks started together with these phases can run as one cohort
            self.last_ph = phases
            self.last_cores = cores
            self.last_c = c
            self.last_lockstep = lockstep
        return c

    # ------------------------------------------------------------------ phases
    # A running task is a small state machine driven by part_done(rt, label): a
    # part (the overhead, the CPU work or a flow group) of its current phase is
    # over; when the last part of the phase ends, attribute the phase's time to
    # ``label`` and start the next phase(s).  rt.pending counts outstanding parts;
    # rt.in_ov says the pending part is the phase's overhead.
    def fire_timers(self, t: Any) -> None:
        timers = self.timers
        due = timers[t]
        del timers[t]
        for rt, label in due:
            self.part_done(rt, label)

    def part_done(self, rt: _Running, label: Any) -> None:
        p = rt.pending - 1
        if p:
            rt.pending = p
            return
        now = self.env.now
        if rt.in_ov:
            rt.in_ov = False
            pi = rt.pi
            skip_ov = True
        else:
            if label is not None:
                dur = now - rt.t0
                if dur > 0.0:
                    rt.attribute(label, dur)
            pi = rt.pi + 1
            skip_ov = False
        phases = rt.phases
        while True:
            ph = phases[pi]
            if ph is None:  # (compiled phases end with None)
                break
            ov, cpu, grps, pending = ph
            if ov > 0.0 and not skip_ov:
                rt.attribute(_OVERHEAD, ov)
                rt.pi = pi
                rt.pending = 1
                rt.in_ov = True
                t = now + ov
                timers = self.timers
                lst = timers.get(t)
                if lst is None:
                    timers[t] = [(rt, None)]
                    _heappush(self.heap, (t, _URGENT, self.next_seq(), self.fire, t))
                else:
                    lst.append((rt, None))
                return
            skip_ov = False
            if cpu > 0.0:
                t = now + cpu
                timers = self.timers
                lst = timers.get(t)
                if lst is None:
                    timers[t] = [(rt, _CPU)]
                    _heappush(self.heap, (t, _URGENT, self.next_seq(), self.fire, t))
                else:
                    lst.append((rt, _CPU))
            if pending:
                rt.pi = pi
                rt.t0 = now
                rt.pending = pending
                copies = rt.copies
                for kind, what, amount, w, cap, tk in grps:
                    owner: Any = rt if tk < 0 else _Timed(rt, tk)
                    if kind == 0:
                        ps: PSResource = what
                        if copies == 1:
                            ps.add(amount, w, owner)
                        else:
                            ps.add_copies(amount, w, owner, copies)
                    elif kind == 1:
                        node = rt.node
                        res = node.res.get(what)
                        if res is None:
                            res = node.res[what] = self.make_instance(what, node.name)
                        res.add(amount, w, owner)
                    elif kind == 3:
                        gr: GeneralResource = what
                        gr.add(amount, w, owner)
                    else:
                        rs = []
                        node = rt.node
                        for is_tpl, x in what:
                            if is_tpl:
                                res = node.res.get(x)
                                if res is None:
                                    res = node.res[x] = self.make_instance(x, node.name)
                                rs.append(res)
                            else:
                                rs.append(x)
                        rs[0].group.add(tuple(rs), amount, w, cap, owner)
                return
            pi += 1
        self.task_end(rt)

    def timed_done(self, owner: Any, label: Any) -> None:
        """A flow group is done: when it is timed, count the time since its phase began into the task's timer
        (only the part beyond what earlier groups of that timer in the same phase counted)."""
        if type(owner) is not _Timed:
            self.part_done(owner, label)
            return
        tm: _Timed = owner
        rt, k = tm.rt, tm.k
        span = self.env.now - rt.t0
        marks = rt.marks
        if marks is None:
            marks = rt.marks = {}
        prev = marks.get(k)
        counted = prev[1] if prev is not None and prev[0] == rt.pi else 0.0
        if span > counted:
            col = self.timer_cols[k]
            ids = rt.ids
            if ids is None:
                col[rt.i] += span - counted
            else:
                for i in ids:
                    col[i] += span - counted
            marks[k] = (rt.pi, span)
        self.part_done(rt, label)

    # ------------------------------------------------------------------ tasks
    def task_end(self, rt: _Running) -> None:
        best = rt.lab  # (None: no time was attributed)
        a = rt.attr
        if a is not None:  # (two labels or more)
            bt = -1.0
            for k, v in a.items():
                if v > bt:
                    best, bt = k, v
        if best is not None and type(best) is not str:
            best = best.name
        now: Any = self.env.now  # (one float object for every column it goes to)
        ids = rt.ids
        if ids is None:
            i = rt.i
            if best is not None:
                self.bound[i] = best
            rt.pool.release(rt.slot)
            self.ended(i, now)
            return
        if best is not None:
            bound = self.bound
            for i in ids:
                bound[i] = best
        slots = rt.slots
        assert slots is not None
        rt.pool.release_all(slots)  # (nothing below looks at the pool until this instant's dispatch)
        for i in ids:  # a cohort's tasks in the order they started, as one by one
            self.ended(i, now)

    def count_end(self, i: int, now: float) -> None:
        """Task ``i`` ended at ``now``: its end time, the count of tasks done and the progress report."""
        self.end_s[i] = now
        done = self.done + 1
        self.done = done
        progress = self.progress
        if progress is not None and done >= self.next_report:
            self.next_report = done + self.step
            progress(done, self.n)

    def ended(self, i: int, now: Any) -> None:
        """Task ``i`` (that held a slot) ended at ``now``: :meth:`finish`, with a lone successor's countdown inlined."""
        self.count_end(i, now)
        sj = self.succ[i]
        if sj is None:
            return
        task: Any = sj  # (the int object itself, for the pool's queue: a tested ``sj`` may become a machine integer)
        if isinstance(sj, int):
            ndeps = self.ndeps
            k = ndeps[sj]
            if k > 1:
                ndeps[sj] = k - 1
                return
            join = self.pool_of[sj]
            if join is not None:
                ndeps[sj] = 0
                self.ready_s[sj] = now
                join(task)
                return
            task = (task,)
        self.finish_succ(task, now)

    def finish(self, i: int, now: float) -> None:
        self.count_end(i, now)
        sj = self.succ[i]
        if sj is None:
            return
        if sj.__class__ is int:
            sj = (sj,)
        self.finish_succ(sj, now)

    def finish_succ(self, sj: Any, now: float) -> None:
        """Count down the dependencies of successors ``sj`` of a task that ended at ``now``; barriers made ready
        complete at once (iteratively: chains of them may be long)."""
        stack: list[int] = []
        self.count_down(sj, now, stack)
        while stack:
            i = stack.pop()
            self.count_end(i, now)
            sj = self.succ[i]
            if sj is not None:
                self.count_down((sj,) if sj.__class__ is int else sj, now, stack)

    def count_down(self, sj: Any, now: float, stack: list[int]) -> None:
        """One dependency fewer for each of ``sj``: a task left with none is ready (it joins its pool, or is put
        on ``stack`` when it is a barrier)."""
        ndeps = self.ndeps
        pool_of = self.pool_of
        ready_s = self.ready_s
        for s in sj:
            k = ndeps[s] - 1
            ndeps[s] = k
            if k == 0:
                ready_s[s] = now
                join = pool_of[s]
                if join is None:
                    self.start_s[s] = now
                    stack.append(s)
                else:
                    join(s)

    # ------------------------------------------------------------------ run
    def simulate(self) -> None:
        n = self.n
        ndeps = self.ndeps
        pool_of = self.pool_of
        for i in [i for i in range(n) if ndeps[i] == 0]:  # roots, before finishing any changes ndeps
            join = pool_of[i]
            if join is None:
                self.start_s[i] = 0.0
                self.finish(i, 0.0)
            else:
                join(i)
        self.env.run()
        if self.done != n:
            stuck = [i for i in range(n) if ndeps[i] > 0][:10]
            raise SimulationError(f"{n - self.done} tasks never ran (dependency cycle?), e.g. {stuck}")
        progress = self.progress
        if progress is not None and self.next_report - self.step < n:
            progress(n, n)

    def result(self, max_utilisation_points: int) -> RunResult:
        n = self.n
        makespan = max(self.end_s) if n else 0.0
        records = TaskRecords(self.tasks, self.node_of, self.ready_s, self.start_s, self.end_s, self.bound)
        util: dict[str, tuple[tuple[float, float], ...]] = {}
        moved: dict[str, float] = {}
        for name, res in self.instances.items():
            moved[name] = res.moved
            if self.record:
                util[name] = decimate(res.ut_t, res.ut_r, makespan, max_utilisation_points)
        return RunResult(
            makespan_s=makespan,
            tasks=records,
            pools=tuple([self.pools[name].record() for name in self.pool_specs]),
            utilisation=util,
            moved=moved,
            events=self.env.events,
            flow_seconds=dict(zip(self.timer_names, self.timer_cols, strict=True)),
        )


# ---------------------------------------------------------------------- pools
class _Pool:
    """What the runner asks of a pool (:class:`SlotPool` or :class:`ElasticPool`)."""

    __slots__ = ()

    def enqueue(self, i: Any) -> None:
        raise NotImplementedError

    def arrive(self, i: Any) -> None:
        raise NotImplementedError

    def release(self, s: int) -> None:
        raise NotImplementedError

    def expect(self, count: int) -> None:
        """The pool will run ``count`` tasks (it is released when the last of them ends)."""
        raise NotImplementedError

    def release_all(self, slots: list[int]) -> None:
        """:meth:`release` of every slot of ``slots``, in that order."""
        for s in slots:
            self.release(s)

    def record(self) -> PoolRecord:
        raise NotImplementedError


@final
class SlotPool(_Pool):
    """A ``static`` or ``dynamic`` pool: slots on nodes, one FIFO ready queue."""

    __slots__ = (
        "sim", "env", "tasks", "spec", "nodes", "spn", "free", "busy", "queue", "head", "pending", "pinned", "freed",
        "requested", "available", "released", "is_available", "remaining", "scheduled", "static",
        "running", "max_running", "busy_on", "since", "held", "touched", "per_job", "dispatch_entry",
    )

    def __init__(self, sim: _Sim, spec: PoolSpec) -> None:
        self.sim = sim
        self.env = sim.env
        self.tasks = sim.tasks
        self.spec = spec
        self.nodes = [_Node(f"{spec.name}-{k}") for k in range(spec.nodes)]
        self.spn = spec.slots_per_node
        total = spec.nodes * spec.slots_per_node
        self.free = list(range(total))
        self.busy = [False] * total  # (kept for static pools only)
        self.queue: list[Any] = []  # the FIFO ready queue is queue[head:] (task ids: the int objects they came as)
        self.head = 0
        self.pending: list[Any] = []
        self.pinned: dict[int, deque[int]] = {}
        self.freed: list[int] = []
        self.requested: float | None = None
        self.available: float | None = None
        self.released: float | None = None
        self.is_available = False
        self.remaining = 0  # (see expect)
        self.scheduled = False
        self.static = spec.policy == "static"
        self.running = 0
        self.max_running: int = spec.max_running if spec.max_running else total
        self.busy_on = [0] * spec.nodes  # per_job: tasks running on each node, and since when it is held
        self.since = [0.0] * spec.nodes
        self.held: list[tuple[float, float]] = []  # per_job: (start, end) of each time a node was held
        self.touched = [False] * spec.nodes
        self.per_job = spec.per_job
        self.dispatch_entry: Callable[[Any], None] = self.dispatch  # (one bound method for every dispatch)

    def expect(self, count: int) -> None:
        self.remaining = count

    def enqueue(self, i: Any) -> None:
        env = self.env
        q = self.tasks[i].queue_s
        if q > 0.0:
            env.schedule(env.now + q, URGENT, self.arrive, i)
            if self.requested is None:
                self.requested = env.now
            return
        self.arrive(i)

    def arrive(self, i: Any) -> None:
        self.pending.append(i)
        if self.available is None:
            env = self.env
            now = env.now
            if self.requested is None:
                self.requested = now
            available = now + self.spec.queue_wait_s
            self.available = available
            env.schedule(available, URGENT, self.become_available, None)
        elif self.is_available and not self.scheduled:
            self.scheduled = True
            self.env.defer(DISPATCH, self.dispatch_entry, None)

    def become_available(self, _: Any) -> None:
        self.is_available = True
        if not self.scheduled:
            self.scheduled = True
            self.env.defer(DISPATCH, self.dispatch_entry, None)

    def dispatch(self, _: Any) -> None:
        self.scheduled = False
        pending = self.pending
        queue = self.queue
        static = self.static
        tasks = self.tasks
        if pending:
            if len(pending) > 1:
                pending.sort()
            if static:
                for i in pending:
                    s = tasks[i].slot
                    if s is None:
                        queue.append(i)
                    else:
                        q = self.pinned.get(s)
                        if q is None:
                            q = self.pinned[s] = deque()
                        q.append(i)
                        self.freed.append(s)
            else:
                queue.extend(pending)
            pending.clear()  # (arrivals append to self.pending: the same list)
        busy = self.busy
        if static:
            if self.pinned and self.freed:
                freed = sorted(set(self.freed))
                self.freed = []
                for s in freed:
                    if not busy[s] and self.running < self.max_running:
                        q = self.pinned.get(s)
                        if q:
                            self.start(q.popleft(), s)
                            if not q:
                                del self.pinned[s]
            elif self.freed:
                self.freed = []
        free = self.free
        head = self.head
        if head == len(queue) or not free:
            return
        sim = self.sim
        spn = self.spn
        nodes = self.nodes
        per_job = self.per_job
        max_running = self.max_running
        start_s = sim.start_s
        node_of = sim.node_of
        now = self.env.now
        now_b: Any = now  # (one float object for the column)
        running = self.running  # (written back before anything that could end a task runs)
        # When the queue can take every free slot, they go in ascending order, as popped one by one from the
        # heap: sorted at once (a task ending meanwhile pushes its slot onto ``free``, and the lowest of both goes)
        batch: list[int] = []
        nb = 0
        if not static and len(free) > 1 and len(queue) - head >= len(free) and max_running - running >= len(free):
            batch = sorted(free)
            nb = len(batch)
            free.clear()
        bi = 0
        co: _Running | None = None  # the cohort being gathered (see _Running)
        while head < len(queue) and (bi < nb or free) and running < max_running:
            if bi < nb:
                s = batch[bi]
                if free and free[0] < s:
                    s = _heappop(free)
                else:
                    bi += 1
            else:
                s = _heappop(free)
            if static:  # (only a static pool's pinned tasks take slots that stay in ``free``)
                if busy[s]:
                    continue
                busy[s] = True
            i = queue[head]  # (Any, as the queue's items)
            head += 1
            running += 1
            start_s[i] = now_b
            k = s // spn
            if per_job:
                if self.busy_on[k] == 0:
                    self.since[k] = now
                    self.touched[k] = True
                self.busy_on[k] += 1
            node = nodes[k]
            node_of[i] = node.name
            t = tasks[i]
            ph = t.phases
            cores = t.cores
            if ph is sim.last_ph and cores == sim.last_cores:
                c = sim.last_c
            else:
                c = sim.compile_phases(ph, cores)
            lockstep = c is sim.last_c and sim.last_lockstep  # (only shared phases are memoised, and only they can)
            if co is not None:
                if c is co.phases:
                    ids = co.ids
                    if ids is None:
                        co.ids = [co.i, i]
                        co.slots = [co.slot, s]
                    else:
                        ids.append(i)
                        slots = co.slots
                        assert slots is not None
                        slots.append(s)
                    continue
                # start the cohort's first phase (its tasks cannot end at once: nothing frees a slot meanwhile)
                ids = co.ids
                if ids is not None:
                    co.copies = len(ids)
                self.running = running
                sim.part_done(co, None)
                running = self.running
                co = None
            rt = _Running(i, c, node, s, self)
            if lockstep:
                co = rt
            else:
                self.running = running
                sim.part_done(rt, None)
                running = self.running
        self.running = running
        while bi < nb:  # (slots left over: back to the heap)
            _heappush(free, batch[bi])
            bi += 1
        if head == len(queue):
            queue.clear()
            head = 0
        elif head > 4096 and 2 * head > len(queue):
            del queue[:head]
            head = 0
        self.head = head
        if co is not None:
            ids = co.ids
            if ids is not None:
                co.copies = len(ids)
            sim.part_done(co, None)

    def start(self, i: int, s: int) -> None:
        self.busy[s] = True
        self.running += 1
        sim = self.sim
        now = self.env.now
        sim.start_s[i] = now
        k = s // self.spn
        if self.per_job:
            if self.busy_on[k] == 0:
                self.since[k] = now
                self.touched[k] = True
            self.busy_on[k] += 1
        node = self.nodes[k]
        sim.node_of[i] = node.name
        t = self.tasks[i]
        sim.part_done(_Running(i, sim.compile_phases(t.phases, t.cores), node, s, self), None)

    def release(self, s: int) -> None:
        if self.static:
            self.busy[s] = False
        self.running -= 1
        if self.per_job:  # (nodes' busy spans: only per_job billing needs them)
            k = s // self.spn
            b = self.busy_on[k] - 1
            self.busy_on[k] = b
            if b == 0:
                self.held.append((self.since[k], self.env.now))
        _heappush(self.free, s)
        if self.static and self.pinned:
            self.freed.append(s)
        self.slots_freed(1)

    def slots_freed(self, m: int) -> None:
        """``m`` of the pool's tasks ended: the pool is released after its last; a dispatch at this instant's end."""
        r = self.remaining - m
        self.remaining = r
        if r == 0:
            self.released = self.env.now
        if not self.scheduled:
            self.scheduled = True
            sim = self.sim
            _heappush(sim.deferred, (_DISPATCH, sim.next_seq(), self.dispatch_entry, None))  # env.defer, inlined

    def release_all(self, slots: list[int]) -> None:
        """:meth:`release` of every slot of ``slots``, in that order."""
        if self.per_job or self.static:
            for s in slots:
                self.release(s)
            return
        free = self.free
        for s in slots:
            _heappush(free, s)
        m = len(slots)
        self.running -= m
        self.slots_freed(m)

    def record(self) -> PoolRecord:
        spec = self.spec
        requested = self.requested
        if requested is None:
            return PoolRecord(spec.name, 0.0, 0.0, 0.0, spec.nodes, 0.0)
        rel = self.released if self.released is not None else self.env.now
        available = self.available
        if spec.per_job:
            held = tuple(self.held)
            used = sum(self.touched)
            return PoolRecord(spec.name, requested, available if available is not None else rel,
                              rel, used, sum([b - a for a, b in held]), held)
        assert available is not None
        return PoolRecord(spec.name, requested, available, rel, spec.nodes,
                          spec.nodes * max(0.0, rel - available))


@final
class ElasticPool(_Pool):
    """An ``elastic`` pool: one instance per task (see the module's docstring)."""

    __slots__ = ("sim", "env", "spec", "queue", "pending", "alive", "peak", "next_launch", "instances", "requested",
                 "available", "released", "remaining", "scheduled", "wake_at")

    def __init__(self, sim: _Sim, spec: PoolSpec) -> None:
        self.sim = sim
        self.env = sim.env
        self.spec = spec
        self.queue: deque[Any] = deque()  # (task ids: the int objects they came as)
        self.pending: list[Any] = []
        self.alive = 0
        self.peak = 0
        self.next_launch = -inf
        self.instances: list[list[Any]] = []  # [launch, release]
        self.requested: float | None = None
        self.available: float | None = None
        self.released: float | None = None
        self.remaining = 0  # (see expect)
        self.scheduled = False
        self.wake_at: float | None = None

    def expect(self, count: int) -> None:
        self.remaining = count

    def enqueue(self, i: Any) -> None:
        self.pending.append(i)
        if self.requested is None:
            self.requested = self.env.now
        if not self.scheduled:
            self.scheduled = True
            self.env.defer(DISPATCH, self.dispatch, None)

    def arrive(self, i: Any) -> None:
        self.enqueue(i)

    def dispatch(self, _: Any) -> None:
        self.scheduled = False
        env = self.env
        now = env.now
        wake_at = self.wake_at
        if wake_at is not None and wake_at <= now:
            self.wake_at = None
        if self.pending:
            self.pending.sort()
            self.queue.extend(self.pending)
            self.pending = []
        queue = self.queue
        spec = self.spec
        while queue and self.alive < spec.nodes:
            if now < self.next_launch:
                if self.wake_at is None:
                    self.wake_at = self.next_launch
                    env.schedule(self.next_launch, DISPATCH, self.wake, None)
                break
            i = queue.popleft()
            k = len(self.instances)
            self.instances.append([now, None])
            self.alive += 1
            if self.alive > self.peak:
                self.peak = self.alive
            self.next_launch = now + spec.launch_interval_s
            if spec.boot_s > 0:
                env.schedule(now + spec.boot_s, URGENT, self.boot, (i, k))
            else:
                self.boot((i, k))

    def wake(self, _: Any) -> None:
        self.wake_at = None
        if not self.scheduled:
            self.dispatch(None)

    def boot(self, arg: tuple[int, int]) -> None:
        i, k = arg
        sim = self.sim
        now = self.env.now
        if self.available is None:
            self.available = now
        sim.start_s[i] = now
        node = _Node(f"{self.spec.name}-{k}")
        sim.node_of[i] = node.name
        t = sim.tasks[i]
        sim.part_done(_Running(i, sim.compile_phases(t.phases, t.cores), node, k, self), None)

    def release(self, k: int) -> None:
        now = self.env.now
        self.instances[k][1] = now
        self.alive -= 1
        self.remaining -= 1
        if self.remaining == 0:
            self.released = now
        if (self.queue or self.pending) and not self.scheduled:
            self.scheduled = True
            self.env.defer(DISPATCH, self.dispatch, None)

    def record(self) -> PoolRecord:
        spec = self.spec
        requested = self.requested
        if requested is None:
            return PoolRecord(spec.name, 0.0, 0.0, 0.0, 0, 0.0)
        now = self.env.now
        inst = tuple([(a, b if b is not None else now) for a, b in self.instances])
        rel = self.released if self.released is not None else now
        avail = self.available if self.available is not None else rel
        return PoolRecord(spec.name, requested, avail, rel, self.peak,
                          sum([b - a for a, b in inst]), inst)
