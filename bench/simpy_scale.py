"""The benchmark scenario through SimPy, with an equivalent fluid model.

It interprets the very same :class:`~simulator.graph.TaskGraph` that
``bench/scale.py`` builds (dynamic pools, barriers, phases of CPU work and
single-resource uncapped flows), written the idiomatic SimPy way: one process
per task, a ``simpy.Resource`` per pool (FIFO in request order; processes are
created in task-id order), ``env.timeout`` for overheads and CPU work.

The fluid links use the same processor-sharing algorithm as the engine's fast
path (virtual time + heap of finish times; ``w`` identical concurrent flows of a
phase are one entry of weight ``w``), so the comparison measures the event
machinery, not a weaker algorithm.  A link keeps one wake-up timeout; a change
reschedules it and superseded timeouts are ignored when they fire.
"""

from __future__ import annotations

import os
import sys
import time
from heapq import heappop, heappush
from itertools import count

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for p in (ROOT, HERE):
    if p not in sys.path:
        sys.path.insert(0, p)

import simpy  # noqa: E402

from simulator.graph import TaskGraph  # noqa: E402

__all__ = ["PSLink", "simulate", "run_simpy"]


class PSLink:
    """Equal sharing of ``capacity`` among active flows, by virtual time."""

    def __init__(self, env: simpy.Environment, capacity: float) -> None:
        self.env = env
        self.capacity = capacity
        self.V = 0.0
        self.t = 0.0
        self.n = 0
        self.heap: list = []
        self.ver = 0
        self.seq = count()

    def _advance(self) -> None:
        now = self.env.now
        if self.n:
            self.V += self.capacity / self.n * (now - self.t)
        else:
            self.V = 0.0
        self.t = now

    def transfer(self, amount: float, weight: int = 1) -> simpy.Event:
        """An event that succeeds once ``weight`` concurrent flows of ``amount`` are done."""
        self._advance()
        ev = self.env.event()
        heappush(self.heap, (self.V + amount, next(self.seq), weight, ev))
        self.n += weight
        self._reschedule()
        return ev

    def _reschedule(self) -> None:
        self.ver += 1
        if self.heap:
            dt = (self.heap[0][0] - self.V) * self.n / self.capacity
            to = self.env.timeout(dt if dt > 0 else 0.0, value=self.ver)
            to.callbacks.append(self._wake)

    def _wake(self, ev: simpy.Event) -> None:
        if ev.value != self.ver:
            return
        self._advance()
        rate = self.capacity / self.n
        limit = self.V + rate * 1e-9 + abs(self.V) * 1e-13
        heap = self.heap
        while heap and heap[0][0] <= limit:
            _, _, w, done = heappop(heap)
            self.n -= w
            done.succeed()
        self._reschedule()


def simulate(graph: TaskGraph) -> dict:
    """Run ``graph`` in SimPy; returns makespan_s and events (SimPy events processed)."""
    env = simpy.Environment()
    links = {r.name: PSLink(env, r.capacity) for r in graph.resources}
    pools = {p.name: simpy.Resource(env, capacity=p.nodes * p.slots_per_node) for p in graph.pools}
    tasks = graph.tasks
    n = len(tasks)
    ndeps = [len(t.deps) for t in tasks]
    succ: list = [[] for _ in range(n)]
    for t in tasks:
        for d in t.deps:
            succ[d].append(t.id)
    compiled: dict = {}

    def compile_phases(t):
        c = compiled.get(id(t.phases))
        if c is None:
            c = []
            for p in t.phases:
                merged: dict = {}
                for f in p.flows:
                    (r,) = f.resources
                    merged[(r, f.amount)] = merged.get((r, f.amount), 0) + 1
                flows = tuple((links[r], a, w) for (r, a), w in merged.items())
                c.append((p.overhead_s, p.cpu_seconds / min(p.threads, t.cores), flows))
            c = compiled[id(t.phases)] = tuple(c)
        return c

    end = [0.0] * n
    state = {"done": 0, "events": 0}

    def finish(i):
        stack = [i]
        while stack:
            j = stack.pop()
            end[j] = env.now
            state["done"] += 1
            for s in succ[j]:
                ndeps[s] -= 1
                if ndeps[s] == 0:
                    if tasks[s].pool is None:
                        stack.append(s)
                    else:
                        env.process(task_proc(s))

    def task_proc(i):
        t = tasks[i]
        with pools[t.pool].request() as req:
            yield req
            for overhead, cpu, flows in compile_phases(t):
                if overhead > 0:
                    yield env.timeout(overhead)
                evs = [link.transfer(a, w) for link, a, w in flows]
                if cpu > 0:
                    evs.append(env.timeout(cpu))
                if len(evs) == 1:
                    yield evs[0]
                elif evs:
                    yield env.all_of(evs)
        finish(i)

    for i in range(n):
        if ndeps[i] == 0:
            if tasks[i].pool is None:
                finish(i)
            else:
                env.process(task_proc(i))
    # count processed events by stepping (same as env.run(), plus a counter)
    step = env.step
    events = 0
    try:
        while True:
            step()
            events += 1
    except simpy.core.EmptySchedule:
        pass
    if state["done"] != n:
        raise RuntimeError("SimPy run did not complete every task")
    return {"makespan_s": max(end), "events": events}


def run_simpy(k: float, slots: int, storage_bw: float = 4e9, wan_bw: float | None = None,
              sequential_reads: bool = False) -> dict:
    """Build the benchmark graph and run it through SimPy (timed together by the caller)."""
    import gc

    from scale import build_graph

    graph = build_graph(k, slots, storage_bw, wan_bw, sequential_reads)
    gc.disable()  # same policy as the engine run in scale.py
    try:
        return simulate(graph)
    finally:
        gc.enable()


if __name__ == "__main__":
    import argparse
    import json

    ap = argparse.ArgumentParser(description="the benchmark scenario through SimPy")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--slots", type=int, default=64)
    a = ap.parse_args()
    t0 = time.perf_counter()
    r = run_simpy(a.scale, a.slots)
    r["wall_s"] = round(time.perf_counter() - t0, 3)
    print(json.dumps(r))
