"""Every kind of job lives the one job life (apps.core.jobs) on real workers: a worker killed (SIGKILL of its process
tree) under a profile import, a configuration search or a report leaves it failed, naming the worker, within 60 s;
cancelling a long simulation frees the worker's slot within 5 s, whether the engine is running (it stops at its next
progress report) or still building its task graph (the worker terminates the task).

Each test starts real Celery workers on a private queue.  With the Redis broker a killed worker's task stays
unacknowledged for the visibility timeout (hours), so only the lost-worker sweep (run by every live worker) can end
the job.
"""

from __future__ import annotations

import os
import time
import uuid
from contextlib import contextmanager

import pytest
from worker_processes import Worker, kill_tree, wait_for

from apps.platforms.models import Platform
from apps.profiles.models import ProfileImport
from apps.profiles.services import create_import, dispatch_import, store_upload
from apps.reports.models import Report
from apps.reports.services import request_report
from apps.scenarios.models import Replication, SimulationRun
from apps.scenarios.services import (
    cancel_run,
    create_demo_scenario,
    create_run,
    dispatch_run,
    execute_replication,
    run_scenario,
)
from apps.scoring.models import ConfigurationSearch, SearchChunk
from apps.scoring.services import create_search, dispatch_search
from apps.workloads.models import Workload

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]

#: how soon a job on a killed worker must end failed, and a cancelled simulation free its worker (seconds)
LOST_WITHIN_S = 60.0
FREED_WITHIN_S = 5.0


@pytest.fixture(autouse=True)
def _need_redis():
    if not os.environ.get("CELERY_BROKER_URL", "").startswith("redis"):
        pytest.skip("worker tests need CELERY_BROKER_URL pointing at Redis")


@pytest.fixture
def queue(settings, monkeypatch):
    """A private queue, with ``queue.start(name)`` to start a worker on it (all stopped at the end, and sharing this
    test's media folder); tasks sent in ``with queue.sending():`` go to it."""
    from apps.celery import app

    monkeypatch.setenv("SKYPLAN_MEDIA_ROOT", str(settings.MEDIA_ROOT))

    class Queue:
        name = f"lifecycle-{uuid.uuid4().hex[:8]}"
        workers: list[Worker] = []

        def start(self, suffix: str) -> Worker:
            worker = Worker(self.name, f"{self.name}-{suffix}")
            self.workers.append(worker)
            return worker

        @contextmanager
        def sending(self):
            default = app.conf.task_default_queue
            app.conf.task_default_queue = self.name
            try:
                yield
            finally:
                app.conf.task_default_queue = default

    q = Queue()
    yield q
    for worker in q.workers:
        worker.stop()


def _catalogue():
    from django.conf import settings

    from apps.workloads.catalogue import load_catalogue

    load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)


def _reload(row):
    row.refresh_from_db()
    return row


def _kill_and_wait_failed(queue, worker: Worker, row, *, parent=None):
    """Kill ``worker``'s process tree, start another worker on the queue, wait for ``row`` (and ``parent``) to end;
    check it failed naming the killed worker within LOST_WITHIN_S; returns the seconds it took."""
    kill_tree(worker.proc)
    killed_at = time.monotonic()
    queue.start("b")
    wait_for(lambda: _reload(row).is_finished, LOST_WITHIN_S - (time.monotonic() - killed_at),
             f"the {type(row).__name__} to end after its worker was killed")
    took = time.monotonic() - killed_at
    assert row.status == "failed"
    assert row.error.startswith(f"worker {worker.node} lost at "), row.error
    if parent is not None:
        parent.refresh_from_db()
        assert parent.status == "failed" and parent.error == row.error
    return took


def _write_samples(path, rows: int) -> None:
    """A sampler profile (fixtures/profiles/*.skyplan.csv format) of ``rows`` samples, 0.1 s apart."""
    header = ("# skyplan-profile v1\ntimestamp,cpu_user_pct,cpu_system_pct,rss_bytes,vm_bytes,read_bytes,write_bytes,"
              "read_ops,write_ops,io_wait_pct,threads\n")
    with open(path, "w") as fh:
        fh.write(header)
        for start in range(0, rows, 100_000):
            fh.writelines(f"{1795314669.0 + i * 0.1:.3f},{i % 100}.00,1.00,13668352,16961536,{i * 4096},0,{i},0,"
                          "0.00,1\n" for i in range(start, min(rows, start + 100_000)))


def test_a_profile_import_whose_worker_is_killed_ends_failed_naming_the_worker(queue, tmp_path):
    source = tmp_path / "long.skyplan.csv"
    _write_samples(source, 1_500_000)  # about 110 MB: several seconds of parsing
    rel, size = store_upload(source, source.name, move=True)
    job = create_import(upload_path=rel, filename=source.name, size_bytes=size)
    first = queue.start("a")
    with queue.sending():
        dispatch_import(job)
    wait_for(lambda: _reload(job).status == "running" and job.progress > 0, 90, "the import to make progress")
    assert job.worker == first.node

    took = _kill_and_wait_failed(queue, first, job)
    print(f"profile import on a killed worker failed after {took:.1f} s")
    assert job.profile is None and ProfileImport.objects.get(pk=job.pk).status == "failed"


def test_a_search_whose_worker_is_killed_ends_failed_naming_the_worker(queue):
    _catalogue()
    space = {"stages": {"split": {"pricing": ["spot", "on_demand"]},
                        "invert": {"nodes": [5, 10], "launch_interval_s": [0, 300]}}}
    search = create_search(platform=Platform.objects.get(slug="aws-sydney"),
                           workload=Workload.objects.get(slug="chiles-epoch1"), space=space)
    chunk = search.chunks.get()
    first = queue.start("a")
    with queue.sending():
        dispatch_search(search)
    wait_for(lambda: _reload(chunk).status == "running", 90, "the search chunk to start")
    assert chunk.worker == first.node

    took = _kill_and_wait_failed(queue, first, chunk, parent=search)
    print(f"search on a killed worker failed after {took:.1f} s")
    assert ConfigurationSearch.objects.get(pk=search.pk).results is None
    assert set(SearchChunk.objects.filter(search=search).values_list("status", flat=True)) == {"failed"}


def test_a_report_whose_worker_is_killed_ends_failed_naming_the_worker(queue):
    from apps.reports.render import chromium_path

    if chromium_path() is None:
        pytest.skip("the PDF report needs Chromium")
    _catalogue()
    scenario = run_scenario(create_demo_scenario(), dispatch=False)
    for run in scenario.runs():
        for rep in run.replication_set.all():
            execute_replication(str(run.id), rep.index)
    first = queue.start("a")
    with queue.sending():
        report = request_report(scenario, "pdf")
    wait_for(lambda: _reload(report).status == "running", 90, "the report to start", interval=0.05)
    assert report.worker == first.node

    took = _kill_and_wait_failed(queue, first, report)
    print(f"report on a killed worker failed after {took:.1f} s")
    assert not Report.objects.get(pk=report.pk).file


def _active_tasks(node: str) -> list | None:
    """The tasks worker ``node`` is running (None when it does not answer)."""
    from apps.celery import app

    replies = app.control.inspect(destination=[node], timeout=1.0).active() or {}
    return replies.get(node)


def _cancel_and_time_until_free(run: SimulationRun, worker: Worker) -> float:
    assert _active_tasks(worker.node)
    started = time.monotonic()
    assert cancel_run(run)
    wait_for(lambda: _active_tasks(worker.node) == [], 30, "the worker to be free")
    return time.monotonic() - started


def _start_long_run(queue) -> tuple[SimulationRun, Replication, Worker]:
    """A simulation that runs for minutes (the SDP predict workload with 160,000 jobs of three stages), sent to a new worker."""
    _catalogue()
    run = create_run(platform=Platform.objects.get(slug="sdp-p3"), workload=Workload.objects.get(slug="sdp-predict-p3"),
                     workload_overrides={"n_jobs": 160_000.0})
    worker = queue.start("a")
    with queue.sending():
        dispatch_run(run)
    return run, run.replication_set.get(), worker


def test_cancelling_a_simulation_in_its_engine_run_frees_the_worker_within_5_s(queue):
    run, rep, worker = _start_long_run(queue)
    # progress above 1/4 means the task graph is built and the engine is running (simulator.model.simulate)
    wait_for(lambda: _reload(rep).progress > 0.26, 600, "the engine to run")
    took = _cancel_and_time_until_free(run, worker)
    print(f"cancel during the engine run: worker free after {took:.2f} s")
    assert took < FREED_WITHIN_S
    rep.refresh_from_db()
    assert rep.status == "cancelled" and rep.result is None
    assert SimulationRun.objects.get(pk=run.pk).status == "cancelled"


def test_cancelling_a_simulation_still_building_its_graph_terminates_the_task_within_5_s(queue):
    run, rep, worker = _start_long_run(queue)
    wait_for(lambda: _reload(rep).status == "running", 120, "the replication to start")
    assert rep.progress < 0.25  # building: the engine has not reported yet
    took = _cancel_and_time_until_free(run, worker)
    print(f"cancel while building the graph: worker free after {took:.2f} s")
    assert took < FREED_WITHIN_S
    assert "terminating (SIGTERM) tasks whose job ended" in worker.log_path.read_text()
    assert Replication.objects.get(pk=rep.pk).status == "cancelled"
    # the slot is usable again: a short run on the same worker succeeds
    short = create_run(platform=Platform.objects.get(slug="sdp-p3"), workload=Workload.objects.get(slug="sdp-predict-p3"),
                       workload_overrides={"n_jobs": 50.0})
    with queue.sending():
        dispatch_run(short)
    wait_for(lambda: _reload(short).is_finished, 120, "a later run on the same worker")
    assert short.status == "succeeded"
