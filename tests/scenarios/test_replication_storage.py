"""Monte Carlo storage: every replication's outcome as columns, full detail only for the ones pages show."""

from __future__ import annotations

import pytest

from apps.platforms.models import Platform
from apps.scenarios import services
from apps.scenarios.models import Replication, SimulationRun
from apps.scenarios.services import (
    batch_size,
    create_run,
    dispatch_run,
    execute_replication,
    execute_replications,
    shown_indexes,
)
from apps.workloads.models import Workload
from tests.worker_processes import wait_for


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


def test_big_runs_are_sent_in_batches_and_small_ones_one_replication_a_task():
    assert [batch_size(n) for n in (1, 5, 8, 9, 100, 1000)] == [1, 1, 1, 2, 13, 25]


def test_a_batch_gives_the_results_its_replications_give_one_by_one(catalogue):
    platform, workload = Platform.objects.get(slug="magnus"), Workload.objects.get(slug="chiles-epoch1")
    one_by_one = create_run(platform=platform, workload=workload, replications=4, seed=5)
    for index in range(4):
        execute_replication(str(one_by_one.id), index)
    assert list(services._models) == [one_by_one.pk]  # its tasks after the first reused the run's model
    batched = create_run(platform=platform, workload=workload, replications=4, seed=5)
    assert execute_replications(str(batched.id), [0, 1, 2, 3]) == dict.fromkeys(range(4), "succeeded")
    assert execute_replications(str(batched.id), [0, 1]) == dict.fromkeys(range(2), "succeeded")  # idempotent
    columns = ("index", "makespan_s", "cost_aud", "queue_wait_s", "detailed")
    assert list(batched.replication_set.values_list(*columns)) == list(one_by_one.replication_set.values_list(*columns))
    one_by_one.refresh_from_db()
    batched.refresh_from_db()
    assert batched.status == "succeeded" and batched.results == one_by_one.results


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_a_worker_runs_a_big_run_in_batches(celery_worker_process, catalogue):
    run = create_run(platform=Platform.objects.get(slug="aws-sydney"),
                     workload=Workload.objects.get(slug="chiles-epoch1"), replications=17, seed=2)
    dispatch_run(run)
    wait_for(lambda: SimulationRun.objects.get(pk=run.pk).is_finished, 600, "the run to finish")
    run.refresh_from_db()
    assert run.status == "succeeded", run.error
    assert run.results["n"] == 17
    tasks = list(run.replication_set.values_list("task_id", flat=True))
    assert len(set(tasks)) == 6 and "" not in tasks  # batches of 3 (17 = 5 x 3 + 2)
    assert run.replication_set.filter(status="succeeded", makespan_s__isnull=False).count() == 17
