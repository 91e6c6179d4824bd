"""Cost of recording what each task's I/O achieved: the runner with and without its read / write / random-I/O
timers.

Builds catalogue scenarios (the CHILES epoch on Magnus and AWS as the paper ran them, sdp-predict-p3 on Magnus
at ``--jobs`` jobs), then runs each graph ``--repeat`` times without timers (``run(graph)``) and with them
(``run(graph, timed_flows=io_timer)`` plus :func:`simulator.model.achieved.achieved_io`), best of the repeats,
utilisation not recorded.  Prints one JSON object per scenario.

Usage: ``python bench/achieved_io.py [--jobs 1000 5000] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
from dataclasses import replace

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from simulator.model.achieved import achieved_io, io_timer  # noqa: E402
from simulator.model.catalogue import load_catalogue  # noqa: E402
from simulator.model.simulate import build  # noqa: E402
from simulator.model.specs import ScenarioSpec  # noqa: E402
from simulator.model.validation import epoch_scenario  # noqa: E402
from simulator.runner import run  # noqa: E402


def _best(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            t0 = time.perf_counter()
            out = fn()
            best = min(best, time.perf_counter() - t0)
        finally:
            gc.enable()
    return best, out


def measure(label: str, scenario: ScenarioSpec, repeat: int) -> dict:
    graph = build(scenario).graph
    plain_s, plain = _best(lambda: run(graph, record_utilisation=False), repeat)

    def timed():
        r = run(graph, record_utilisation=False, timed_flows=io_timer)
        return r, achieved_io(graph.tasks, r.flow_seconds)

    timed_s, (result, io) = _best(timed, repeat)
    return {"scenario": label, "tasks": len(graph.tasks), "run_s": round(plain_s, 4),
            "run_with_timers_s": round(timed_s, 4), "ratio": round(timed_s / plain_s, 3),
            "same_makespan": plain.makespan_s == result.makespan_s,
            "read_mb_per_s_median": None if io.read_bytes_per_s_median is None
            else round(io.read_bytes_per_s_median / 1e6, 2),
            "write_mb_per_s_median": None if io.write_bytes_per_s_median is None
            else round(io.write_bytes_per_s_median / 1e6, 2),
            "iops_median": None if io.ops_per_s_median is None else round(io.ops_per_s_median, 1)}


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, nargs="*", default=[1000, 5000])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    platforms, workloads, _ = load_catalogue(os.path.join(ROOT, "fixtures", "catalogue"))
    chiles, sdp = workloads["chiles-epoch1"], workloads["sdp-predict-p3"]
    cases = [(f"chiles-epoch1 on {slug}", epoch_scenario(platforms[slug], chiles)) for slug in ("magnus", "aws-sydney")]
    for n in args.jobs:
        w = replace(sdp, parameters={**sdp.parameters, "n_jobs": n})
        cases.append((f"sdp-predict-p3 ({n} jobs) on magnus", ScenarioSpec(platforms["magnus"], w)))
    out = []
    for label, scenario in cases:
        row = measure(label, scenario, args.repeat)
        print(json.dumps(row), flush=True)
        out.append(row)
    return out


if __name__ == "__main__":
    main()
