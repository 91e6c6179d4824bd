"""SDP predict on Magnus as the job array grows: this tree against a peer tree (another commit), in the same run.

Every job's I/O crosses the shared Lustre tier and its own node's NIC (1,536 nodes), the case where the fluid model
once grew with the square of the jobs.  For each job count, each tree simulates one replication in its own process
(``simulate()`` on the fixtures catalogue, utilisation recorded as a detailed replication does), alternating trees;
the best of ``--repeat`` runs is kept.  Prints one JSON object per job count: seconds per tree, the peer/this ratio,
and whether makespan and cost agree (to 1e-12 relative).

    .venv/bin/python bench/sdp_magnus.py --peer /path/to/other/worktree [--jobs 1000 2000 5000] [--repeat 1]

A peer tree is made with ``git worktree add /tmp/peer COMMIT``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def one(tree: str, jobs: int, platform: str, workload: str) -> dict:
    """Simulate ``workload`` on ``platform`` with ``jobs`` jobs using the simulator of ``tree``."""
    sys.path.insert(0, tree)
    from dataclasses import replace

    from simulator.contract import RunOptions, scenario_spec
    from simulator.model.catalogue import load_catalogue
    from simulator.model.simulate import simulate

    platforms, workloads, _ = load_catalogue(os.path.join(tree, "fixtures", "catalogue"))
    w = workloads[workload]
    w = replace(w, parameters={**w.parameters, "n_jobs": float(jobs)})
    spec = scenario_spec(RunOptions(), platforms[platform], w)
    t0 = time.perf_counter()
    result = simulate(spec)
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "makespan_s": result.makespan_s, "cost_aud": result.total_cost_aud,
            "tasks": len(result.tasks)}


def run_in(tree: str, jobs: int, args) -> dict:
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", str(jobs), "--tree", tree,
                          "--platform", args.platform, "--workload", args.workload],
                         check=True, capture_output=True, text=True, timeout=args.timeout)
    return json.loads(out.stdout)


def _close(a: float, b: float) -> bool:
    return a == b or abs(a - b) <= 1e-12 * max(abs(a), abs(b))


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--peer", help="another worktree to compare with (e.g. the commit before a change)")
    ap.add_argument("--jobs", type=int, nargs="+", default=[1000, 2000, 5000])
    ap.add_argument("--platform", default="magnus")
    ap.add_argument("--workload", default="sdp-predict-p3")
    ap.add_argument("--repeat", type=int, default=1, help="best of R runs per tree (machine noise)")
    ap.add_argument("--timeout", type=float, default=900.0, help="give up on one run after this many seconds")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--tree", default=ROOT, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one is not None:
        print(json.dumps(one(args.tree, args.one, args.platform, args.workload)))
        return []
    rows = []
    for jobs in args.jobs:
        best: dict[str, dict] = {}
        for _ in range(max(1, args.repeat)):
            for name, tree in (("this", ROOT), ("peer", args.peer)):
                if tree is None:
                    continue
                r = run_in(tree, jobs, args)
                if name not in best or r["seconds"] < best[name]["seconds"]:
                    best[name] = r
        row = {"jobs": jobs, "tasks": best["this"]["tasks"], "this_s": round(best["this"]["seconds"], 3)}
        if "peer" in best:
            p, t = best["peer"], best["this"]
            row |= {"peer_s": round(p["seconds"], 3), "peer_over_this": round(p["seconds"] / t["seconds"], 2),
                    "same_makespan_and_cost": _close(p["makespan_s"], t["makespan_s"]) and _close(p["cost_aud"],
                                                                                                  t["cost_aud"])}
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


if __name__ == "__main__":
    main()
