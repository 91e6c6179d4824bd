"""A sub-pipeline of a workload of the general model: some of its stages, fewer tasks, scaled demands.

A single work-unit of a case study (one SPLIT of one sub-band of one day, one INVERT of one sub-band
over eight days) is a sub-pipeline of the whole workload: the stages it runs (each with the stages
continuing it, which are further phases of its tasks), ``tasks`` tasks of the stage's reference size
(``fixed`` sizes: the size its demands are given for), one work item each, and what differs from
the record's task scaled (``scale``: the CPU, the input reads, the random operations, the output
writes, each by its own factor, for the stage and its continuations).  Dependencies on stages left
out are dropped: their data is taken to be there already.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .specs import RoleIO, StageSpec, WorkloadSpec

__all__ = ["Scale", "chain", "sub_pipeline", "chain_cpu_seconds"]


@dataclass(frozen=True)
class Scale:
    """Multipliers of one task's demands: CPU (core-seconds), bytes read from the input role, random operations,
    bytes written to the output role."""

    cpu: float = 1.0
    input_reads: float = 1.0
    ops: float = 1.0
    output_writes: float = 1.0


def chain(workload: WorkloadSpec, head: str) -> list[StageSpec]:
    """Stage ``head`` and the stages continuing it (transitively), in the workload's order: the phases of one task."""
    names = {head}
    for st in workload.stages:  # a continuing stage comes after the stage it continues (topological in the record)
        if st.dependency == "continues" and st.depends_on and st.depends_on[0] in names:
            names.add(st.name)
    stages = [st for st in workload.stages if st.name in names]
    if not any(st.name == head for st in stages):
        raise ValueError(f"workload {workload.slug!r} has no stage {head!r} "
                         f"(stages: {', '.join(s.name for s in workload.stages) or 'none'})")
    return stages


def chain_cpu_seconds(workload: WorkloadSpec, head: str) -> float:
    """The CPU (core-seconds on the stages' reference cores) of one task of ``head`` and its continuations, per work
    item at the reference size."""
    return sum(st.cpu_seconds * st.reference_speed for st in chain(workload, head))


def _scaled(st: StageSpec, s: Scale) -> StageSpec:
    ops = {"random_read_ops": st.random_read_ops * s.ops, "random_write_ops": st.random_write_ops * s.ops}
    if not st.io:  # the older fields: reads from the input role, writes to the output role
        return replace(st, cpu_seconds=st.cpu_seconds * s.cpu, seq_read_bytes=st.seq_read_bytes * s.input_reads,
                       seq_write_bytes=st.seq_write_bytes * s.output_writes, **ops)
    io = tuple(RoleIO(x.role, x.read_bytes * (s.input_reads if x.role == "input" else 1.0),
                      x.write_bytes * (s.output_writes if x.role == "output" else 1.0), x.pattern, x.request_bytes)
               for x in st.io)
    return replace(st, cpu_seconds=st.cpu_seconds * s.cpu, io=io, **ops)


def sub_pipeline(workload: WorkloadSpec, heads: tuple[str, ...], *, tasks: int = 1,
                 scale: dict[str, Scale] | None = None) -> WorkloadSpec:
    """The stages ``heads`` of ``workload`` (each with its continuations), ``tasks`` tasks each of the reference
    size and one work item, demands of the stages continuing head ``h`` scaled by ``scale[h]``."""
    scale = scale or {}
    kept: dict[str, Scale] = {}
    for head in heads:
        for st in chain(workload, head):
            kept[st.name] = scale.get(head, Scale())
    stages = []
    for st in workload.stages:
        if st.name not in kept:
            continue
        st = replace(st, n_tasks=int(tasks), tasks_per="", work_items="", size_distribution="fixed", size_values=(),
                     depends_on=tuple(d for d in st.depends_on if d in kept))
        if not st.depends_on and st.dependency == "continues":
            raise ValueError(f"stage {st.name!r} continues a stage the sub-pipeline leaves out")
        stages.append(_scaled(st, kept[st.name]) if kept[st.name] != Scale() else st)
    return replace(workload, template="stages", stages=tuple(stages))
