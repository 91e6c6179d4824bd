"""A custom DAG of stages: each :class:`~simulator.model.specs.StageSpec` has ``n_tasks``
and ``depends_on``.  Dependencies are one-to-one when the two stages have the same
number of tasks (task i waits for task i) and go through a zero-cost barrier
otherwise (every task waits for all tasks of the upstream stage)."""

from __future__ import annotations

import random

from simulator.graph import Task, TaskGraph

from ._generic import GenericBuilder
from .chiles import BuiltGraph, DataObject
from .specs import ScenarioSpec

__all__ = ["build_custom_dag", "topological_stages"]


def topological_stages(stages) -> list:
    """Stages ordered so that every stage comes after those it depends on (raises on cycles)."""
    by_name = {s.name: s for s in stages}
    order, state = [], {}

    def visit(name: str) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            raise ValueError(f"cycle in custom DAG at stage {name!r}")
        if name not in by_name:
            raise ValueError(f"unknown stage {name!r} in depends_on")
        state[name] = 1
        for d in by_name[name].depends_on:
            visit(d)
        state[name] = 2
        order.append(by_name[name])

    for s in stages:
        visit(s.name)
    return order


def build_custom_dag(scenario: ScenarioSpec, *, rng: random.Random | None = None) -> BuiltGraph:
    w = scenario.workload
    b = GenericBuilder(scenario, rng or random.Random(scenario.seed))
    ids: dict[str, list[int]] = {}
    for st in topological_stages(w.stages):
        deps_per_task: list[list[int]] = [[] for _ in range(st.n_tasks)]
        for up in st.depends_on:
            up_ids = ids[up]
            if len(up_ids) == st.n_tasks:
                for i in range(st.n_tasks):
                    deps_per_task[i].append(up_ids[i])
            else:
                barrier = len(b.tasks)
                b.tasks.append(Task(barrier, f"barrier:{up}", (), tuple(up_ids), None, 1, 0.0, None))
                for i in range(st.n_tasks):
                    deps_per_task[i].append(barrier)
        ids[st.name] = []
        for i in range(st.n_tasks):
            phases, threads = b.phases(st, st.name)
            tid = b.add(st.name, phases, deps_per_task[i], threads, st.peak_memory_bytes, f"{st.name} {i}")
            pl = scenario.placement(st.name)
            if st.seq_write_bytes and (pl.storage_out or pl.storage_in):
                b.objects.append(DataObject(pl.storage_out or pl.storage_in, st.seq_write_bytes, tid, None, False,
                                            f"{st.name} {i} output"))
            ids[st.name].append(tid)
    graph = TaskGraph(tuple(b.resources.values()), tuple(b.pools.values()), tuple(b.tasks))
    return BuiltGraph(graph, tuple(b.objects), tuple(b.pool_info.values()), b.queue_wait_s, (), b.labels)
