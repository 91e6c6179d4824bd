"""A worker killed mid-run (SIGKILL of its process tree) never leaves a run stuck "running".

Each test starts a real Celery worker on a private queue, dispatches a long simulation or benchmark to it, kills
the worker and every process under it once the run is running, then starts another worker on the same queue.
With the Redis broker the killed task stays unacknowledged until the visibility timeout (an hour), so the run
is not retried within the test: the lost-run sweep (in the new worker, and on reading the run's status) must end
it "failed" with a reason naming the lost worker.  A later redelivery of the task then changes nothing.
"""

from __future__ import annotations

import os
import time
import uuid

import pytest
from worker_processes import Worker
from worker_processes import kill_tree as _kill_tree
from worker_processes import wait_for as _wait

from apps.benchmarks import services as bench_services
from apps.benchmarks.models import BenchmarkRun
from apps.platforms.models import Platform, StorageTier
from apps.scenarios import services as run_services
from apps.scenarios.models import SimulationRun
from apps.workloads.models import Workload

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]


@pytest.fixture(autouse=True)
def _need_redis():
    if not os.environ.get("CELERY_BROKER_URL", "").startswith("redis"):
        pytest.skip("worker tests need CELERY_BROKER_URL pointing at Redis")


@pytest.fixture
def workers():
    started: list[Worker] = []

    def start(queue: str, name: str) -> Worker:
        w = Worker(queue, name)
        started.append(w)
        return w

    yield start
    for w in started:
        w.stop()


def test_a_simulation_whose_worker_is_killed_ends_failed_naming_the_worker(workers, settings):
    from apps.celery import app
    from apps.workloads.catalogue import load_catalogue

    load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
    queue = f"reliability-{uuid.uuid4().hex[:8]}"
    first = workers(queue, f"{queue}-a")
    workload = Workload.objects.get(slug="sdp-predict-p3")
    workload.parameters = {**workload.parameters, "n_jobs": 160000.0}  # 480,000 tasks (~30 s): killed long before
    workload.save()
    run = run_services.create_run(platform=Platform.objects.get(slug="sdp-p3"), workload=workload)
    default_queue = app.conf.task_default_queue
    app.conf.task_default_queue = queue
    try:
        run_services.dispatch_run(run)
    finally:
        app.conf.task_default_queue = default_queue
    rep = run.replication_set.get()
    _wait(lambda: (rep.refresh_from_db(), rep.status == "running" and rep.progress > 0)[1], 90,
          "the replication to make progress on the first worker")
    assert rep.worker == first.node

    _kill_tree(first.proc)
    workers(queue, f"{queue}-b")  # another worker on the same queue; it sweeps for lost runs as it starts

    def finished():
        run_services.run_page(SimulationRun.objects.get(pk=run.pk))  # reading the run sweeps too
        run.refresh_from_db()
        return run.is_finished

    _wait(finished, 60, "the run to end after its worker was killed")
    rep.refresh_from_db()
    assert run.status == "failed" and rep.status == "failed"
    assert f"worker {first.node} lost at " in run.error and run.error == rep.error
    assert rep.result is None and run.results is None
    # the killed task's redelivery (after the broker's visibility timeout) finds the run finished: nothing changes
    assert run_services.execute_replication(str(run.id), rep.index, worker="late@host") == "failed"
    rep.refresh_from_db()
    assert rep.worker == first.node and rep.status == "failed"


def test_a_benchmark_whose_worker_is_killed_ends_failed_naming_the_worker(workers, client, django_user_model):
    slug = f"reliability-host-{uuid.uuid4().hex[:6]}"
    platform = Platform.objects.create(slug=slug, name=f"candidate host {slug}", kind="owned_cluster")
    StorageTier.objects.create(platform=platform, name="local scratch", kind="local_ssd")
    first = workers(f"bench.{slug}", f"bench-{slug}-a")
    # storage at 1, 2, 4 and 8 streams, 5 s each pattern and level: over a minute, killed after a few seconds
    run = bench_services.create_benchmark(platform=platform, kind="storage",
                                          parameters={"size_mb": 16, "runtime_s": 5, "max_jobs": 8})
    bench_services.dispatch(run)
    _wait(lambda: (run.refresh_from_db(), run.status == "running")[1], 90, "the benchmark to start")
    assert run.host["worker"] == first.node
    time.sleep(2)  # in the middle of the fio runs

    killed = _kill_tree(first.proc)
    assert len(killed) >= 2  # the worker, its pool process (and fio when caught running)
    workers(f"bench.{slug}", f"bench-{slug}-b")

    client.force_login(django_user_model.objects.create_user("reliability", password="x"))

    def finished():
        status = client.get(f"/benchmarks/{run.id}/status/").json()  # reading the status sweeps too
        return status if status["finished"] else None

    status = _wait(finished, 60, "the benchmark to end after its worker was killed")
    run.refresh_from_db()
    assert status["status"] == run.status == "failed"
    assert f"worker {first.node} lost at " in run.error and status["error"] == run.error
    assert run.result is None and not run.measured_values.exists()
    assert bench_services.execute(str(run.id), worker="late@host") == "failed"  # a redelivery changes nothing
    assert BenchmarkRun.objects.get(pk=run.pk).status == "failed"
