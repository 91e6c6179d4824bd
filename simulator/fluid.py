"""Fluid resources shared max-min fairly by the flows active on them.

Two implementations behind one small interface (``add`` a flow, get called back
with ``on_done(owner, resource)`` when it has moved its amount):

* :class:`PSResource`, the fast path, for a resource whose flows each cross only
  that resource and carry no cap of their own.  All its flows then get the same
  rate ``min(per_flow_cap, capacity(n) / n)`` (processor sharing), so the resource
  only tracks the cumulative service ``V(t)`` one flow has received; a flow that
  needs ``x`` finishes when ``V`` reaches ``V_start + x``.  Flows wait in a heap of
  finish virtual times (plain floats, each once, mapped to their flows): adding or
  finishing a flow is O(log n), whatever the number of active flows.  Degradation and per-flow caps of the resource keep the
  rates equal, so they stay on this path.
* :class:`GeneralResource` grouped in a :class:`GeneralGroup`, for resources that
  carry multi-resource flows or flows with their own cap.  Every change at an
  instant triggers one progressive-filling (water-filling) pass over the group.
  Flows crossing the same resources with the same cap always get the same rate, so
  the group keeps them as one *class* (like a :class:`PSResource`: the service
  ``V(t)`` one unit of weight of the class has received and a heap of finish
  points); the pass is over classes, O(classes x bottlenecks), and finishing a
  flow pops it from its class's heap.

A flow has a ``weight``: ``w`` identical flows starting together on the same
resource are one entry of weight ``w`` (they get ``w`` shares and finish
together), which is exact and keeps "eight separate reads" cheap.

Degradation: with ``n`` (weighted) flows active and ``n > degrade_after`` the
aggregate capacity is ``capacity * (degrade_after / n) ** degrade_exponent``.

Rates are recomputed once per instant: changes mark a resource dirty and a single
end-of-instant call (:meth:`~simulator.core.Environment.at_end`, after every
completion and dispatch at that instant) recomputes them.  Each resource keeps one
pending completion wake-up; wake-ups made stale by a later change are dropped in O(1).

Utilisation is recorded as a step function (only at changes) in two
``array('d')`` per resource; :func:`decimate` reduces it to a bounded number of
points while preserving the area (the units moved).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from itertools import count, islice
from math import inf
from operator import mul, sub
from typing import Any, Final, final

from .core import URGENT, Environment, heappop, heappush, next_

__all__ = [
    "FluidSystem",
    "PSResource",
    "GeneralResource",
    "GeneralGroup",
    "effective_capacity",
    "max_min_fair",
    "decimate",
]

#: A flow within this many seconds of finishing is finished (float rounding).  So is one whose finish time,
#: added to the clock, rounds to the clock: late in a long run (the clock past 2**23 s, where its resolution is
#: coarser than this) it could otherwise be woken at the same instant for ever.
TIME_EPS: Final = 1e-9

_NONE_DUE: Final[list[Any]] = []  # (never changed)


def effective_capacity(capacity: float, n: float, degrade_after: float | None, exponent: float) -> float:
    """Aggregate capacity of a resource with ``n`` active flows (degradation applied)."""
    if degrade_after is not None and n > degrade_after and exponent:
        return capacity * (degrade_after / n) ** exponent
    return capacity


@final
class FluidSystem:
    """The fluid resources of a run, their flow sequence numbers and their once-per-instant flushes.

    ``on_done(owner, resource)`` is called when a flow added with ``owner`` is done.  A resource changed at an
    instant registers its ``flush`` for the end of that instant (:meth:`mark`; the resources changed at one instant
    are flushed in the order they changed, one after the other).
    """

    __slots__ = ("env", "on_done", "record", "seq", "resources")

    def __init__(self, env: Environment, on_done: Callable[[Any, Any], Any] | None,
                 record_utilisation: object = True) -> None:
        self.env = env
        self.on_done: Any = on_done  # (set by the runner once it has made its callbacks)
        self.record = bool(record_utilisation)  # (any truth value)
        self.seq: Iterator[int] = count()
        self.resources: list[PSResource | GeneralResource] = []

    def mark(self, res: Any) -> None:
        """Flush ``res`` at the end of the current instant (call it once an instant: its first change)."""
        self.env.ending.append(res.flush)

    def ps(self, name: str, capacity: float, per_flow_cap: float | None = None,
           degrade_after: float | None = None, degrade_exponent: float = 0.0) -> PSResource:
        res = PSResource(self, name, capacity, per_flow_cap, degrade_after, degrade_exponent)
        self.resources.append(res)
        return res

    def general(self, name: str, capacity: float, group: Any, per_flow_cap: float | None = None,
                degrade_after: float | None = None, degrade_exponent: float = 0.0) -> GeneralResource:
        res = GeneralResource(name, capacity, group, per_flow_cap, degrade_after, degrade_exponent)
        self.resources.append(res)
        return res


@final
class PSResource:
    """Equal sharing among single-resource, uncapped flows, by virtual time (O(log n))."""

    __slots__ = (
        "sys", "env", "name", "capacity", "per_flow_cap", "degrade_after", "degrade_exponent",
        "V", "t", "n", "rate", "heap", "due", "more", "batch", "dirty", "next_t", "moved", "ut_t", "ut_r",
        "last_u", "_wake", "_flush",
    )

    def __init__(self, sys: FluidSystem, name: str, capacity: float, per_flow_cap: float | None,
                 degrade_after: float | None, degrade_exponent: float) -> None:
        if not capacity > 0:
            raise ValueError(f"resource {name!r}: capacity must be > 0, got {capacity!r}")
        self.sys = sys
        self.env: Environment = sys.env
        self.name = name
        self.capacity: float = float(capacity)
        self.per_flow_cap = per_flow_cap
        self.degrade_after: float | None = degrade_after if degrade_exponent else None
        self.degrade_exponent = degrade_exponent
        self.V: float = 0.0  # service one (unit-weight) flow has received since the resource was last idle
        self.t: float = 0.0  # time V refers to
        self.n: int = 0  # weighted number of active flows
        self.rate: float = 0.0  # current rate of one unit-weight flow
        # Flows by finish point: ``heap`` holds each finish V once (floats compare faster than entries), ``due``
        # maps it to the first entry [owners..., total weight] (one list) made with it and ``more`` to the later
        # ones (rare:
        # another amount or start giving the same float), in the order they were made, i.e. the order flows
        # finishing together are reported in (by finish point, then entry, then owner).
        self.heap: list[float] = []
        self.due: dict[float, list[Any]] = {}
        self.more: dict[float, list[list[Any]]] = {}
        self.batch: dict[float, list[Any]] = {}  # amount -> entry, for flows started at the current V
        self.dirty: bool = False
        self.next_t: float = -1.0
        self.moved: float = 0.0
        self.ut_t: array[float] = array("d")
        self.ut_r: array[float] = array("d")
        self.last_u: float = 0.0
        # (one bound method for every wake-up, and one for every flush)
        self._wake: Callable[[Any], None] = self.complete
        self._flush: Callable[[], None] = self.flush

    def add(self, amount: float, weight: int, owner: Any) -> None:
        """Start ``weight`` identical flows of ``amount`` units each, now.

        Flows of the same amount started at the same virtual time finish together,
        so they share one heap entry (one push and one pop for all of them).
        """
        if self.dirty:
            batch = self.batch
        else:
            now = self.env.now
            if self.n:
                self.V += self.rate * (now - self.t)
            self.t = now
            self.dirty = True
            batch = self.batch = {}
            self.env.ending.append(self._flush)  # self.sys.mark(self), inlined
        entry = batch.get(amount)
        if entry is None:
            entry = batch[amount] = [owner, weight]
            fin = self.V + amount
            first = self.due.setdefault(fin, entry)
            if first is entry:
                heappush(self.heap, fin)
            else:
                self.more.setdefault(fin, []).append(entry)
        else:
            w: int = entry[-1]
            entry[-1] = owner
            entry.append(w + weight)
        self.n += weight
        self.moved += amount * weight

    def add_copies(self, amount: float, weight: int, owner: Any, copies: int) -> None:
        """:meth:`add` called ``copies`` times in a row with the same arguments, reported once to ``owner``.

        The same heap entry, weights and units moved (summed one copy at a time, as the calls would) as the
        calls; ``owner`` stands for all the copies (a cohort of tasks in lockstep, see the runner).
        """
        moved = self.moved
        self.add(amount, weight * copies, owner)
        aw = amount * weight
        for _ in range(copies):
            moved += aw
        self.moved = moved

    def flush(self) -> None:
        """Recompute the rate after this instant's changes and schedule the next completion."""
        self.dirty = False
        n = self.n
        now = self.env.now
        if n == 0:
            self.rate = 0.0
            self.V = 0.0
            self.next_t = -1.0
            u = 0.0
        else:
            c = self.capacity
            da = self.degrade_after
            if da is not None and n > da:
                c *= (da / n) ** self.degrade_exponent
            r = c / n
            pfc = self.per_flow_cap
            if pfc is not None and r > pfc:
                r = pfc
            self.rate = r
            u = r * n
            fin: float = self.heap[0]
            tn = now + (fin - self.V) / r
            if tn != self.next_t:
                self.next_t = tn
                env = self.env
                heappush(env.heap, (tn, URGENT, next_(env.seq), self._wake, None))
        if u != self.last_u and self.sys.record:
            self.last_u = u
            ut_t = self.ut_t
            if ut_t and ut_t[-1] == now:
                self.ut_r[-1] = u
            else:
                ut_t.append(now)
                self.ut_r.append(u)

    def complete(self, _arg: Any = None) -> None:
        """Wake-up at the predicted finish of the first flow: finish every due flow."""
        env = self.env
        now = env.now
        if now != self.next_t:
            return  # superseded by a later change
        self.next_t = -1.0
        r = self.rate
        V = self.V + r * (now - self.t)
        self.t = now
        self.V = V
        limit = V + r * TIME_EPS + abs(V) * 1e-13
        heap = self.heap
        due = self.due
        more = self.more
        n = self.n
        done = _NONE_DUE
        fin: float  # (compiled: C doubles and ints, not objects)
        w: int
        if heap:
            fin = heap[0]
            if fin <= limit or now + (fin - V) / r <= now:
                # (an entry leaves ``due`` and the batch when it is due: its list becomes the list of owners done)
                done = due.pop(heappop(heap))
                w = done.pop()
                n -= w
                if more and fin in more:
                    for item in more.pop(fin):
                        w = item.pop()
                        n -= w
                        done += item
                if heap:
                    fin = heap[0]
                    if fin <= limit or now + (fin - V) / r <= now:
                        while True:
                            item = due.pop(heappop(heap))
                            w = item.pop()
                            n -= w
                            done += item
                            if more and fin in more:
                                for item in more.pop(fin):
                                    w = item.pop()
                                    n -= w
                                    done += item
                            if not heap:
                                break
                            fin = heap[0]
                            if not (fin <= limit or now + (fin - V) / r <= now):
                                break
        self.n = n
        if not self.dirty:
            self.dirty = True
            env.ending.append(self._flush)  # self.sys.mark(self), inlined
        self.batch = {}  # V moved on: later flows cannot join earlier entries
        on_done = self.sys.on_done
        for owner in done:
            on_done(owner, self)

    def utilisation(self) -> tuple[array[float], array[float]]:
        return self.ut_t, self.ut_r


@final
class GeneralResource:
    """A resource whose flows are allocated by water-filling within its group."""

    __slots__ = (
        "name", "capacity", "per_flow_cap", "degrade_after", "degrade_exponent", "group",
        "moved", "ut_t", "ut_r", "last_u", "_n", "_cap", "_unf", "_used", "_holders", "_priv",
    )

    def __init__(self, name: str, capacity: float, group: Any, per_flow_cap: float | None,
                 degrade_after: float | None, degrade_exponent: float) -> None:
        if not capacity > 0:
            raise ValueError(f"resource {name!r}: capacity must be > 0, got {capacity!r}")
        self.name = name
        self.capacity: float = float(capacity)
        self.per_flow_cap = per_flow_cap
        self.degrade_after: float | None = degrade_after if degrade_exponent else None
        self.degrade_exponent = degrade_exponent
        self.group: Any = group  # a GeneralGroup (or anything with its add, flush and complete)
        self.moved: float = 0.0
        self.ut_t: array[float] = array("d")
        self.ut_r: array[float] = array("d")
        self.last_u: float = 0.0
        self._n: int = 0
        self._cap: float = 0.0
        self._unf: int = 0
        self._used: float = 0.0
        self._holders: int = 0  # flows (group members) on this resource now
        # (class, member) of the member crossing it alone, when folded into that member's cap
        self._priv: tuple[_FlowClass, list[Any]] | None = None

    def add(self, amount: float, weight: int, owner: Any) -> None:
        """Start ``weight`` identical single-resource flows of ``amount`` (no own cap)."""
        self.group.add((self,), amount, weight, None, owner)

    def utilisation(self) -> tuple[array[float], array[float]]:
        return self.ut_t, self.ut_r


#: the label of a class frozen at the share of a resource each of its flows crosses alone (each names its own)
PRIVATE: Final = object()


def _water_fill(flows: list[_FlowClass], resources: list[GeneralResource]) -> None:
    """Progressive filling: set ``rate`` (per unit of weight) and ``label`` of every flow.

    ``flows`` are :class:`_FlowClass` (each is filled as one flow of its ``weight``, across ``res``, capped at
    ``cap``).  ``label`` is the bottleneck resource, or ``None`` when the flow's own cap
    froze it (it is then labelled by its first resource).  A flow of ``kind`` 1 stands for flows whose ``cap`` is
    the share of a resource each crosses alone (left out of ``res``): it is frozen at that cap as that resource
    would be, losing a tie to an own cap and to a shared resource, and labelled :data:`PRIVATE`.

    Repeatedly find the lowest level at which either a resource saturates (its
    remaining capacity shared by its unfrozen flows) or a flow reaches its cap,
    and freeze the flows concerned at that level.  ``resources`` order breaks ties
    between resources saturating at the same level (the first one is the
    bottleneck); a cap reached at that level wins over them.  ``flows`` order only
    decides the order of the subtractions from the resources' remaining capacity.
    """
    for r in resources:
        r._n = 0
        r._used = 0.0
    for f in flows:
        w = f.weight
        for r in f.res:
            r._n += w
    for r in resources:
        n = r._n
        r._unf = n
        c = r.capacity
        da = r.degrade_after
        if da is not None and n > da:
            c *= (da / n) ** r.degrade_exponent
        r._cap = c
    active = list(flows)
    res_list = [r for r in resources if r._n]
    while active:
        level = inf
        bott = None
        for r in res_list:
            if r._unf > 0:
                s = r._cap / r._unf
                if s < level:
                    level = s
                    bott = r
        fcap = inf
        pcap = inf
        for f in active:
            if f.kind:
                if f.cap < pcap:
                    pcap = f.cap
            elif f.cap < fcap:
                fcap = f.cap
        label: object
        if fcap <= level and fcap <= pcap:
            level = fcap
            frozen = [f for f in active if f.cap <= level and not f.kind]
            label = None  # each labelled by its first resource
        elif pcap < level:  # a resource of the flows' own saturates first
            level = pcap
            frozen = [f for f in active if f.cap <= level and f.kind]
            label = PRIVATE
        else:
            frozen = [f for f in active if bott in f.res]
            label = bott
        if level < 0.0:
            level = 0.0
        for f in frozen:
            f.rate = level
            f.label = label
            w = f.weight
            use = level * w
            for r in f.res:
                r._cap -= use
                r._unf -= w
                r._used += use
        if len(frozen) == len(active):
            break  # all frozen (often at the first step)
        fs = set(map(id, frozen))
        active = [f for f in active if id(f) not in fs]


#: :func:`_fill_capped` applies when every resource keeps at least this fraction of its capacity unused with every
#: flow at its cap (far more than the rounding of the remaining capacities in :func:`_water_fill`, so that no resource
#: can saturate there either)
CAPPED_MARGIN: Final = 1e-9


def _fill_capped(flows: list[_FlowClass], resources: list[GeneralResource]) -> bool:
    """:func:`_water_fill` when every flow ends at its own cap: when each resource can carry all its flows at their
    caps with room to spare (:data:`CAPPED_MARGIN`), every step of the general fill freezes the flows at the lowest
    cap (own caps before private ones at equal caps, each set in flow order), so the rates, labels and resource sums
    are set here in that order in one pass.  False, having changed no flow, when a resource could saturate."""
    for r in resources:
        r._n = 0
        r._used = 0.0
        r._cap = 0.0  # here: what the flows crossing it would take at their caps
    for f in flows:
        w = f.weight
        take = f.cap * w
        for r in f.res:
            r._n += w
            r._cap += take
    for r in resources:
        n = r._n
        if n:
            c = r.capacity
            da = r.degrade_after
            if da is not None and n > da:
                c *= (da / n) ** r.degrade_exponent
            if not r._cap <= c * (1.0 - CAPPED_MARGIN):  # (an uncapped flow takes inf)
                return False
    order = sorted(range(len(flows)), key=lambda i: (flows[i].cap, flows[i].kind, i))
    for i in order:
        f = flows[i]
        level = f.cap
        if level < 0.0:
            level = 0.0
        f.rate = level
        f.label = PRIVATE if f.kind else None
        use = level * f.weight
        for r in f.res:
            r._used += use
    return True


def _fill_one(f: _FlowClass, resources: list[GeneralResource]) -> bool:
    """:func:`_water_fill` of a single flow (or class) ``f`` in one pass: the same rate, label and ``_n``/``_used``
    of every resource (most fills of a group are of one class).  False, having changed nothing of ``f``, in the one
    case :func:`_water_fill` must be asked (a private-cap class with no cap and no shared resource)."""
    for r in resources:
        r._n = 0
        r._used = 0.0
    w = f.weight
    fres = f.res
    for r in fres:
        r._n += w
    level = inf
    bott = None
    for r in resources:  # the first resource at the lowest share is the bottleneck, as in the general fill
        n = r._n
        if n:
            c = r.capacity
            da = r.degrade_after
            if da is not None and n > da:
                c *= (da / n) ** r.degrade_exponent
            s = c / n
            if s < level:
                level = s
                bott = r
    cap = f.cap
    label: object
    if not f.kind:
        if cap <= level:
            level = cap
            label = None
        else:
            label = bott
    elif cap < level:
        level = cap
        label = PRIVATE
    elif bott is None:
        return False
    else:
        label = bott
    if level < 0.0:
        level = 0.0
    f.rate = level
    f.label = label
    use = level * w
    for r in fres:
        r._used += use
    return True


def max_min_fair(capacities: dict[str, float], flows: Sequence[tuple[Sequence[str], float | None]]) -> list[float]:
    """Max-min fair rates of ``flows`` (``(resource names, cap or None)``) over ``capacities``.

    A pure helper (no degradation, unit weights) exposing the allocation rule.
    """
    dummy = GeneralGroup(FluidSystem(Environment(), None, False))  # (never flushed)
    res = {name: GeneralResource(name, cap, dummy, None, None, 0.0) for name, cap in capacities.items()}
    gf = []
    for i, (names, cap) in enumerate(flows):
        f = _FlowClass((i,), tuple(res[n] for n in names), inf if cap is None else float(cap), 0)
        f.weight = 1
        gf.append(f)
    _water_fill(gf, list(res.values()))
    return [f.rate for f in gf]


def _record(r: Any, t: float, u: float) -> None:
    """Record that ``r`` is in use at rate ``u`` from ``t`` (a step only at a change; a later step at ``t`` wins)."""
    if u != r.last_u:
        r.last_u = u
        ut_t = r.ut_t
        if ut_t and ut_t[-1] == t:
            r.ut_r[-1] = u
        else:
            ut_t.append(t)
            r.ut_r.append(u)


# a member of a class: [finish V, seq, weight, owner, resources, own resources, joined at, alive, own cap]
_FIN: Final = 0
_SEQ: Final = 1
_W: Final = 2
_OWNER: Final = 3
_RES: Final = 4
_PRIVS: Final = 5
_T0: Final = 6
_ALIVE: Final = 7
_OWNCAP: Final = 8


@final
class _FlowClass:
    """The flows of a :class:`GeneralGroup` crossing the same shared resources with the same cap.

    Water-filling freezes such flows together (the frozen set of a step is every
    flow whose cap is reached, or every flow crossing the bottleneck resource), so
    they always share one rate and one label: the class is filled as one flow of
    their total ``weight``.  ``V`` is the service one unit of weight of the class
    has received since the class was made; a member needing ``x`` more when it
    joins at ``V0`` finishes when ``V`` reaches ``V0 + x``.  ``heap`` holds the
    members (lists, see ``_FIN`` ...), by finish point.

    A resource that one member alone crosses (a node's NIC under a shared tier)
    gives that member at most ``capacity(w) / w`` and constrains nothing else: it
    is left out of ``res`` and acts as a cap.  ``kind`` 1 says the class's cap is
    such a share (it saturates as a resource would: ties go to own caps and shared
    resources, and each member is labelled by its own resource); members on
    different nodes then share one class.  ``ht``/``hr`` record the class's rate at
    its changes: the utilisation of those resources is written from them when their
    member leaves.
    """

    __slots__ = ("key", "res", "cap", "kind", "weight", "rate", "label", "V", "heap", "ht", "hr", "owning")

    def __init__(self, key: tuple[Any, ...], res: tuple[GeneralResource, ...], cap: float, kind: int) -> None:
        self.key = key
        self.res = res
        self.cap = cap
        self.kind = kind
        self.weight: int = 0
        self.rate: float = 0.0
        self.label: object = None
        self.V: float = 0.0
        self.heap: list[list[Any]] = []
        self.ht: array[float] = array("d")
        self.hr: array[float] = array("d")
        self.owning: int = 0  # members with own resources (the rate history is kept while there are any)


@final
class GeneralGroup:
    """Resources allocated together by water-filling (a connected set of resources).

    Flows are kept in classes (:class:`_FlowClass`, keyed by shared resources, cap
    and kind), in the order the classes were made.  Water-filling over classes
    instead of flows gives the same rates and labels: which flows a step freezes,
    the level and the bottleneck it picks depend on the flows' caps and resources
    and on the resources' order, never on the order of the flows (that order only
    changes the order in which a step's frozen flows are subtracted from their
    resources' remaining capacity, i.e. the last bits of those sums).  A resource
    crossed by one flow alone is that flow's cap (see :class:`_FlowClass`): on a
    shared tier with a NIC per node the group fills a few classes, not one per
    node.  When a second flow comes to such a resource, the first moves to the
    class of all its resources.  Flows finishing at the same instant are reported
    in the order they were added, as when they were kept in one list.
    """

    __slots__ = ("sys", "env", "classes", "t", "dirty", "next_t", "resources", "left", "_seq")

    def __init__(self, sys: FluidSystem) -> None:
        self.sys = sys
        self.env = sys.env
        self.classes: dict[tuple, _FlowClass] = {}  # key -> class with members, in creation order
        self.left: list[GeneralResource] = []  # own resources whose member left at this instant
        self.t: float = 0.0
        self.dirty: bool = False
        self.next_t: float = -1.0
        self.resources: dict[GeneralResource, None] = {}  # shared, used since the last flush, in first-use order
        self._seq: Iterator[int] = sys.seq

    def _advance(self, now: float) -> None:
        dt = now - self.t
        if dt:
            for c in self.classes.values():
                c.V += c.rate * dt
        self.t = now

    def _class(self, res: tuple[GeneralResource, ...], cap: float, kind: int) -> _FlowClass:
        key = (res, cap, kind)
        cls = self.classes.get(key)
        if cls is None:
            cls = self.classes[key] = _FlowClass(key, res, cap, kind)
        return cls

    def add(self, res: tuple[GeneralResource, ...], amount: float, weight: int, cap: float | None, owner: Any) -> None:
        """Start ``weight`` identical flows of ``amount`` across ``res`` (all constrain them)."""
        now = self.env.now
        if not self.dirty:
            self._advance(now)
            self.dirty = True
            self.sys.mark(self)
        c = inf
        if cap is not None:
            c = cap
        for r in res:
            if r.per_flow_cap is not None and r.per_flow_cap < c:
                c = r.per_flow_cap
            r.moved += amount * weight
        own = c
        kind = 0
        privs: list[GeneralResource] = []
        shared: tuple[GeneralResource, ...]
        if len(res) == 1 or len(set(res)) == len(res):
            privs = [r for r in res if r._holders == 0]
        if privs:
            sh = []
            for r in res:
                if r._holders:
                    if r._priv is not None:
                        self._unfold(r._priv, now)
                    sh.append(r)
                    self.resources[r] = None
                r._holders += 1
            for r in privs:
                share = r.capacity
                da = r.degrade_after
                if da is not None and weight > da:
                    share *= (da / weight) ** r.degrade_exponent
                share /= weight
                if share < c:
                    c = share
                    kind = 1
                    if privs[0] is not r:  # the resource that binds first
                        privs.remove(r)
                        privs.insert(0, r)
            shared = tuple(sh)
        else:
            for r in res:
                if r._priv is not None:
                    self._unfold(r._priv, now)
                self.resources[r] = None
                r._holders += 1
            shared = res
        cls = self._class(shared, c, kind)
        cls.weight += weight
        member = [cls.V + amount, next_(self._seq), weight, owner, res, privs, now, True, own]
        if privs:
            cls.owning += 1
            held = (cls, member)
            for r in privs:
                r._priv = held
        heappush(cls.heap, member)

    def _write_private(self, cls: _FlowClass, member: list, now: float, leaving: bool) -> None:
        """Record the utilisation of the member's own resources from its class's rates since it joined (when it
        leaves, the flush at this instant records them idle unless another flow took them)."""
        privs = member[_PRIVS]
        if self.sys.record:
            ht, hr, w = cls.ht, cls.hr, member[_W]
            t0 = member[_T0]
            i = bisect_right(ht, t0) - 1  # the rate in force at t0
            j = bisect_right(ht, now)
            for r in privs:
                k = 0
                if i >= 0:
                    _record(r, t0, hr[i] * w)
                    k = i + 1
                if k < j:  # later steps: distinct times and rates
                    r.ut_t.extend(ht[k:j])
                    r.ut_r.extend(hr[k:j] if w == 1 else array("d", map(float(w).__mul__, hr[k:j])))
                    r.last_u = r.ut_r[-1]
                if leaving:
                    self.left.append(r)
        for r in privs:
            r._priv = None
        if privs:
            cls.owning -= 1
        member[_PRIVS] = ()

    def _unfold(self, held: tuple, now: float) -> None:
        """A second flow comes to a resource a member crosses alone: move that member to the class of all its
        resources (its other own resources are then filled as shared ones too)."""
        cls, member = held
        self._write_private(cls, member, now, False)
        member[_ALIVE] = False  # left in the old class's heap, skipped there
        cls.weight -= member[_W]
        heap = cls.heap
        while heap and not heap[0][_ALIVE]:
            heappop(heap)
        if not heap:
            del self.classes[cls.key]
        res = member[_RES]
        for r in res:
            self.resources[r] = None
        new = self._class(res, member[_OWNCAP], 0)
        new.weight += member[_W]
        heappush(new.heap, [new.V + (member[_FIN] - cls.V), member[_SEQ], member[_W], member[_OWNER], res, (), now,
                            True, member[_OWNCAP]])

    def flush(self) -> None:
        self.dirty = False
        now = self.env.now
        classes = self.classes.values()
        resources = list(self.resources)
        if len(self.classes) == 1:
            if not _fill_one(next(iter(classes)), resources):
                _water_fill(list(classes), resources)
        else:
            fill = list(classes)
            if not _fill_capped(fill, resources):
                _water_fill(fill, resources)
        if self.sys.record:
            if self.left:
                for r in self.left:
                    if not r._holders:
                        _record(r, now, 0.0)
                self.left = []
            for r in resources:
                u = r._used
                if u != r.last_u and r._priv is None:  # (one a flow took alone at this instant is written later)
                    r.last_u = u
                    if r.ut_t and r.ut_t[-1] == now:
                        r.ut_r[-1] = u
                    else:
                        r.ut_t.append(now)
                        r.ut_r.append(u)
            for c in classes:  # the rates members' own resources are written from
                if not c.owning:
                    continue
                ht = c.ht
                rate = c.rate
                if not ht:
                    ht.append(now)
                    c.hr.append(rate)
                elif c.hr[-1] != rate:
                    if ht[-1] == now:
                        c.hr[-1] = rate
                    else:
                        ht.append(now)
                        c.hr.append(rate)
        # forget idle resources (they were just recorded at 0)
        self.resources = {r: None for r in resources if r._n}
        tn = inf
        for c in classes:
            rate = c.rate
            if rate > 0.0:
                d = (c.heap[0][0] - c.V) / rate
                if d < tn:
                    tn = d
        if tn == inf:
            self.next_t = -1.0
            if self.classes:
                from .core import SimulationError

                raise SimulationError("fluid flows with zero rate can never finish")
            return
        tn += now
        if tn != self.next_t:
            self.next_t = tn
            self.env.schedule(tn, URGENT, self.complete, None)

    def complete(self, _arg: Any = None) -> None:
        now = self.env.now
        if now != self.next_t:
            return
        self.next_t = -1.0
        self._advance(now)
        done = []
        emptied = []
        for key, c in self.classes.items():
            heap = c.heap
            V = c.V
            rate = c.rate
            label = c.label
            # a member is done when its remaining amount is within rounding of zero (as judged on that amount) or
            # its finish rounds to now; both only hold for remaining amounts up to some bound, so the members
            # done are a prefix of the heap
            while heap:
                item = heap[0]
                if not item[_ALIVE]:  # moved to another class
                    heappop(heap)
                    continue
                fin: float = item[_FIN]
                rem = fin - V
                if rem <= rate * TIME_EPS + 1e-12 * abs(rem + 1.0) or (rate > 0.0 and now + rem / rate <= now):
                    heappop(heap)
                    w: int = item[_W]
                    c.weight -= w
                    res: tuple[GeneralResource, ...] = item[_RES]
                    for r in res:
                        r._holders -= 1
                    lab: object
                    if label is None:
                        lab = res[0]
                    elif label is PRIVATE:
                        lab = item[_PRIVS][0]
                    else:
                        lab = label
                    if item[_PRIVS]:
                        self._write_private(c, item, now, True)
                    done.append((item[_SEQ], item[_OWNER], lab))
                else:
                    break
            if not heap:
                emptied.append(key)
        for key in emptied:
            del self.classes[key]
        if not self.dirty:
            self.dirty = True
            self.sys.mark(self)
        if len(done) > 1:
            done.sort()  # by seq: the order the flows were added
        on_done = self.sys.on_done
        for _seq, owner, label in done:
            on_done(owner, label)


def decimate(times: Sequence[float], rates: Sequence[float], end: float, max_points: int) -> tuple[tuple[float, float], ...]:
    """A step function as ``((t, rate), ...)``, at most about ``max_points`` long.

    Short functions are returned unchanged.  Longer ones are averaged over equal
    time buckets of ``[times[0], end]``: the area (units moved) is preserved.
    """
    n = len(times)
    if n <= max_points or max_points < 2 or end <= times[0]:
        return tuple(zip(times, rates, strict=True))
    t0 = times[0]
    width = (end - t0) / (max_points - 1)
    durations = list(map(sub, islice(times, 1, None), times))
    out = []
    acc = 0.0
    b = 0  # current bucket
    bstart = t0
    bend = t0 + width
    i = 0
    while i < n:
        t = times[i]
        r = rates[i]
        t_next = times[i + 1] if i + 1 < n else end
        while t < t_next:
            seg_end = t_next if t_next < bend else bend
            acc += r * (seg_end - t)
            t = seg_end
            if t >= bend:
                out.append((bstart, acc / width))
                acc = 0.0
                b += 1
                bstart = t0 + b * width
                bend = t0 + (b + 1) * width
        i += 1
        if t_next < bend and i + 1 < n:
            # the steps ending before this bucket does, summed in C in the same order as one by one
            m = bisect_left(times, bend, i + 1, n) - 1
            if m > i:
                acc = sum(map(mul, rates[i:m], durations[i:m]), acc)
                i = m
    if acc or (out and out[-1][0] < bstart and bstart < end):
        out.append((bstart, acc / max(end - bstart, 1e-300)))
    if out and out[-1][1] != 0.0:
        out.append((end, 0.0))
    return tuple(out)
