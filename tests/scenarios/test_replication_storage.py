"""Monte Carlo storage: every replication's outcome as columns, full detail only for the ones pages show."""

from __future__ import annotations

import pytest

from apps.platforms.models import Platform
from apps.scenarios.models import Replication
from apps.scenarios.services import create_run, execute_replication, shown_indexes
from apps.workloads.models import Workload


def test_shown_replications_are_those_at_p10_p50_and_p90_of_the_makespan():
    rows = [(0, 50.0), (1, 10.0), (2, 30.0), (3, 20.0), (4, 40.0), (5, 30.0)]
    # ranked by makespan (ties in index order): 1, 3, 2, 5, 4, 0 -> ranks 0 (P10: round(0.5)), 2 (P50), 4 (P90)
    assert shown_indexes(rows) == [1, 2, 4]
    assert shown_indexes([(7, 1.0)]) == [7]
    assert shown_indexes([]) == []


def test_a_finished_run_keeps_columns_for_all_and_every_task_for_the_shown_replications(catalogue):
    run = create_run(platform=Platform.objects.get(slug="magnus"), workload=Workload.objects.get(slug="chiles-epoch1"),
                     replications=5, seed=3)
    for index in range(5):
        execute_replication(str(run.id), index)
    run.refresh_from_db()
    reps = list(run.replication_set.all())
    assert run.status == "succeeded" and run.results["n"] == 5
    for rep in reps:
        assert rep.makespan_s == rep.result["makespan_s"] and rep.cost_aud == rep.result["total_cost_aud"]
        assert rep.queue_wait_s == rep.result["queue_wait_s"]
        assert rep.result["stages"] and rep.result["cost_lines"]  # what scoring and reports read of every one
    shown = shown_indexes([(r.index, r.makespan_s) for r in reps])
    assert [r.index for r in reps if r.detailed] == shown and len(shown) == 3
    for rep in reps:
        assert ("tasks" in rep.result, "utilisation_series" in rep.result) == (rep.detailed, rep.detailed)
    median = sorted(reps, key=lambda r: r.makespan_s)[2]
    assert median.detailed and len(median.result["tasks"]) > 200 and median.result["utilisation_series"]
    # the detail is the same replication simulated again: its tasks end at the stored makespan
    assert max(t["end_s"] for t in median.result["tasks"]) == pytest.approx(median.makespan_s, rel=1e-12)
    assert Replication.objects.filter(run=run, detailed=True).count() == 3
