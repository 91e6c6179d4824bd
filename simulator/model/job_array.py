"""A job array: N independent jobs of stage-in / compute / stage-out on S slots.

The workload has one :class:`~simulator.model.specs.StageSpec` (the job; the
first stage, or the one called ``job``) whose ``n_tasks`` is N; the scenario's
placement for that stage gives the node type, the number of slots S (``nodes``),
the policy and the input/output tiers.  ``parameters["stage_in_bytes"]`` and
``parameters["stage_out_bytes"]`` (per job) add staging phases.
"""

from __future__ import annotations

import random

from simulator.graph import TaskGraph

from ._generic import GenericBuilder
from .chiles import BuiltGraph, DataObject
from .specs import ScenarioSpec

__all__ = ["build_job_array"]


def build_job_array(scenario: ScenarioSpec, *, rng: random.Random | None = None) -> BuiltGraph:
    w = scenario.workload
    if not w.stages:
        raise ValueError("a job array needs one stage with its per-job demands")
    st = w.stage("job") or w.stages[0]
    b = GenericBuilder(scenario, rng or random.Random(scenario.seed))
    n = int(w.param("n_jobs", st.n_tasks))
    sin = float(w.param("stage_in_bytes", 0.0) or 0.0)
    sout = float(w.param("stage_out_bytes", 0.0) or 0.0)
    for i in range(n):
        phases, threads = b.phases(st, st.name, stage_in=sin > 0, stage_out=sout > 0, in_bytes=sin, out_bytes=sout)
        tid = b.add(st.name, phases, (), threads, st.peak_memory_bytes, f"job {i}")
        pl = scenario.placement(st.name)
        if sout and pl.storage_out:
            b.objects.append(DataObject(pl.storage_out, sout, tid, None, False, f"output job {i}"))
    graph = TaskGraph(tuple(b.resources.values()), tuple(b.pools.values()), tuple(b.tasks))
    return BuiltGraph(graph, tuple(b.objects), tuple(b.pool_info.values()), b.queue_wait_s, (), b.labels)
