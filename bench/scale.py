"""Speed benchmark of the execution engine on the CHILES-like scaling scenario.

Scenario (built exactly like this because it is compared with other simulators):
``P`` identical worker slots in one dynamic pool (one FIFO ready queue, ties by
task id); a WAN link of bandwidth ``W`` and one store of bandwidth ``B``, each
shared equally among its active flows.  Scale ``k`` gives ``N = round(42 k)``
days and ``S = round(120 k)`` sub-bands; GB = 1e9 bytes.

* ``COPY_d``: moves ``330 GB * (0.75 + 0.5 * frac(d * 0.6180339887498949))`` over the WAN.
* ``SPLIT_d`` (after ``COPY_d``): reads 50 GB, computes 600 s, writes 48 GB (three phases).
* a zero-cost barrier after every SPLIT (instead of N x S edges);
* ``INVERT_s`` (after the barrier): reads 0.4 GB eight times as eight separate,
  concurrent flows in one phase, computes 3000 s, writes 4 GB (three phases);
* ``CONCAT`` (after every INVERT): reads S x 4 GB, then writes S x 4 GB.

Task ids: COPY_0..COPY_{N-1}, SPLIT_0..SPLIT_{N-1}, the barrier, INVERT_0..
INVERT_{S-1}, CONCAT.  ``B = 4 GB/s`` and ``W = 1.25e8 * k`` bytes/s by default.
With k = 1 and P = 64 the makespan is 116,814.34 s (the eight reads run in
lockstep waves there, so ``--sequential-reads`` gives the same value).

Usage: ``python bench/scale.py --scale K --slots P [--storage-bw B] [--wan-bw W] [--simpy] [--repeat N]``
prints one JSON object: which engine ran (``engine``: ``compiled`` or ``python``, see setup.py), wall times (``build_s``, ``run_s``, ``wall_s``) and this process's CPU time
(``run_cpu_s``, ``cpu_s`` = build + run), with ``--simpy`` SimPy's (building the same graph and running it)
and their ratios: ``speed_ratio`` (wall, whole), ``speed_ratio_run_only`` (wall, SimPy whole against our run)
and ``speed_ratio_cpu`` (CPU, whole).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from simulator.graph import Flow, Phase, PoolSpec, ResourceSpec, Task, TaskGraph  # noqa: E402

__all__ = ["GB", "PHI", "scenario_sizes", "copy_bytes", "build_graph", "run_ours", "main"]

GB = 1e9
PHI = 0.6180339887498949
STORE = "store"
WAN = "wan"
POOL = "workers"


def scenario_sizes(k: float) -> tuple[int, int]:
    """(days N, sub-bands S) for scale ``k``."""
    return round(42 * k), round(120 * k)


def copy_bytes(d: int) -> float:
    """Bytes COPY_d moves over the WAN."""
    return 330 * GB * (0.75 + 0.5 * ((d * PHI) % 1.0))


def build_graph(k: float, slots: int, storage_bw: float = 4 * GB, wan_bw: float | None = None,
                sequential_reads: bool = False) -> TaskGraph:
    """The benchmark TaskGraph (identical Phase tuples and dependency tuples are shared)."""
    n_day, n_sub = scenario_sizes(k)
    if wan_bw is None:
        wan_bw = 1.25e8 * k
    resources = (ResourceSpec(WAN, wan_bw, kind="link"), ResourceSpec(STORE, storage_bw))
    pools = (PoolSpec(POOL, nodes=slots, policy="dynamic"),)
    tasks: list[Task] = []
    app = tasks.append
    wan = (WAN,)
    store = (STORE,)
    for d in range(n_day):
        app(Task(d, "COPY", (Phase("copy", flows=(Flow(wan, copy_bytes(d), label="wan"),)),), (), POOL))
    split_phases = (
        Phase("read", flows=(Flow(store, 50 * GB, label="seq_read"),)),
        Phase("compute", cpu_seconds=600.0),
        Phase("write", flows=(Flow(store, 48 * GB, label="seq_write"),)),
    )
    for d in range(n_day):
        app(Task(n_day + d, "SPLIT", split_phases, (d,), POOL))
    barrier = 2 * n_day
    app(Task(barrier, "BARRIER", (), tuple(range(n_day, 2 * n_day)), None))
    read = Flow(store, 0.4 * GB, label="seq_read")
    if sequential_reads:
        reads = tuple(Phase(f"read{j}", flows=(read,)) for j in range(8))
    else:
        reads = (Phase("read", flows=(read,) * 8),)
    invert_phases = reads + (
        Phase("compute", cpu_seconds=3000.0),
        Phase("write", flows=(Flow(store, 4 * GB, label="seq_write"),)),
    )
    dep = (barrier,)
    first = barrier + 1
    for s in range(n_sub):
        app(Task(first + s, "INVERT", invert_phases, dep, POOL))
    concat_phases = (
        Phase("read", flows=(Flow(store, n_sub * 4 * GB, label="seq_read"),)),
        Phase("write", flows=(Flow(store, n_sub * 4 * GB, label="seq_write"),)),
    )
    app(Task(first + n_sub, "CONCAT", concat_phases, tuple(range(first, first + n_sub)), POOL))
    return TaskGraph(resources, pools, tuple(tasks))


def peak_mb() -> float:
    """Peak resident set size of this process in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_ours(k: float, slots: int, storage_bw: float, wan_bw: float | None, sequential_reads: bool = False) -> dict:
    from simulator.runner import run

    c0 = time.process_time()
    t0 = time.perf_counter()
    graph = build_graph(k, slots, storage_bw, wan_bw, sequential_reads)
    t1 = time.perf_counter()
    c1 = time.process_time()
    gc.disable()  # the run allocates many long-lived objects and no cycles
    try:
        result = run(graph, record_utilisation=False)
    finally:
        gc.enable()
    t2 = time.perf_counter()
    c2 = time.process_time()
    n = len(graph.tasks)
    import simulator

    return {
        "engine": simulator.ENGINE,  # compiled or python (see setup.py)
        "tasks": n,
        "events": result.events,
        "makespan_s": round(result.makespan_s, 6),
        "build_s": round(t1 - t0, 3),
        "run_s": round(t2 - t1, 3),
        "wall_s": round(t2 - t0, 3),
        "run_cpu_s": round(c2 - c1, 3),
        "cpu_s": round(c2 - c0, 3),
        "tasks_per_s": round(n / (t2 - t1)),
        "events_per_s": round(result.events / (t2 - t1)),
    }


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=float, default=1.0, help="scale k (N = round(42k), S = round(120k))")
    ap.add_argument("--slots", type=int, default=64, help="worker slots P")
    ap.add_argument("--storage-bw", type=float, default=4 * GB, help="store bandwidth B, bytes/s")
    ap.add_argument("--wan-bw", type=float, default=None, help="WAN bandwidth W, bytes/s (default 1.25e8 k)")
    ap.add_argument("--sequential-reads", action="store_true", help="INVERT's eight reads as eight phases")
    ap.add_argument("--simpy", action="store_true", help="also run the same scenario through SimPy")
    ap.add_argument("--repeat", type=int, default=1, help="best of N runs of each simulator (machine noise)")
    args = ap.parse_args(argv)
    runs = [run_ours(args.scale, args.slots, args.storage_bw, args.wan_bw, args.sequential_reads)
            for _ in range(max(1, args.repeat))]
    out = min(runs, key=lambda r: r["wall_s"])
    out["repeat"] = len(runs)
    out["peak_mb"] = round(peak_mb(), 1)
    if args.simpy:
        from simpy_scale import run_simpy  # bench/ is on sys.path when run as a script

        sw = sc = float("inf")
        for _ in range(max(1, args.repeat)):
            c0 = time.process_time()
            t0 = time.perf_counter()
            sp = run_simpy(args.scale, args.slots, args.storage_bw, args.wan_bw, args.sequential_reads)
            sw = min(sw, time.perf_counter() - t0)
            sc = min(sc, time.process_time() - c0)
        out["simpy_wall_s"] = round(sw, 3)
        out["simpy_cpu_s"] = round(sc, 3)
        out["simpy_makespan_s"] = round(sp["makespan_s"], 6)
        out["simpy_events"] = sp["events"]
        out["speed_ratio"] = round(sw / out["wall_s"], 2)
        out["speed_ratio_run_only"] = round(sw / out["run_s"], 2)
        # the same ratio in CPU time of this process (less sensitive to others' load on a shared machine)
        out["speed_ratio_cpu"] = round(sc / min(r["cpu_s"] for r in runs), 2)
        out["makespan_diff_pct"] = 100.0 * abs(sp["makespan_s"] - out["makespan_s"]) / out["makespan_s"]
        out["peak_mb"] = round(peak_mb(), 1)
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
