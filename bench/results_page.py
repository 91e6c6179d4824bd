"""Server time of the demo scenario's results page: p50/p95/max over N requests with Django's test client.

Prepares the demo scenario (chiles-epoch1 on pleiades, magnus and aws-sydney, replications run in-process), times
what the worker does when its last run ends (the results in parts: ranked results, charts, validation; the page
never computes them itself while a worker will), then the first render and N more of ``/scenarios/<id>/``.
Target: p95 < 300 ms.

    DATABASE_URL=postgres://... .venv/bin/python bench/results_page.py --requests 50
"""

from __future__ import annotations

import argparse
import statistics
import time

from _django import throwaway_database


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--target-ms", type=float, default=300.0)
    args = parser.parse_args()

    with throwaway_database():
        from django.conf import settings
        from django.contrib.auth import get_user_model
        from django.core.management import call_command
        from django.test import Client

        from apps.scenarios.models import Scenario
        from apps.scenarios.services import create_demo_scenario, execute_replication, prepare_results, run_scenario
        from apps.workloads.catalogue import load_catalogue

        call_command("migrate", verbosity=0)
        load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
        user = get_user_model().objects.create_user(username="bench", password="bench-password")
        scenario = create_demo_scenario(user=user)
        run_scenario(scenario)
        started = time.perf_counter()
        for run in scenario.runs():
            for rep in run.replication_set.all():
                execute_replication(str(run.id), rep.index)
        simulate_s = time.perf_counter() - started
        Scenario.objects.filter(pk=scenario.pk).update(results_cache=None)
        t0 = time.perf_counter()
        prepare_results(Scenario.objects.get(pk=scenario.pk))
        prepare_ms = 1000 * (time.perf_counter() - t0)

        client = Client()
        client.force_login(user)
        url = scenario.get_absolute_url()
        t0 = time.perf_counter()
        response = client.get(url)
        cold_ms = 1000 * (time.perf_counter() - t0)
        assert response.status_code == 200, response.status_code
        times = []
        for _ in range(args.requests):
            t0 = time.perf_counter()
            response = client.get(url)
            times.append(1000 * (time.perf_counter() - t0))
            assert response.status_code == 200
        times.sort()
        p95 = times[min(len(times) - 1, int(round(0.95 * len(times))) - 1)]
        print(f"demo scenario: {len(scenario.runs())} platforms x {scenario.replications} replications "
              f"simulated in-process in {simulate_s:.2f} s")
        print(f"results page {url}: {len(response.content) / 1024:.0f} KiB")
        print(f"results prepared as on the worker (every part): {prepare_ms:.1f} ms")
        print(f"first render: {cold_ms:.1f} ms")
        print(f"cached renders over {len(times)} requests: p50 {statistics.median(times):.1f} ms, "
              f"p95 {p95:.1f} ms, max {times[-1]:.1f} ms (target p95 < {args.target_ms:.0f} ms)")
        return 0 if p95 < args.target_ms else 1


if __name__ == "__main__":
    raise SystemExit(main())
