"""Monte Carlo through the real path: request → Celery → simulator → stored summary, against the engine alone.

Creates a run of N replications (default 1,000) of the CHILES epoch on a platform (default magnus) in a throwaway
test database, sends it to one Celery worker with two processes (``--concurrency 2``) and times it from the
request (``create_run`` + ``dispatch_run``) until the run's summary is stored.  In the same process (first) it
times the engine alone on the same model (the scenario's task graph, built once, run ``--engine-runs`` times) and prints
both rates in tasks per second and their ratio, and the CPU time the worker's processes used per replication
(user + system, from ``/proc``; on a machine shared with other work the wall time varies with its load, this much
less).  Targets (issue 19): wall < 10 s and ratio ≥ 0.40.  It also times the engine alone on the graphs the
replications themselves run (``engine_drawn_…``: each seed's queue waits and per-task storage rates drawn, as the
path simulates them; about three times the events of the undrawn graph) and prints the path's rate against that too
(``ratio_to_drawn``: what is left to the path's own overhead).  The engine alone is timed as the path runs it: with
the cyclic garbage collector paused (:mod:`simulator.collector`), so the ratios compare the same engine.

``--workload`` takes a catalogue workload's slug (default ``chiles-epoch1``, CHILES as data of the general stage
model) or the path of a workload file (docs/workloads-format.md; imported into the throwaway database, its first
workload timed).

    DATABASE_URL=postgres://... CELERY_BROKER_URL=redis://... .venv/bin/python bench/montecarlo.py
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from _django import ROOT, throwaway_database


def engine_rate(inputs: dict, seed: int, runs: int) -> tuple[float, int, int]:
    """Tasks per second of the engine alone on the run's model (graph built once, utilisation not recorded), its
    tasks and its events per run."""
    from apps.scenarios.adapters import scenario_from_inputs
    from simulator.collector import collector_paused
    from simulator.model.simulate import build
    from simulator.runner import run

    graph = build(scenario_from_inputs(inputs, seed)).graph
    events = run(graph, record_utilisation=False).events  # warm
    started = time.perf_counter()
    for _ in range(runs):
        with collector_paused():
            run(graph, record_utilisation=False)
    return runs * len(graph.tasks) / (time.perf_counter() - started), len(graph.tasks), events


def drawn_engine_rate(inputs: dict, seed: int, replications: int) -> tuple[float, int]:
    """Tasks per second and events per run of the engine alone on the graphs the first ``replications`` of the run
    simulate: each with its own draws (queue waits, WAN and storage rates per task), which give the engine about three
    times the events of the undrawn graph :func:`engine_rate` times.  The graphs are the ones the model hands the
    engine (caught on their way in, made before timing)."""
    from apps.scenarios.adapters import scenario_from_inputs
    from simulator.collector import collector_paused
    from simulator.model import simulate as model_simulate
    from simulator.model.simulate import prepare, replication_seed
    from simulator.runner import run

    model = prepare(scenario_from_inputs(inputs, seed))
    graphs = []

    def catch(graph, **kwargs):
        graphs.append(graph)
        return run(graph, **kwargs)

    model_simulate.run = catch
    try:
        for index in range(replications):
            model.simulate(replication_seed(seed, index), record_utilisation=False, task_bars=False)
    finally:
        model_simulate.run = run
    events = run(graphs[0], record_utilisation=False).events  # warm
    started = time.perf_counter()
    for graph in graphs:
        with collector_paused():
            run(graph, record_utilisation=False)
    return sum(len(g.tasks) for g in graphs) / (time.perf_counter() - started), events


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=1000)
    parser.add_argument("--workload", default="chiles-epoch1")
    parser.add_argument("--platform", default="magnus")
    parser.add_argument("--engine-runs", type=int, default=200)
    parser.add_argument("--timeout", type=float, default=900.0, help="give up after this many seconds")
    args = parser.parse_args()

    with throwaway_database():
        from django.conf import settings
        from django.db import connection

        worker = None
        try:
            from apps.platforms.models import Platform
            from apps.scenarios.models import FINISHED, Replication, SimulationRun
            from apps.scenarios.services import create_run, dispatch_run, run_inputs
            from apps.workloads.catalogue import load_catalogue
            from apps.workloads.models import Workload

            load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
            slug = args.workload
            if Path(args.workload).is_file():
                from apps.workloads.files import file_entries, import_workloads

                import_workloads(Path(args.workload))
                slug = file_entries(Path(args.workload))[0][1]["slug"]
            platform = Platform.objects.get(slug=args.platform)
            workload = Workload.objects.get(slug=slug)
            rate, tasks, events = engine_rate(run_inputs(platform=platform, workload=workload), 0, args.engine_runs)
            drawn_rate, drawn_events = drawn_engine_rate(run_inputs(platform=platform, workload=workload), 0,
                                                         args.engine_runs)

            db = connection.settings_dict
            env = dict(os.environ, DATABASE_URL=f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/"
                                                f"{db['NAME']}", CELERY_TASK_DEFAULT_QUEUE="bench.montecarlo")
            log_path = ROOT / "var" / "bench-montecarlo-worker.log"
            log_path.parent.mkdir(exist_ok=True)
            log = open(log_path, "w")  # noqa: SIM115 - closed below
            worker = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "apps", "worker", "-Q", "bench.montecarlo", "--pool=prefork",
                 "--concurrency=2", "--loglevel=WARNING", "--without-mingle", "--without-gossip", "--without-heartbeat",
                 "-n", "bench-montecarlo@%h"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
            # warm the worker (imports, catalogue fits) with a one-replication run before timing
            warm = create_run(platform=platform, workload=workload, replications=1, seed=1)
            os.environ["CELERY_TASK_DEFAULT_QUEUE"] = "bench.montecarlo"
            from apps.celery import app

            app.conf.task_default_queue = "bench.montecarlo"
            dispatch_run(warm)
            _wait(lambda: SimulationRun.objects.get(pk=warm.pk).status in FINISHED, 120, worker, log_path)

            cpu_before = _tree_cpu_s(worker.pid)
            load_before = os.getloadavg()[0]
            started = time.perf_counter()
            run = create_run(platform=platform, workload=workload, replications=args.replications, seed=0)
            dispatch_run(run)
            _wait(lambda: SimulationRun.objects.get(pk=run.pk).status in FINISHED, args.timeout, worker, log_path)
            wall = time.perf_counter() - started
            run.refresh_from_db()
            if run.status != SimulationRun.Status.SUCCEEDED or not run.results:
                print(f"run ended {run.status}: {run.error}", file=sys.stderr)
                return 1
            stored = Replication.objects.filter(run=run, status=SimulationRun.Status.SUCCEEDED).count()
            worker_cpu = _tree_cpu_s(worker.pid) - cpu_before

            path_rate = args.replications * tasks / wall
            out = {
                "workload": args.workload, "replications": args.replications, "stored": stored, "tasks_per_replication": tasks,
                "wall_s": round(wall, 2), "path_tasks_per_s": round(path_rate), "engine_tasks_per_s": round(rate),
                "ratio": round(path_rate / rate, 3), "makespan_p50_s": run.results["makespan_p50_s"],
                "engine_ms_per_replication": round(1000 * tasks / rate, 2),
                "engine_events_per_run": events, "engine_drawn_tasks_per_s": round(drawn_rate), "engine_drawn_events_per_run": drawn_events,
                "ratio_to_drawn": round(path_rate / drawn_rate, 3),
                "engine_drawn_ms_per_replication": round(1000 * tasks / drawn_rate, 2),
                "worker_cpu_ms_per_replication": round(1000 * worker_cpu / args.replications, 2),
                "load_avg_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
                "targets": {"wall_s": "< 10", "ratio": ">= 0.40"},
            }
            print(json.dumps(out))
            return 0
        finally:
            if worker is not None:
                worker.terminate()
                try:
                    worker.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    worker.kill()


def _tree_cpu_s(pid: int) -> float:
    """CPU seconds (user + system) used so far by process ``pid`` and every process under it (Linux ``/proc``)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/stat", encoding="ascii") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children", encoding="ascii") as fh:
                    todo += [int(c) for c in fh.read().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue  # it ended meanwhile
    return total


def _wait(predicate, timeout: float, worker, log_path: Path) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if worker.poll() is not None:
            raise RuntimeError(f"the worker exited, see {log_path}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {timeout:.0f} s, see {log_path}")
        time.sleep(0.05)


if __name__ == "__main__":
    sys.exit(main())
