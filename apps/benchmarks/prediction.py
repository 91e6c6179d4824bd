"""The simulator's prediction of the mini-pipeline on a measured host (pure: no ORM).

The host becomes a one-node platform: its cores, and one local storage tier whose bandwidths (and IOPS, when
measured) are single-stream figures — for the mini-pipeline, those of its own file operations through the page
cache (:mod:`.comparison`).  The mini-pipeline becomes a custom DAG whose per-task demands are its
exact byte counts and its kernel work divided by the CPU probe's single-core kernel rates at the pipeline's own
sizes.  Nothing of the timed mini-pipeline run itself goes into the prediction.
"""

from __future__ import annotations

from simulator.model.simulate import simulate
from simulator.model.specs import (
    NodeTypeSpec,
    PlatformSpec,
    ScenarioSpec,
    StagePlacement,
    StageSpec,
    StorageSpec,
    WorkloadSpec,
)

from .probes.minipipeline import Layout, work_counts

__all__ = ["host_platform", "minipipeline_workload", "predict_minipipeline", "single_stream"]


def single_stream(storage: dict, pattern: str) -> dict | None:
    points = [p for p in storage.get("points", []) if p["pattern"] == pattern]
    return min(points, key=lambda p: p["jobs"]) if points else None


def host_platform(slug: str, host: dict, storage: dict) -> PlatformSpec:
    seq_r, seq_w = single_stream(storage, "seq_read"), single_stream(storage, "seq_write")
    rand_r = single_stream(storage, "rand_read")
    if not (seq_r and seq_w):
        raise ValueError("the storage result has no single-stream sequential read and write figures")
    # the tier's bandwidth resource is one pool capped at the larger rate; the per-client caps hold each direction
    # of the single stream to its own measured rate
    tier = StorageSpec(name="scratch", kind="local_ssd", scope="per_node",
                       read_bytes_per_s=seq_r["bytes_per_s"], write_bytes_per_s=seq_w["bytes_per_s"],
                       read_bytes_per_s_per_client=seq_r["bytes_per_s"],
                       write_bytes_per_s_per_client=seq_w["bytes_per_s"],
                       iops=rand_r["iops"] if rand_r else None)
    # the benchmark runs its tasks one after another in one process: one core of the host
    node = NodeTypeSpec(name="host", cores=1, memory_bytes=host.get("memory_bytes"), count=1)
    return PlatformSpec(slug=slug, name=f"{host.get('hostname', slug)} (measured)", kind="cluster", max_nodes=1,
                        node_types=(node,), storage=(tier,))


def minipipeline_workload(lay: Layout, rates: dict) -> WorkloadSpec:
    """Every task reads, then computes (SPLIT and INVERT), then writes: one thread does one after the other (COPY
    and CONCAT copy chunk by chunk in one thread too), so each stage becomes chained sub-stages
    ``name:read`` → [``name:compute``] → [``name:new-memory``] → ``name:write`` whose times add up.

    ``new-memory`` is the first touch of the task's share of its stage's buffers at the memory probe's
    ``first_touch_bytes_per_s`` (see :mod:`.comparison`)."""
    counts = work_counts(lay)
    stages: list[StageSpec] = []
    previous: tuple[str, ...] = ()
    for name, c in counts.items():
        n = int(c["n_tasks"])
        cpu = (c.get("regrid_values", 0) / rates["regrid_values_per_s"]
               + c.get("grid_vis", 0) / rates["grid_vis_per_s"]
               + c.get("fft_cells", 0) / rates["fft_cells_per_s"])
        if c.get("copied") and rates.get("copy_bytes_per_s"):
            # an in-kernel copy between cached files (COPY): kernel CPU work at the measured copy rate
            stages.append(StageSpec(name=f"{name}:copy", usable_threads=1, n_tasks=n, depends_on=previous,
                                    cpu_seconds=c["copied"] / rates["copy_bytes_per_s"]))
            previous = (f"{name}:copy",)
            continue
        parts = [(f"{name}:read", {"seq_read_bytes": float(c["read"])})]
        if cpu:
            parts.append((f"{name}:compute", {"cpu_seconds": cpu}))
        if rates.get("first_touch_bytes_per_s") and c["new_bytes"]:
            parts.append((f"{name}:new-memory", {"cpu_seconds": c["new_bytes"] / rates["first_touch_bytes_per_s"]}))
        parts.append((f"{name}:write", {"seq_write_bytes": float(c["write"])}))
        for part, demand in parts:
            stages.append(StageSpec(name=part, usable_threads=1, n_tasks=n, depends_on=previous, **demand))
            previous = (part,)
    return WorkloadSpec(slug="minipipeline", name="Skyplan mini-pipeline", template="custom_dag",
                        parameters={}, stages=tuple(stages))


def predict_minipipeline(slug: str, host: dict, storage: dict, rates: dict, lay: Layout) -> dict:
    """Simulated makespan and per-stage spans; tasks run one at a time on one core, as the benchmark does."""
    platform = host_platform(slug, host, storage)
    workload = minipipeline_workload(lay, rates)
    placements = tuple(StagePlacement(s.name, "host", 1, "scratch", "scratch", "none", "dynamic")
                       for s in workload.stages)
    scenario = ScenarioSpec(platform=platform, workload=workload, placements=placements, include_copy=True,
                            label="mini-pipeline prediction")
    result = simulate(scenario, seed=0, record_utilisation=False)
    # Every stage is placed on the one host slot, so the simulated tasks run one after another, as the benchmark
    # runs them; its run time is the sum of the simulated task times.
    stages: dict[str, dict] = {}
    for s in result.stages:
        st = stages.setdefault(s.stage.split(":")[0], {"task_seconds": 0.0, "parts": {}})
        st["task_seconds"] += s.task_seconds
        st["parts"][s.stage] = {"task_seconds": s.task_seconds, "tasks": s.tasks, "bound": s.dominant_bound}
    return {"makespan_s": result.makespan_s, "sequential_s": sum(s["task_seconds"] for s in stages.values()),
            "stages": stages}
