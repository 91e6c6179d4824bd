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


def test_a_run_of_more_replications_than_tasks_simulates_its_shown_replications_again_in_detail(catalogue):
    # small runs keep every replication's detail from the start and drop it from the unshown ones at the end; a run
    # of more replications than MIN_TASKS keeps none and simulates the shown ones again: both store the same
    platform, workload = Platform.objects.get(slug="magnus"), Workload.objects.get(slug="chiles-epoch1")
    model = services.prepare(services.scenario_from_inputs(create_run(platform=platform, workload=workload).inputs, 0))
    assert services.records_detail(services.MIN_TASKS, model) and not services.records_detail(
        services.MIN_TASKS + 1, model)
    runs = []
    for n in (services.MIN_TASKS, services.MIN_TASKS + 1):
        run = create_run(platform=platform, workload=workload, replications=n, seed=3)
        execute_replications(str(run.id), list(range(n)))
        runs.append({r.index: r for r in run.replication_set.all()})
    small, big = runs
    for reps in runs:
        shown = shown_indexes([(r.index, r.makespan_s) for r in reps.values()])
        assert sorted(i for i, r in reps.items() if r.detailed) == shown
        for rep in reps.values():
            assert ("tasks" in rep.result, "utilisation_series" in rep.result) == (rep.detailed, rep.detailed)
    assert any(rep.detailed and big[index].detailed for index, rep in small.items())
    for index, rep in small.items():  # the same seeds give the same replications, kept or simulated again
        assert big[index].makespan_s == rep.makespan_s
        if rep.detailed and big[index].detailed:
            assert big[index].result == rep.result


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


def test_saving_a_batch_keeps_a_replication_cancelled_meanwhile_cancelled(catalogue):
    run = create_run(platform=Platform.objects.get(slug="magnus"), workload=Workload.objects.get(slug="chiles-epoch1"),
                     replications=3, seed=4)
    reps = services.REPLICATION_JOBS.start_all(list(run.replication_set.all()), "w@host", None)
    assert [r.status for r in reps] == ["running"] * 3
    model = services.prepare(services.scenario_from_inputs(run.inputs, run.seed))
    done = [(rep, model.simulate(rep.seed, record_utilisation=False, task_bars=False), False) for rep in reps]
    Replication.objects.filter(pk=reps[1].pk).update(status="cancelled")  # a cancel while the batch ran
    statuses: dict = {}
    services._save_results(done, statuses)
    assert statuses == {0: "succeeded", 1: "cancelled", 2: "succeeded"} and done == []
    rows = {r.index: r for r in run.replication_set.all()}
    assert rows[1].status == "cancelled" and rows[1].result is None and rows[1].makespan_s is None
    assert rows[0].makespan_s == rows[0].result["makespan_s"] and rows[2].progress == 1.0


def test_saving_a_batch_writes_every_replication_still_running(catalogue):
    run = create_run(platform=Platform.objects.get(slug="magnus"), workload=Workload.objects.get(slug="chiles-epoch1"),
                     replications=2, seed=4)
    reps = services.REPLICATION_JOBS.start_all(list(run.replication_set.all()), "w@host", None)
    model = services.prepare(services.scenario_from_inputs(run.inputs, run.seed))
    statuses: dict = {}
    services._save_results([(rep, model.simulate(rep.seed, record_utilisation=False, task_bars=False), False)
                            for rep in reps], statuses)
    assert statuses == {0: "succeeded", 1: "succeeded"}
    assert list(run.replication_set.values_list("status", flat=True)) == ["succeeded", "succeeded"]
