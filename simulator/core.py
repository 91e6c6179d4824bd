"""A tiny deterministic discrete-event core (SimPy-like, without processes).

An :class:`Environment` holds one binary heap of ``(time, priority, seq, fn, arg)``
entries.  :meth:`Environment.run` pops them in that order and calls ``fn(arg)``.
``seq`` is a monotonically increasing counter, so events with equal time and
priority run in the order they were scheduled: the same inputs always give the
same run, bit for bit.

Priorities order what happens *at the same instant*; lower runs first.  The runner
uses :data:`URGENT` for completions, :data:`DISPATCH` to hand queued tasks to free
slots once every completion at that instant is known (so ties resolve by task id)
and :data:`FLUSH` for work deferred after that (the fluid rates are recomputed at the
end of the instant, see :meth:`Environment.at_end`).

Work for the end of an instant (dispatch) is scheduled with :meth:`Environment.defer`:
it goes to a second, small heap of ``(priority, seq, fn, arg)`` for the current
instant and runs exactly where a ``(now, priority)`` entry of the main heap would
(after every main-heap event at ``now`` with a lower priority), but without a
push into, and a pop from, the big heap.  Work that must come after everything else
at an instant (the fluid flush) is registered with :meth:`Environment.at_end`: a
plain list of calls made once no deferred entry and no main-heap event is left at
``now`` (the calls of one instant's end count as one event).

Callbacks must not schedule events in the past; :meth:`Environment.schedule`
does not check it (the hot path stays lean), :meth:`Environment.run` does when
``check=True``.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from itertools import count
from math import inf
from typing import Any, Final, final

from mypy_extensions import mypyc_attr

__all__ = ["Environment", "URGENT", "NORMAL", "DISPATCH", "FLUSH", "SimulationError"]

# (final names: compiled, read from a C static instead of the module's dict at every call)
heappush: Final = heapq.heappush
heappop: Final = heapq.heappop
next_: Final = next

URGENT: Final = 0
NORMAL: Final = 1
DISPATCH: Final = 2
FLUSH: Final = 3

#: A main-heap entry ``(time, priority, seq, fn, arg)`` and a deferred one ``(priority, seq, fn, arg)``: typed as
#: plain tuples (compiled, their items are read where needed, not all unboxed and checked at every pop).
HeapEntry = tuple[Any, ...]
DeferredEntry = tuple[Any, ...]


@mypyc_attr(native_class=False)  # (an exception: a plain Python class when compiled)
class SimulationError(RuntimeError):
    """The simulation cannot proceed (time went backwards, a deadlock, ...)."""


@final
class Environment:
    """Simulated clock plus the event heap.

    ``now`` is the current time; ``events`` counts heap entries processed (every
    callback call, including wake-ups that find nothing to do).  Hot loops may
    push ``(time, priority, next(env.seq), fn, arg)`` onto ``env.heap`` directly
    (that is all :meth:`schedule` does), and append to ``env.ending`` (all :meth:`at_end`
    does).
    """

    __slots__ = ("now", "heap", "deferred", "ending", "events", "seq")

    def __init__(self, start: float = 0.0) -> None:
        self.now: float = float(start)
        self.heap: list[HeapEntry] = []
        self.deferred: list[DeferredEntry] = []
        self.ending: list[Callable[[], Any]] = []
        self.events: int = 0
        self.seq: Iterator[int] = count()

    def at_end(self, fn: Callable[[], Any]) -> None:
        """Call ``fn()`` once the current instant is over: after every deferred entry and every main-heap event
        at ``now`` (calls registered at one instant run in the order they were registered)."""
        self.ending.append(fn)

    def defer(self, priority: int, fn: Callable[[Any], Any], arg: Any = None) -> None:
        """Call ``fn(arg)`` at the current instant, ordered as ``schedule(now, priority, ...)``."""
        heappush(self.deferred, (priority, next_(self.seq), fn, arg))

    def schedule(self, time: float, priority: int, fn: Callable[[Any], Any], arg: Any = None) -> None:
        """Call ``fn(arg)`` at absolute ``time`` (ties: ``priority``, then scheduling order)."""
        heappush(self.heap, (time, priority, next_(self.seq), fn, arg))

    def schedule_in(self, delay: float, fn: Callable[[Any], Any], arg: Any = None, priority: int = NORMAL) -> None:
        """Call ``fn(arg)`` ``delay`` seconds from now."""
        heappush(self.heap, (self.now + delay, priority, next_(self.seq), fn, arg))

    def peek(self) -> float:
        """Time of the next event, or ``inf`` when nothing is scheduled."""
        if self.deferred or self.ending:
            return self.now
        return self.heap[0][0] if self.heap else float("inf")

    def run(self, until: float | None = None, check: bool = False) -> float:
        """Process events until the heap is empty (or the next one is after ``until``).

        Returns the time of the last processed event.
        """
        heap = self.heap
        deferred = self.deferred
        ending = self.ending
        pop = heappop
        limit = inf if until is None else until
        n = 0
        t: float  # (the time of the next main-heap entry, typed: compiled, compared as a C double)
        try:
            if until is None and not check:
                now = self.now  # (only this loop sets it)
                while True:
                    if deferred or ending:
                        later = True  # the main heap has no entry at ``now``
                        if heap:
                            t = heap[0][0]
                            later = t > now
                        if deferred and (later or heap[0][1] > deferred[0][0]):
                            # deferred entries belong to ``now``: they run unless the main
                            # heap still has an entry at ``now`` with a lower priority
                            _, _, fn, arg = pop(deferred)
                            n += 1
                            fn(arg)
                            continue
                        if ending and later:
                            n += 1
                            if len(ending) == 1:  # (most instants: one resource to flush, no copy of the list)
                                end_fn = ending.pop()
                                end_fn()
                                continue
                            fns = ending[:]
                            ending.clear()  # (the list object stays: callbacks append to env.ending)
                            for end_fn in fns:
                                end_fn()
                            continue
                    if heap:
                        now, _, _, fn, arg = pop(heap)
                        self.now = now
                        n += 1
                        fn(arg)
                    else:
                        break
            else:
                while True:
                    if deferred and (not heap or heap[0][0] > self.now or heap[0][1] > deferred[0][0]):
                        _, _, fn, arg = pop(deferred)
                        n += 1
                        fn(arg)
                    elif ending and (not heap or heap[0][0] > self.now):
                        fns = ending[:]
                        ending.clear()
                        n += 1
                        for end_fn in fns:
                            end_fn()
                    elif heap and heap[0][0] <= limit:
                        t, _, _, fn, arg = pop(heap)
                        if check and t < self.now:
                            raise SimulationError(f"event at {t} scheduled in the past (now {self.now})")
                        self.now = t
                        n += 1
                        fn(arg)
                    else:
                        break
        finally:
            self.events += n
        return self.now
