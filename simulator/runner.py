"""Execute a :class:`~simulator.graph.TaskGraph` and return a :class:`~simulator.graph.RunResult`.

The runner is deterministic (no randomness, every tie broken by task id or by
scheduling order) and pure Python.  Semantics, in short:

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
from collections import Counter, deque
from collections.abc import Callable
from heapq import heappop, heappush
from math import inf

from .core import DISPATCH, URGENT, Environment, SimulationError
from .fluid import FluidSystem, GeneralGroup, PSResource, decimate
from .graph import NODE, PoolRecord, PoolSpec, ResourceSpec, RunResult, TaskGraph, TaskRecords

__all__ = ["run", "SimulationError"]

_CPU = "cpu"
_OVERHEAD = "overhead"


class _Node:
    """A node (or elastic instance): its name and its per-node resource instances."""

    __slots__ = ("name", "res")

    def __init__(self, name: str) -> None:
        self.name = name
        self.res: dict = {}


class _Running:
    """A task holding a slot, or a cohort of tasks in lockstep.

    A cohort: tasks of one pool started at the same instant, one after the other, with the same compiled phases
    whose flows each cross one processor-sharing resource (no per-node resource).  Such tasks add the same flows at
    the same instants, so their flows share heap entries and finish together, their CPU work ends together, and
    they end together: the cohort runs their phases once, adding each flow group ``copies`` times at once, and
    ends each of its tasks in the order they started.  ``ids`` and ``slots`` list them (``i`` and ``slot`` are
    the first); a single task has ``copies`` 1 and ``ids`` None.
    """

    __slots__ = ("i", "phases", "pi", "pending", "in_ov", "t0", "node", "slot", "pool", "attr", "marks", "ids",
                 "slots", "copies")

    def __init__(self, i, phases, node, slot, pool):
        self.ids = None
        self.slots = None
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
        self.attr = None  # label -> seconds, created at the first attribution
        self.marks = None  # timer -> (phase index, seconds counted in it), for timed flows


class _Timed:
    """The owner of a timed flow group: its task and timer."""

    __slots__ = ("rt", "k")

    def __init__(self, rt, k):
        self.rt = rt
        self.k = k


class _UnionFind:
    __slots__ = ("parent",)

    def __init__(self) -> None:
        self.parent: dict = {}

    def find(self, x):
        p = self.parent.setdefault(x, x)
        while p != x:
            gp = self.parent[p]
            self.parent[x] = gp
            x, p = p, gp
        return p

    def union(self, a, b) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _flow_is_simple(flow, specs: dict[str, ResourceSpec]) -> bool:
    if len(flow.resources) != 1:
        return False
    if flow.cap is None:
        return True
    spec = specs[flow.resources[0]]
    # a cap at or above what the resource can ever give a flow never binds
    return flow.cap >= spec.capacity or (spec.per_flow_cap is not None and flow.cap >= spec.per_flow_cap)


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
    tasks = graph.tasks
    n = len(tasks)
    specs: dict[str, ResourceSpec] = {}
    for spec in graph.resources:
        if spec.name in specs:
            raise ValueError(f"resource {spec.name!r} declared twice")
        specs[spec.name] = spec
    pool_specs: dict[str, PoolSpec] = {}
    for ps in graph.pools:
        if ps.name in pool_specs:
            raise ValueError(f"pool {ps.name!r} declared twice")
        if ps.policy not in ("static", "dynamic", "elastic"):
            raise ValueError(f"pool {ps.name!r}: unknown policy {ps.policy!r}")
        if ps.nodes < 1 or (ps.policy != "elastic" and ps.slots_per_node < 1):
            raise ValueError(f"pool {ps.name!r}: needs at least one node and one slot")
        pool_specs[ps.name] = ps

    env = Environment()
    schedule = env.schedule
    # per-task state in flat columns (8 bytes a value): the result keeps them as they are
    zeros = bytes(8 * n)
    ready_s = array("d", zeros)
    start_s = array("d", zeros)
    end_s = array("d", zeros)
    del zeros
    node_of: list = [""] * n
    bound: list = [""] * n
    timer_of: dict[str, int] = {}  # flow label -> timer index (-1: not timed)
    timer_names: list[str] = []
    timer_cols: list[array] = []

    def timer(label: str) -> int:
        k = timer_of.get(label)
        if k is None:
            name = timed_flows(label) if timed_flows is not None else None
            if name is None:
                k = -1
            else:
                if name not in timer_names:
                    timer_names.append(name)
                    timer_cols.append(array("d", bytes(8 * n)))
                k = timer_names.index(name)
            timer_of[label] = k
        return k

    # ------------------------------------------------------------------ graph
    ndeps = [0] * n
    succ: list = [None] * n  # successors of a task: None, one task id, or a list of ids
    pool_of: list = [None] * n  # pool name, then how a ready task joins the pool; None: a barrier
    delayed: set[str] = set()  # pools with a task that has a queue wait of its own
    distinct_phases: dict[int, tuple] = {}
    shared_phases: set[int] = set()  # ids of phase tuples used by several tasks (worth caching compiled)
    prev_ph = None  # the previous task's phases (runs of tasks sharing them are common)
    for i, t in enumerate(tasks):
        ti = t.id
        if ti != i:
            raise ValueError(f"task ids must be 0..n-1 in order; position {i} has id {ti}")
        p = t.pool
        if p is None:
            if t.phases:
                raise ValueError(f"task {i}: a task without pool must have no phases (a barrier)")
        else:
            pool_of[i] = p
            if t.queue_s > 0.0:
                delayed.add(p)
            ph = t.phases
            if ph is not prev_ph:
                k = id(ph)
                if k in distinct_phases:
                    shared_phases.add(k)
                else:
                    distinct_phases[k] = ph
                prev_ph = ph
            else:
                shared_phases.add(id(ph))
        deps = t.deps
        if deps:
            ndeps[i] = len(deps)
            if ti.__class__ is not int:  # (else the graph's own int object: no new one, 28 bytes, a task)
                ti = i
            for d in deps:
                if not 0 <= d < n or d == i:
                    raise ValueError(f"task {i}: bad dependency {d}")
                sd = succ[d]
                if sd is None:
                    succ[d] = ti
                elif sd.__class__ is int:
                    succ[d] = [sd, ti]
                else:
                    sd.append(ti)
    pool_count: dict[str, int] = {name: 0 for name in pool_specs}
    for p, m in Counter(pool_of).items():  # (counted in C)
        if p is not None:
            if p not in pool_count:
                raise ValueError(f"task {pool_of.index(p)}: unknown pool {p!r}")
            pool_count[p] = m

    # ------------------------------------------------------------------ flows
    # Classify resources (by declared name, templates included): a resource that
    # carries a multi-resource or capped flow is "general"; connected general
    # resources share one water-filling group.
    uf = _UnionFind()
    general_names: set[str] = set()
    for ph in distinct_phases.values():
        for p in ph:
            for f in p.flows:
                for r in f.resources:
                    if r not in specs:
                        raise ValueError(f"flow on undeclared resource {r!r} (phase {p.name!r})")
                if not _flow_is_simple(f, specs):
                    general_names.update(f.resources)
                    for r in f.resources[1:]:
                        uf.union(f.resources[0], r)
    del distinct_phases

    fluid = FluidSystem(env, None, record_utilisation)  # on_done set to part_done below
    groups: dict[str, GeneralGroup] = {}
    instances: dict[str, object] = {}  # instance name -> resource, in creation order

    def make_instance(template: str, node_name: str | None):
        spec = specs[template]
        name = template.replace(NODE, node_name) if node_name is not None else template
        if template in general_names:
            root = uf.find(template)
            grp = groups.get(root)
            if grp is None:
                grp = groups[root] = GeneralGroup(fluid)
            res = fluid.general(name, spec.capacity, grp, spec.per_flow_cap, spec.degrade_after, spec.degrade_exponent)
        else:
            res = fluid.ps(name, spec.capacity, spec.per_flow_cap, spec.degrade_after, spec.degrade_exponent)
        instances[name] = res
        return res

    fixed: dict[str, object] = {}
    for spec in graph.resources:
        if NODE not in spec.name:
            fixed[spec.name] = make_instance(spec.name, None)

    # A compiled phase: (overhead, cpu_duration, flow_groups, parts: flow groups + 1 if CPU work); the tuple of a
    # task's compiled phases ends with None.  A flow group is (kind, what, amount, weight, cap, timer): kind 0 =
    # fixed resource instance, 1 = node template name, 2 = several resources (tuple of (is_template,
    # name_or_instance)).
    compiled_cache: dict = {}
    in_lockstep: set[int] = set()  # ids of cached compiled phases a cohort can run (see _Running)

    last = [None, 0, None]  # memo of the last (phases, cores) -> compiled
    added: dict = {}  # (resources, cap, label) of a flow -> how_added(flow)

    def how_added(f):
        """(kind, what, cap, timer) of a flow: kind 0 = fixed processor-sharing or general resource instance
        ``what``, 1 = node template name ``what``, 2 = several resources or a cap that binds (``what`` a tuple of
        (is_template, name_or_instance)); ``cap`` None unless it can bind."""
        key = (f.resources, f.cap, f.label)
        how = added.get(key)
        if how is None:
            cap = None if _flow_is_simple(f, specs) else f.cap
            tk = timer(f.label) if timed_flows is not None else -1
            resources = f.resources
            if len(resources) == 1 and cap is None:
                r = resources[0]
                how = (1, r, None, tk) if NODE in r else (0, fixed[r], None, tk)
            else:
                how = (2, tuple((True, r) if NODE in r else (False, fixed[r]) for r in resources), cap, tk)
            if len(added) < 4096:  # (flows with a cap of their own each could make it grow with the graph)
                added[key] = how
        return how

    def compile_phases(phases, cores):
        if phases is last[0] and cores == last[1]:
            return last[2]
        shared = id(phases) in shared_phases
        if shared:
            key = (id(phases), cores)
            c = compiled_cache.get(key)
            if c is not None:
                last[0], last[1], last[2] = phases, cores, c
                return c
        out = []
        for p in phases:
            threads = p.threads
            if threads > cores:
                threads = cores
            if threads < 1:
                threads = 1
            cpu = p.cpu_seconds / threads if p.cpu_seconds > 0 else 0.0
            flows = p.flows
            if len(flows) == 1:  # (most phases: no merging)
                f = flows[0]
                if f.amount > 0:
                    how = added.get((f.resources, f.cap, f.label))
                    kind, what, cap, tk = how_added(f) if how is None else how
                    grps = ((kind, what, f.amount, 1, cap, tk),)
                else:
                    grps = ()
            else:
                merged: dict = {}  # identical flows (same resources, amount, cap and timer) -> how many
                for f in flows:
                    if f.amount > 0:
                        k = (how_added(f), f.amount)
                        merged[k] = merged.get(k, 0) + 1
                grps = tuple((kind, what, amount, w, cap, tk) for ((kind, what, cap, tk), amount), w in merged.items())
            ov = p.overhead_s
            if ov.__class__ is not float:
                ov = float(ov)
            out.append((ov, cpu, grps, len(grps) + 1 if cpu > 0.0 else len(grps)))
        out.append(None)  # (the end: part_done needs no len())
        c = tuple(out)
        if shared:  # a task's own phases are compiled once, when it starts, and not kept (nor memoised)
            compiled_cache[key] = c
            if (any(ov > 0.0 or cpu > 0.0 or grps for ov, cpu, grps, _ in c[:-1])
                    and all(g[0] == 0 and g[1].__class__ is PSResource for _, _, grps, _ in c[:-1] for g in grps)):
                in_lockstep.add(id(c))  # tasks started together with these phases can run as one cohort
            last[0], last[1], last[2] = phases, cores, c
        return c

    # ------------------------------------------------------------------ phases
    # A running task is a small state machine driven by part_done(rt, label): a
    # part (the overhead, the CPU work or a flow group) of its current phase is
    # over; when the last part of the phase ends, attribute the phase's time to
    # ``label`` and start the next phase(s).  rt.pending counts outstanding parts;
    # rt.in_ov says the pending part is the phase's overhead.
    heap = env.heap
    deferred = env.deferred
    seq = env.seq
    timers: dict[float, list] = {}  # CPU/overhead ends at exactly the same time share one event

    def fire_timers(t):
        for rt, label in timers.pop(t):
            part_done(rt, label)

    def part_done(rt, label):
        p = rt.pending - 1
        if p:
            rt.pending = p
            return
        now = env.now
        if rt.in_ov:
            rt.in_ov = False
            pi = rt.pi
            skip_ov = True
        else:
            if label is not None:
                dur = now - rt.t0
                if dur > 0.0:
                    a = rt.attr
                    if a is None:
                        rt.attr = {label: dur}
                    else:
                        a[label] = a.get(label, 0.0) + dur
            pi = rt.pi + 1
            skip_ov = False
        phases = rt.phases
        while True:
            ph = phases[pi]
            if ph is None:  # (compiled phases end with None)
                break
            ov, cpu, grps, pending = ph
            if ov > 0.0 and not skip_ov:
                a = rt.attr
                if a is None:
                    rt.attr = {_OVERHEAD: ov}
                else:
                    a[_OVERHEAD] = a.get(_OVERHEAD, 0.0) + ov
                rt.pi = pi
                rt.pending = 1
                rt.in_ov = True
                t = now + ov
                lst = timers.get(t)
                if lst is None:
                    timers[t] = [(rt, None)]
                    heappush(heap, (t, URGENT, next(seq), fire_timers, t))
                else:
                    lst.append((rt, None))
                return
            skip_ov = False
            if cpu > 0.0:
                t = now + cpu
                lst = timers.get(t)
                if lst is None:
                    timers[t] = [(rt, _CPU)]
                    heappush(heap, (t, URGENT, next(seq), fire_timers, t))
                else:
                    lst.append((rt, _CPU))
            if pending:
                rt.pi = pi
                rt.t0 = now
                rt.pending = pending
                copies = rt.copies
                for kind, what, amount, w, cap, tk in grps:
                    owner = rt if tk < 0 else _Timed(rt, tk)
                    if kind == 0:
                        if copies == 1:
                            what.add(amount, w, owner)
                        else:
                            what.add_copies(amount, w, owner, copies)
                    elif kind == 1:
                        node = rt.node
                        res = node.res.get(what)
                        if res is None:
                            res = node.res[what] = make_instance(what, node.name)
                        res.add(amount, w, owner)
                    else:
                        rs = []
                        node = rt.node
                        for is_tpl, x in what:
                            if is_tpl:
                                res = node.res.get(x)
                                if res is None:
                                    res = node.res[x] = make_instance(x, node.name)
                                rs.append(res)
                            else:
                                rs.append(x)
                        rs[0].group.add(tuple(rs), amount, w, cap, owner)
                return
            pi += 1
        task_end(rt)

    def timed_done(owner, label):
        """A flow group is done: when it is timed, count the time since its phase began into the task's timer
        (only the part beyond what earlier groups of that timer in the same phase counted)."""
        if owner.__class__ is not _Timed:
            part_done(owner, label)
            return
        rt, k = owner.rt, owner.k
        span = env.now - rt.t0
        marks = rt.marks
        if marks is None:
            marks = rt.marks = {}
        prev = marks.get(k)
        counted = prev[1] if prev is not None and prev[0] == rt.pi else 0.0
        if span > counted:
            col = timer_cols[k]
            if rt.ids is None:
                col[rt.i] += span - counted
            else:
                for i in rt.ids:
                    col[i] += span - counted
            marks[k] = (rt.pi, span)
        part_done(rt, label)

    fluid.on_done = part_done if timed_flows is None else timed_done

    done = 0
    step = max(1, min(-(-n // 100), PROGRESS_EVERY_TASKS))
    next_report = step

    pools: dict[str, object] = {}

    def task_end(rt):
        nonlocal done, next_report
        a = rt.attr
        best = ""
        if a is not None:
            if len(a) == 1:
                best = next(iter(a))
            else:
                bt = -1.0
                for k, v in a.items():
                    if v > bt:
                        best, bt = k, v
            if best.__class__ is not str:
                best = best.name
        now = env.now
        ids = rt.ids
        if ids is None:
            i = rt.i
            if a is not None:
                bound[i] = best
            rt.pool.release(rt.slot)
            ids = (i,)
        else:
            if a is not None:
                for i in ids:
                    bound[i] = best
            rt.pool.release_all(rt.slots)  # (nothing below looks at the pool until this instant's dispatch)
        for i in ids:  # finish(i, now), inlined; a cohort's tasks in the order they started, as one by one
            end_s[i] = now
            done += 1
            if progress is not None and done >= next_report:
                next_report = done + step
                progress(done, n)
            sj = succ[i]
            if sj is None:
                continue
            if sj.__class__ is int:
                k = ndeps[sj]
                if k > 1:
                    ndeps[sj] = k - 1
                    continue
                if pool_of[sj] is not None:
                    ndeps[sj] = 0
                    ready_s[sj] = now
                    pool_of[sj](sj)
                    continue
                sj = (sj,)
            finish_succ(sj, now)

    def finish(i, now):
        nonlocal done, next_report
        end_s[i] = now
        sj = succ[i]
        done += 1
        if progress is not None and done >= next_report:
            next_report = done + step
            progress(done, n)
        if sj is None:
            return
        if sj.__class__ is int:
            sj = (sj,)
        finish_succ(sj, now)

    def finish_succ(sj, now):
        """Count down the dependencies of successors ``sj`` of a task that ended at ``now``."""
        stack = None
        for s in sj:
            k = ndeps[s] - 1
            ndeps[s] = k
            if k == 0:
                ready_s[s] = now
                if pool_of[s] is None:
                    start_s[s] = now
                    if stack is None:
                        stack = [s]
                    else:
                        stack.append(s)
                else:
                    pool_of[s](s)
        while stack:  # barriers complete at once (iteratively: chains may be long)
            finish_barrier(stack.pop(), now, stack)

    def finish_barrier(i, now, stack):
        nonlocal done, next_report
        end_s[i] = now
        done += 1
        if progress is not None and done >= next_report:
            next_report = done + step
            progress(done, n)
        sj = succ[i]
        if sj is None:
            return
        if sj.__class__ is int:
            sj = (sj,)
        for s in sj:
            k = ndeps[s] - 1
            ndeps[s] = k
            if k == 0:
                ready_s[s] = now
                if pool_of[s] is None:
                    start_s[s] = now
                    stack.append(s)
                else:
                    pool_of[s](s)

    # ------------------------------------------------------------------ pools
    class SlotPool:
        __slots__ = (
            "spec", "nodes", "spn", "free", "busy", "queue", "pending", "pinned", "freed",
            "requested", "available", "released", "is_available", "remaining", "scheduled", "static",
            "running", "max_running", "busy_on", "since", "held", "touched", "per_job", "dispatch_entry",
        )

        def __init__(self, spec: PoolSpec, count: int):
            self.spec = spec
            self.nodes = [_Node(f"{spec.name}-{k}") for k in range(spec.nodes)]
            self.spn = spec.slots_per_node
            total = spec.nodes * spec.slots_per_node
            self.free = list(range(total))
            self.busy = [False] * total  # (kept for static pools only)
            self.queue: deque = deque()
            self.pending: list = []
            self.pinned: dict = {}
            self.freed: list = []
            self.requested = None
            self.available = None
            self.released = None
            self.is_available = False
            self.remaining = count
            self.scheduled = False
            self.static = spec.policy == "static"
            self.running = 0
            self.max_running = spec.max_running if spec.max_running else total
            self.busy_on = [0] * spec.nodes  # per_job: tasks running on each node, and since when it is held
            self.since = [0.0] * spec.nodes
            self.held: list = []  # per_job: (start, end) of each time a node was held
            self.touched = [False] * spec.nodes
            self.per_job = spec.per_job
            self.dispatch_entry = self.dispatch  # (one bound method for every dispatch)

        def enqueue(self, i):
            q = tasks[i].queue_s
            if q > 0.0:
                schedule(env.now + q, URGENT, self.arrive, i)
                if self.requested is None:
                    self.requested = env.now
                return
            self.arrive(i)

        def arrive(self, i):
            self.pending.append(i)
            if self.available is None:
                now = env.now
                if self.requested is None:
                    self.requested = now
                self.available = now + self.spec.queue_wait_s
                schedule(self.available, URGENT, self.become_available, None)
            elif self.is_available and not self.scheduled:
                self.scheduled = True
                env.defer(DISPATCH, self.dispatch, None)

        def become_available(self, _):
            self.is_available = True
            if not self.scheduled:
                self.scheduled = True
                env.defer(DISPATCH, self.dispatch, None)

        def dispatch(self, _):
            self.scheduled = False
            pending = self.pending
            queue = self.queue
            static = self.static
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
            if not (queue and free):
                return
            spn = self.spn
            nodes = self.nodes
            per_job = self.per_job
            max_running = self.max_running
            now = env.now
            running = self.running  # (written back before anything that could end a task runs)
            co = None  # the cohort being gathered (see _Running)
            while queue and free and running < max_running:
                s = heappop(free)
                if static:  # (only a static pool's pinned tasks take slots that stay in ``free``)
                    if busy[s]:
                        continue
                    busy[s] = True
                i = queue.popleft()
                running += 1
                start_s[i] = now
                k = s // spn
                if per_job:
                    if self.busy_on[k] == 0:
                        self.since[k] = now
                        self.touched[k] = True
                    self.busy_on[k] += 1
                node = nodes[k]
                node_of[i] = node.name
                t = tasks[i]
                c = t.phases
                if c is last[0] and t.cores == last[1]:
                    c = last[2]
                else:
                    c = compile_phases(c, t.cores)
                if co is not None:
                    if c is co.phases:
                        if co.ids is None:
                            co.ids = [co.i, i]
                            co.slots = [co.slot, s]
                        else:
                            co.ids.append(i)
                            co.slots.append(s)
                        continue
                    # start the cohort's first phase (its tasks cannot end at once: nothing frees a slot meanwhile)
                    if co.ids is not None:
                        co.copies = len(co.ids)
                    self.running = running
                    part_done(co, None)
                    running = self.running
                    co = None
                rt = _Running(i, c, node, s, self)
                if id(c) in in_lockstep:
                    co = rt
                else:
                    self.running = running
                    part_done(rt, None)
                    running = self.running
            self.running = running
            if co is not None:
                if co.ids is not None:
                    co.copies = len(co.ids)
                part_done(co, None)

        def start(self, i, s):
            self.busy[s] = True
            self.running += 1
            now = env.now
            start_s[i] = now
            k = s // self.spn
            if self.per_job:
                if self.busy_on[k] == 0:
                    self.since[k] = now
                    self.touched[k] = True
                self.busy_on[k] += 1
            node = self.nodes[k]
            node_of[i] = node.name
            t = tasks[i]
            part_done(_Running(i, compile_phases(t.phases, t.cores), node, s, self), None)

        def release(self, s):
            if self.static:
                self.busy[s] = False
            self.running -= 1
            if self.per_job:  # (nodes' busy spans: only per_job billing needs them)
                k = s // self.spn
                b = self.busy_on[k] - 1
                self.busy_on[k] = b
                if b == 0:
                    self.held.append((self.since[k], env.now))
            heappush(self.free, s)
            if self.static and self.pinned:
                self.freed.append(s)
            r = self.remaining - 1
            self.remaining = r
            if r == 0:
                self.released = env.now
            if not self.scheduled:
                self.scheduled = True
                heappush(deferred, (DISPATCH, next(seq), self.dispatch_entry, None))  # env.defer, inlined

        def release_all(self, slots):
            """:meth:`release` of every slot of ``slots``, in that order."""
            if self.per_job or self.static:
                for s in slots:
                    self.release(s)
                return
            free = self.free
            for s in slots:
                heappush(free, s)
            m = len(slots)
            self.running -= m
            r = self.remaining - m
            self.remaining = r
            if r == 0:
                self.released = env.now
            if not self.scheduled:
                self.scheduled = True
                heappush(deferred, (DISPATCH, next(seq), self.dispatch_entry, None))  # env.defer, inlined

        def record(self) -> PoolRecord:
            spec = self.spec
            if self.requested is None:
                return PoolRecord(spec.name, 0.0, 0.0, 0.0, spec.nodes, 0.0)
            rel = self.released if self.released is not None else env.now
            if spec.per_job:
                held = tuple(self.held)
                used = sum(self.touched)
                return PoolRecord(spec.name, self.requested, self.available if self.available is not None else rel,
                                  rel, used, sum(b - a for a, b in held), held)
            return PoolRecord(spec.name, self.requested, self.available, rel, spec.nodes,
                              spec.nodes * max(0.0, rel - self.available))

    class ElasticPool:
        __slots__ = ("spec", "queue", "pending", "alive", "peak", "next_launch", "instances", "requested",
                     "available", "released", "remaining", "scheduled", "wake_at")

        def __init__(self, spec: PoolSpec, count: int):
            self.spec = spec
            self.queue: deque = deque()
            self.pending: list = []
            self.alive = 0
            self.peak = 0
            self.next_launch = -inf
            self.instances: list = []  # [launch, release]
            self.requested = None
            self.available = None
            self.released = None
            self.remaining = count
            self.scheduled = False
            self.wake_at = None

        def enqueue(self, i):
            self.pending.append(i)
            if self.requested is None:
                self.requested = env.now
            if not self.scheduled:
                self.scheduled = True
                env.defer(DISPATCH, self.dispatch, None)

        def dispatch(self, _):
            self.scheduled = False
            now = env.now
            if self.wake_at is not None and self.wake_at <= now:
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
                        schedule(self.next_launch, DISPATCH, self.wake, None)
                    break
                i = queue.popleft()
                k = len(self.instances)
                self.instances.append([now, None])
                self.alive += 1
                if self.alive > self.peak:
                    self.peak = self.alive
                self.next_launch = now + spec.launch_interval_s
                if spec.boot_s > 0:
                    schedule(now + spec.boot_s, URGENT, self.boot, (i, k))
                else:
                    self.boot((i, k))

        def wake(self, _):
            self.wake_at = None
            if not self.scheduled:
                self.dispatch(None)

        def boot(self, arg):
            i, k = arg
            now = env.now
            if self.available is None:
                self.available = now
            start_s[i] = now
            node = _Node(f"{self.spec.name}-{k}")
            node_of[i] = node.name
            t = tasks[i]
            part_done(_Running(i, compile_phases(t.phases, t.cores), node, k, self), None)

        def release(self, k):
            now = env.now
            self.instances[k][1] = now
            self.alive -= 1
            self.remaining -= 1
            if self.remaining == 0:
                self.released = now
            if (self.queue or self.pending) and not self.scheduled:
                self.scheduled = True
                env.defer(DISPATCH, self.dispatch, None)

        def record(self) -> PoolRecord:
            spec = self.spec
            if self.requested is None:
                return PoolRecord(spec.name, 0.0, 0.0, 0.0, 0, 0.0)
            inst = tuple((a, b if b is not None else env.now) for a, b in self.instances)
            rel = self.released if self.released is not None else env.now
            avail = self.available if self.available is not None else rel
            return PoolRecord(spec.name, self.requested, avail, rel, self.peak,
                              sum(b - a for a, b in inst), inst)

    for name, spec in pool_specs.items():
        if spec.policy == "elastic":
            pools[name] = ElasticPool(spec, pool_count[name])
        else:
            pools[name] = SlotPool(spec, pool_count[name])
            if spec.policy == "static":
                total = spec.nodes * spec.slots_per_node
                for t in tasks:
                    if t.pool == name and t.slot is not None and not 0 <= t.slot < total:
                        raise ValueError(f"task {t.id}: slot {t.slot} outside pool {name!r} (0..{total - 1})")
    # a ready task joins its pool's queue at once unless the pool has tasks with queue waits of their own
    joins = {name: pool.enqueue if name in delayed or pool.__class__ is ElasticPool else pool.arrive
             for name, pool in pools.items()}
    for i, p in enumerate(pool_of):  # in place: no second list of n
        if p is not None:
            pool_of[i] = joins[p]

    # ------------------------------------------------------------------ run
    for i in [i for i in range(n) if ndeps[i] == 0]:  # roots, before finishing any changes ndeps
        if pool_of[i] is None:
            start_s[i] = 0.0
            finish(i, 0.0)
        else:
            pool_of[i](i)
    env.run()
    if done != n:
        stuck = [i for i in range(n) if ndeps[i] > 0][:10]
        raise SimulationError(f"{n - done} tasks never ran (dependency cycle?), e.g. {stuck}")
    if progress is not None and next_report - step < n:
        progress(n, n)

    makespan = max(end_s) if n else 0.0
    records = TaskRecords(tasks, node_of, ready_s, start_s, end_s, bound)
    util: dict = {}
    moved: dict = {}
    for name, res in instances.items():
        moved[name] = res.moved
        if record_utilisation:
            util[name] = decimate(res.ut_t, res.ut_r, makespan, max_utilisation_points)
    return RunResult(
        makespan_s=makespan,
        tasks=records,
        pools=tuple(pools[name].record() for name in pool_specs),
        utilisation=util,
        moved=moved,
        events=env.events,
        flow_seconds=dict(zip(timer_names, timer_cols, strict=True)),
    )
