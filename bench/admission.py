"""Memory per task of one replication, the figure behind the admission estimate (``simulator.contract.BYTES_PER_TASK``).

For each reference platform, the CHILES epoch is simulated once under ``tracemalloc`` (traced peak / tasks of its
graph); the SDP job array (the general model: three tasks per job) is simulated with ``--jobs`` jobs in a child
process and measured by its resident memory growth per task of its graph (tracemalloc would slow it too much).  The estimate's own task count is printed beside the graph's.

Usage: ``python bench/admission.py [--jobs N]``; prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tracemalloc
from dataclasses import replace

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from simulator.contract import RunOptions, estimate, scenario_spec  # noqa: E402
from simulator.model.catalogue import load_catalogue  # noqa: E402
from simulator.model.simulate import build, simulate  # noqa: E402

__all__ = ["chiles_bytes_per_task", "job_array_bytes_per_task", "main"]

CATALOGUE = os.path.join(ROOT, "fixtures", "catalogue")


def chiles_bytes_per_task(platform: str) -> dict:
    platforms, workloads, _ = load_catalogue(CATALOGUE)
    spec = scenario_spec(RunOptions(), platforms[platform], workloads["chiles-epoch1"], seed=1)
    tasks = len(build(spec).graph.tasks)
    tracemalloc.start()
    simulate(spec, seed=1)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"platform": platform, "tasks": tasks, "estimated_tasks": estimate(spec).tasks,
            "peak_mb": round(peak / 1e6, 1), "bytes_per_task": round(peak / tasks)}


def job_array_bytes_per_task(jobs: int) -> dict:
    """In this process (called with ``--child``): simulate the job array and report resident memory growth."""
    platforms, workloads, _ = load_catalogue(CATALOGUE)
    w = workloads["sdp-predict-p3"]
    w = replace(w, parameters={**w.parameters, "n_jobs": jobs})
    spec = scenario_spec(RunOptions(), platforms["sdp-p3"], w, seed=1)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    result = simulate(spec, seed=1)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    tasks = len(result.tasks)
    return {"jobs": jobs, "tasks": tasks, "estimated_tasks": estimate(spec).tasks,
            "rss_growth_mb": round((after - before) / 1e6, 1), "bytes_per_task": round((after - before) / tasks)}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=40_000)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        out = job_array_bytes_per_task(args.jobs)
    else:
        child = subprocess.run([sys.executable, __file__, "--child", "--jobs", str(args.jobs)], check=True,
                               capture_output=True, text=True)
        out = {"chiles": [chiles_bytes_per_task(p) for p in ("pleiades", "magnus", "aws-sydney")],
               "stages": json.loads(child.stdout)}
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
