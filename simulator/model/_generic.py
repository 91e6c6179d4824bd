"""Shared helpers for the generic templates (job array, custom DAG): one stage's task phases."""

from __future__ import annotations

import random

from simulator.graph import Phase, Task

from .placement import effective_threads, make_pool, nic_resource, tier_access, tier_resources
from .queue import sample_queue_wait
from .specs import ScenarioSpec, StageSpec

__all__ = ["GenericBuilder"]


class GenericBuilder:
    """Accumulates resources, pools and tasks for templates built from :class:`StageSpec` demands."""

    def __init__(self, scenario: ScenarioSpec, rng: random.Random):
        from .chiles import PoolInfo

        self._PoolInfo = PoolInfo
        self.sc = scenario
        self.p = scenario.platform
        self.rng = rng
        self.tasks: list[Task] = []
        self.resources: dict = {}
        self.pools: dict = {}
        self.pool_info: dict = {}
        self.objects: list = []
        self.labels: dict[int, str] = {}
        self.queue_wait_s = 0.0
        self._per_pool: dict[str, int] = {}  # tasks added per pool so far (static slots cycle over them)

    def pool(self, stage: str):
        pl = self.sc.placement(stage)
        nt = self.p.node_type(pl.node_type)
        if stage not in self.pools:
            wait = 0.0
            if pl.policy != "elastic" and not self.p.is_cloud:
                wait = pl.queue_wait_s if pl.queue_wait_s is not None else sample_queue_wait(
                    self.p.scheduler.queue_wait, self.rng)
                self.queue_wait_s = max(self.queue_wait_s, wait)
            self.pools[stage] = make_pool(stage, pl.policy, nt, pl.nodes, queue_wait_s=wait,
                                          launch_interval_s=pl.launch_interval_s)
            pricing = pl.pricing
            if not self.p.is_cloud:
                pricing = "node_hour" if self.p.pricing.billing_unit == "node_hour" else "none"
            self.pool_info[stage] = self._PoolInfo(stage, stage, nt.name, pricing, True)
        return stage, nt, pl

    def tier(self, name: str | None):
        if name is None:
            return self.p.storage_tier() if self.p.storage else None
        return self.p.storage_tier(name)

    def phases(self, st: StageSpec, stage: str, *, stage_in: bool = False, stage_out: bool = False,
               in_bytes: float = 0.0, out_bytes: float = 0.0) -> tuple[tuple[Phase, ...], int]:
        """Phases of one task of ``st``: [stage-in], compute (CPU + I/O overlap), [stage-out]."""
        name, nt, pl = self.pool(stage)
        tin, tout = self.tier(pl.storage_in), self.tier(pl.storage_out or pl.storage_in)
        for t in (tin, tout):
            if t is not None:
                for r in tier_resources(t):
                    self.resources.setdefault(r.name, r)
        nic = nic_resource(nt)
        if nic is not None:
            self.resources.setdefault(nic.name, nic)
        threads = effective_threads(self.p, nt, st.usable_threads)
        phases = []
        if stage_in and in_bytes and tin is not None:
            phases.append(Phase("stage_in", flows=(tier_access(tin, nt).read(in_bytes, "stage_in"),)))
        flows = []
        if tin is not None and st.seq_read_bytes:
            flows.append(tier_access(tin, nt).read(st.seq_read_bytes))
        if tout is not None and st.seq_write_bytes:
            flows.append(tier_access(tout, nt).write(st.seq_write_bytes))
        ops = st.random_read_ops + st.random_write_ops
        if ops and tin is not None and tier_access(tin, nt).iops is not None:
            flows.append(tier_access(tin, nt).ops(ops, "rand_io"))
        phases.append(Phase("compute", cpu_seconds=st.cpu_seconds / (nt.core_speed or 1.0), threads=threads,
                            flows=tuple(flows), overhead_s=st.overhead_s))
        if stage_out and out_bytes and tout is not None:
            phases.append(Phase("stage_out", flows=(tier_access(tout, nt).write(out_bytes, "stage_out"),)))
        return tuple(phases), threads

    def add(self, stage: str, phases, deps, threads: int, memory: float, label: str = "") -> int:
        tid = len(self.tasks)
        name, _nt, pl = self.pool(stage)
        slot = None
        count = self._per_pool.get(name, 0)
        self._per_pool[name] = count + 1
        if pl.policy == "static":
            slot = count % self.pools[name].nodes
        self.tasks.append(Task(tid, stage, tuple(phases), tuple(deps), name, threads, float(memory), slot))
        if label:
            self.labels[tid] = label
        return tid
