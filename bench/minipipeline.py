"""Model vs measurement of the benchmark harness's mini-pipeline on this host, at several sizes (no Celery).

For each size: the prediction's inputs are measured (the pipeline's kernels, new-memory first touch and file
operations at its own sizes — :mod:`apps.benchmarks.comparison`),
the mini-pipeline runs (copy → split → invert → concat on real files), and the simulator's prediction is printed
beside the measurement per stage and in total, with the error in percent — against the wall-clock time and
against that time less the run-queue wait (time the process was runnable while other processes held the CPU;
the prediction is for a host to itself).  Everything is repeated ``--repeat``
times and the best of each is kept (highest rates, shortest stage and run times): the host may be shared.

Usage: ``python bench/minipipeline.py [--sizes 256,512,1024] [--repeat 3] [--directory DIR] [--json]`` (sizes
in MiB; the directory defaults to the system's temporary directory).  Prints a table, or one JSON object.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from apps.benchmarks.comparison import compare, prediction_inputs  # noqa: E402
from apps.benchmarks.probes.hostinfo import host_info  # noqa: E402
from apps.benchmarks.probes.minipipeline import layout_for, run_minipipeline  # noqa: E402

MiB = 1024 * 1024


def _load() -> str:
    with open("/proc/loadavg") as fh:
        return " ".join(fh.read().split()[:3])


def best_inputs(runs: list[dict]) -> dict:
    """The highest rate of each storage pattern and of each kernel over the repeated probes."""
    points = {}
    for r in runs:
        for p in r["storage"]["points"]:
            if p["pattern"] not in points or p["bytes_per_s"] > points[p["pattern"]]["bytes_per_s"]:
                points[p["pattern"]] = p
    storage = {**runs[0]["storage"], "points": list(points.values())}
    rates = {k: max(r["kernel_rates"][k] for r in runs) for k in runs[0]["kernel_rates"]}
    return {"storage": storage, "kernel_rates": rates, "memory": runs[0]["memory"]}


def best_measured(runs: list[dict]) -> dict:
    """The shortest run and, per stage, the shortest time that stage took in any run."""
    best = min(runs, key=lambda r: r["makespan_s"])
    stages = {}
    for name in best["stages"]:
        fastest = min(runs, key=lambda r: r["stages"][name]["end_s"] - r["stages"][name]["start_s"])
        st = fastest["stages"][name]
        stages[name] = {**st, "start_s": 0.0, "end_s": st["end_s"] - st["start_s"]}
    return {**best, "stages": stages, "all_makespans_s": [r["makespan_s"] for r in runs],
            "all_waits_s": [r["runqueue_wait_s"] for r in runs]}


def run_size(size_mb: int, repeat: int, directory: str, host: dict) -> dict:
    lay = layout_for(size_mb * MiB)
    inputs_runs, measured_runs, loads = [], [], []
    for _ in range(repeat):
        scratch = tempfile.mkdtemp(prefix="skyplan-bench-", dir=directory)
        try:
            loads.append(_load())
            inputs_runs.append(prediction_inputs(os.path.join(scratch, "probe"), lay))
            shutil.rmtree(os.path.join(scratch, "probe"))
            measured_runs.append(run_minipipeline(os.path.join(scratch, "pipeline"), lay))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    inputs, measured = best_inputs(inputs_runs), best_measured(measured_runs)
    result = compare("this-host", host, inputs, measured, lay)
    return {"size_mb": size_mb, "layout": measured["layout"], "repeat": repeat, "load_before_each": loads,
            "at_rest": [r.get("at_rest") for r in measured_runs],
            "all_makespans_s": measured["all_makespans_s"], "all_runqueue_waits_s": measured["all_waits_s"],
            "measured_makespan_s": measured["makespan_s"], "measured_dedicated_s": result["measured_dedicated_s"],
            "predicted_s": result["predicted"]["sequential_s"], "error_pct": result["prediction_error_pct"],
            "dedicated_error_pct": result["dedicated_error_pct"], "notes": result["notes"],
            "stages": {k: {**v, "system_s": measured["stages"][k]["system_s"]} for k, v in result["stages"].items()},
            "parts": {k: {p: x["task_seconds"] for p, x in v["parts"].items()}
                      for k, v in result["predicted"]["stages"].items()},
            "inputs": {
                "storage": {p["pattern"]: p["bytes_per_s"] for p in inputs["storage"]["points"]},
                "storage_tool": inputs["storage"]["tool"], "kernel_rates": inputs["kernel_rates"]}}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="256,512,1024", help="comma-separated sizes in MiB")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--directory", default=tempfile.gettempdir())
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    host = host_info()
    out = {"host": host["hostname"], "cores": host["usable_cores"], "memory_bytes": host["memory_bytes"],
           "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"), "directory": args.directory,
           "benchmark": "bench/minipipeline.py", "sizes": []}
    for size in (int(s) for s in args.sizes.split(",")):
        r = run_size(size, args.repeat, args.directory, host)
        out["sizes"].append(r)
        if not args.json:
            _print(r, out if len(out["sizes"]) == 1 else None)
    out["load_after"] = _load()
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"load average after: {out['load_after']}")
    return out


def _print(r: dict, header: dict | None) -> None:
    if header:
        print(f"host {header['host']} ({header['cores']} cores, {header['memory_bytes'] / 2**30:.1f} GiB), "
              f"{header['date']}, {header['directory']}")
    inp = r["inputs"]
    print(f"\n{r['size_mb']} MiB, best of {r['repeat']} (load before each run: {'; '.join(r['load_before_each'])})")
    print(f"  inputs ({inp['storage_tool']}): "
          + ", ".join(f"{k} {v / 1e6:.0f} MB/s" for k, v in inp["storage"].items()) + "; kernels "
          + ", ".join(f"{k.removesuffix('_per_s')} {v / 1e6:.1f} M/s" for k, v in inp["kernel_rates"].items()))
    print(f"  {'stage':8s} {'measured s':>10s} {'less wait s':>11s} {'predicted s':>11s} {'error':>7s} "
          f"{'vs less wait':>12s}   {'system s':>8s}  predicted parts")

    def pct(x):
        return f"{x:+.0f}%" if x is not None else "n/a"

    for name, st in r["stages"].items():
        parts = ", ".join(f"{k.split(':')[1]} {v:.2f}" for k, v in r["parts"][name].items())
        print(f"  {name:8s} {st['measured_s']:10.2f} {st['dedicated_s']:11.2f} {st['predicted_s']:11.2f} "
              f"{pct(st['error_pct']):>7s} {pct(st['dedicated_error_pct']):>12s}   {st['system_s']:8.2f}  {parts}")
    print(f"  {'total':8s} {r['measured_makespan_s']:10.2f} {r['measured_dedicated_s']:11.2f} {r['predicted_s']:11.2f} "
          f"{pct(r['error_pct']):>7s} {pct(r['dedicated_error_pct']):>12s}")
    print(f"  all runs: {', '.join(f'{m:.2f}' for m in r['all_makespans_s'])} s; waiting for a CPU: "
          f"{', '.join(f'{w:.2f}' for w in r['all_runqueue_waits_s'])} s")
    for rest in r["at_rest"]:
        if rest and rest.get("drain"):
            d = rest["drain"]
            print(f"  at rest: waited {rest['settled_s']:.0f} s, then held {d['bytes'] / MiB:.0f} MiB of new pages "
                  f"({d['warm_bytes'] / MiB:.0f} MiB still cheap), new pages then at "
                  f"{(d['steady_bytes_per_s'] or 0) / 1e6:.0f} MB/s (rewriting cached pages "
                  f"{d['rewrite_bytes_per_s'] / 1e6:.0f} MB/s)")
    for note in r["notes"]:
        print(f"  note: {note}")


if __name__ == "__main__":
    main()
