"""Fingerprints of engine runs, to show a change to the engine leaves every result as it was.

Runs a fixed set of graphs through :func:`simulator.runner.run` and prints, per graph, the makespan, the
events processed and a SHA-256 over everything the run returns: every task's ready/start/end times (their
exact bits), node and bound-by label, the pool records, the units moved per resource, the utilisation step
functions and the timed-flow columns.  The graphs: the ``bench/scale.py`` scenario at small scales with
various slots, store and WAN bandwidths and sequential reads; the ``bench/shared_tier.py`` scenario (capped
and two-resource flows); and seeded random graphs mixing every pool policy (static with pinned slots,
dynamic with a queue wait, elastic, ``per_job``, ``max_running``, ``queue_s``), per-node, degrading, capped
and multi-resource flows, overheads and barriers.

Usage: ``python bench/engine_digest.py [--save FILE] [--against FILE]``.  ``--against`` compares with a
file saved before the change and exits 1 when a result differs (a different event count alone is reported,
not a failure: it measures the engine's bookkeeping, not the simulated run).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for p in (ROOT, HERE):
    if p not in sys.path:
        sys.path.insert(0, p)

from scale import build_graph as scale_graph  # noqa: E402
from shared_tier import build_graph as shared_tier_graph  # noqa: E402

from simulator.graph import Flow, Phase, PoolSpec, ResourceSpec, Task, TaskGraph  # noqa: E402
from simulator.runner import run  # noqa: E402

__all__ = ["mixed_graph", "scenarios", "digest", "main"]


def mixed_graph(seed: int, n: int = 600) -> TaskGraph:
    """A random graph using every feature of the engine (deterministic for a seed)."""
    rng = random.Random(seed)
    res = (
        ResourceSpec("store", 1e3, degrade_after=4, degrade_exponent=0.5),
        ResourceSpec("wan", 300.0, per_flow_cap=120.0),
        ResourceSpec("nic@{node}", 200.0),
        ResourceSpec("disk@{node}", 80.0, degrade_after=1, degrade_exponent=0.3),
        ResourceSpec("iops", 50.0, kind="iops"),
        ResourceSpec("tape", 90.0),
    )
    pools = (
        PoolSpec("d", nodes=3, slots_per_node=2, queue_wait_s=7.0, max_running=5),
        PoolSpec("s", nodes=2, slots_per_node=2, policy="static"),
        PoolSpec("e", nodes=3, policy="elastic", boot_s=3.0, launch_interval_s=2.0),
        PoolSpec("j", nodes=4, slots_per_node=3, per_job=True),
    )
    tasks = []
    for i in range(n):
        phases = []
        for k in range(rng.randint(1, 3)):
            flows = []
            for _ in range(rng.randint(0, 4)):
                kind = rng.random()
                amount = rng.choice([rng.uniform(10, 500), 100.0, 250.0])
                if kind < 0.2:
                    flows.append(Flow(("store", "nic@{node}"), amount, label="seq_read"))
                elif kind < 0.35:
                    flows.append(Flow(("wan",), amount, cap=rng.choice([None, 40.0, 500.0]), label="wan"))
                elif kind < 0.45:
                    flows.append(Flow(("iops",), amount / 10, label="rand_read"))
                elif kind < 0.55:
                    flows.append(Flow(("disk@{node}",), amount, label="seq_write"))
                elif kind < 0.65:
                    flows.append(Flow(("tape",), amount, cap=rng.choice([None, 30.0])))
                else:
                    flows.append(Flow(("store",), amount, label="seq_write"))
            phases.append(Phase(f"p{k}", cpu_seconds=rng.choice([0.0, rng.uniform(0, 5), 2.0]),
                                threads=rng.choice([1, 2, 4]), flows=tuple(flows),
                                overhead_s=rng.choice([0.0, 0.0, 1.0])))
        deps = tuple(sorted(rng.sample(range(i), min(i, rng.randint(0, 3)))))
        pool = rng.choice(["d", "s", "e", "j", None]) if i % 10 else "d"
        if pool is None:
            tasks.append(Task(i, "b", (), deps, None))
        else:
            slot = rng.randrange(4) if pool == "s" and rng.random() < 0.5 else None
            queue_s = rng.choice([0.0, 0.0, 5.0]) if pool == "j" else 0.0
            tasks.append(Task(i, f"w{i % 3}", tuple(phases), deps, pool, cores=rng.choice([1, 2]), slot=slot,
                              queue_s=queue_s))
    return TaskGraph(res, pools, tuple(tasks))


def scenarios() -> list[tuple[str, TaskGraph, dict]]:
    """(name, graph, run keyword arguments) of every fingerprinted run."""
    out = []
    for k, p, b, w, seq in [
        (1, 64, 4e9, None, False),
        (1, 64, 4e9, None, True),
        (10, 7, 4e9, None, False),
        (10, 256, 1e9, None, False),
        (25, 1024, 2e10, None, False),
        (25, 100, 4e9, 1e8, True),
        (49, 1024, 4e9, None, False),
        (50, 256, 3e9, 5e9, False),
    ]:
        out.append((f"scale k={k} P={p} B={b:g} W={w} seq={seq}", scale_graph(k, p, b, w, seq),
                    {"record_utilisation": k <= 10}))
    out.append(("scale k=10 P=256 timed", scale_graph(10, 256),
                {"timed_flows": lambda label: {"seq_read": "reads", "wan": "wan"}.get(label)}))
    out.append(("shared_tier 2000/200", shared_tier_graph(2000, 200), {}))
    for seed in range(1, 6):
        out.append((f"mixed seed={seed}", mixed_graph(seed), {}))
    out.append(("mixed seed=9 timed", mixed_graph(9),
                {"timed_flows": lambda label: {"seq_read": "reads", "rand_read": "reads", "wan": "wan"}.get(label)}))
    return out


def digest(result) -> str:
    h = hashlib.sha256()
    t = result.tasks
    h.update(repr(result.makespan_s).encode())
    for col in (t.ready_s, t.start_s, t.end_s):
        h.update(bytes(col))
    h.update("\0".join(t.node).encode())
    h.update("\0".join(t.bound_by).encode())
    h.update(repr(result.pools).encode())
    h.update(repr(sorted(result.moved.items())).encode())
    h.update(repr(sorted(result.utilisation.items())).encode())
    h.update(repr(sorted((k, list(v)) for k, v in result.flow_seconds.items())).encode())
    return h.hexdigest()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--save", help="write the fingerprints to this JSON file")
    ap.add_argument("--against", help="compare with fingerprints saved before")
    args = ap.parse_args(argv)
    out = {}
    for name, graph, kw in scenarios():
        r = run(graph, **kw)
        out[name] = {"makespan_s": r.makespan_s, "events": r.events, "digest": digest(r)}
    if args.save:
        with open(args.save, "w") as f:
            json.dump(out, f, indent=1)
    status = 0
    if args.against:
        with open(args.against) as f:
            before = json.load(f)
        for name, now in out.items():
            was = before.get(name)
            if was is None:
                print(f"{name}: not in {args.against}")
                status = 1
            elif was["digest"] != now["digest"]:
                print(f"{name}: DIFFERS (makespan {was['makespan_s']!r} -> {now['makespan_s']!r})")
                status = 1
            else:
                ev = "" if was["events"] == now["events"] else f", events {was['events']} -> {now['events']}"
                print(f"{name}: identical{ev}")
    else:
        print(json.dumps(out, indent=1))
    return status


if __name__ == "__main__":
    sys.exit(main())
