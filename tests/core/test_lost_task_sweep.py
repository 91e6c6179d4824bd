"""The lost-task sweep: a job whose Celery task is neither in the broker nor held by a worker is sent again (queued)
or failed with the reason (running); jobs whose task exists, young jobs and jobs of silent workers are left alone.

The sweep runs here in the test process against the test Redis.  Tasks it sends go to a private queue that no
worker consumes, deleted afterwards, so nothing runs them.
"""

from __future__ import annotations

import os
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerUnreachable

from apps.benchmarks.models import BenchmarkRun
from apps.core import services as core_services
from apps.core.broker import tasks_in_broker
from apps.core.services import sweep_lost_tasks
from apps.platforms.models import Platform
from apps.profiles.models import ProfileImport
from apps.reports.models import Report
from apps.scenarios.models import Replication, Scenario, SimulationRun
from apps.scenarios.services import ReplicationJobs, create_run, dispatch_run, execute_replication
from apps.scoring.models import ConfigurationSearch, SearchChunk
from apps.workloads.models import Workload

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def queues():
    """Tasks sent during the test go to queues nobody consumes (the default one, and any the test adds to the
    list); they are deleted afterwards."""
    from apps.celery import app

    if not os.environ.get("CELERY_BROKER_URL", "").startswith("redis"):
        pytest.skip("the sweep reads the broker's queues: needs CELERY_BROKER_URL pointing at Redis")
    default = app.conf.task_default_queue
    names = [f"sweep-test-{uuid.uuid4().hex[:8]}"]
    app.conf.task_default_queue = names[0]
    yield names
    app.conf.task_default_queue = default
    with app.connection_for_write() as conn:
        for name in names:
            conn.default_channel.queue_delete(name)


def _run(catalogue, replications=2, age_s=120.0) -> SimulationRun:
    run = create_run(platform=Platform.objects.get(slug="sdp-p3"), workload=Workload.objects.get(slug="sdp-predict-p3"),
                     replications=replications)
    SimulationRun.objects.filter(pk=run.pk).update(created_at=timezone.now() - timedelta(seconds=age_s))
    return run


def _lose(row) -> str:
    """Give ``row`` a task id that names no task anywhere (as after a broker restart); returns it."""
    lost = f"lost-{uuid.uuid4()}"
    type(row).objects.filter(pk=row.pk).update(task_id=lost)
    return lost


def _sweep() -> dict:
    return sweep_lost_tasks(older_than_s=60, confirm_after_s=0)


def test_a_queued_replication_whose_task_vanished_is_sent_again_and_the_old_task_then_does_nothing(catalogue):
    run = _run(catalogue)
    dispatch_run(run)
    lost_rep, kept_rep = run.replication_set.order_by("index")
    lost = _lose(lost_rep)
    kept = Replication.objects.get(pk=kept_rep.pk).task_id

    assert _sweep() == {"redispatched": 1, "failed": 0, "abandoned": 0}

    lost_rep.refresh_from_db()
    assert lost_rep.status == "queued" and lost_rep.task_id not in ("", lost)
    assert {lost_rep.task_id, kept} <= tasks_in_broker()  # the new task is queued; the other was never touched
    assert Replication.objects.get(pk=kept_rep.pk).task_id == kept
    # a late copy of the lost task (were it to turn up) finds itself superseded and runs nothing
    assert execute_replication(str(run.id), 0, worker="late@host", task_id=lost) == "queued"
    assert Replication.objects.get(pk=lost_rep.pk).worker == ""


def test_a_dispatch_that_never_reached_the_broker_is_sent(catalogue, monkeypatch):
    def unreachable(self, row, task_id):
        raise BrokerUnreachable("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    run = _run(catalogue, replications=1)
    with monkeypatch.context() as patch:
        patch.setattr(ReplicationJobs, "send", unreachable)
        dispatch_run(run)  # no error for the page that asked: the run waits, queued, with the id it will be sent under
    saved = run.replication_set.get().task_id
    assert saved and saved not in tasks_in_broker()

    assert _sweep() == {"redispatched": 1, "failed": 0, "abandoned": 0}
    assert run.replication_set.get().task_id in tasks_in_broker()


def test_jobs_run_in_process_are_left_alone(catalogue):
    run = _run(catalogue, replications=2)  # as manage.py simulate makes them: no task id, run one after the other
    Replication.objects.filter(run=run, index=0).update(status="running", started_at=timezone.now())

    assert _sweep() == {"redispatched": 0, "failed": 0, "abandoned": 0}


def test_a_young_job_or_one_whose_task_is_queued_is_left_alone(catalogue):
    young = _run(catalogue, replications=1, age_s=0)
    _lose(young.replication_set.get())
    queued = _run(catalogue, replications=1)
    dispatch_run(queued)

    assert _sweep() == {"redispatched": 0, "failed": 0, "abandoned": 0}


def test_a_running_job_whose_task_vanished_ends_failed_with_the_reason(catalogue):
    run = _run(catalogue)
    dispatch_run(run)
    rep = run.replication_set.get(index=0)
    Replication.objects.filter(pk=rep.pk).update(status="running", started_at=timezone.now())  # no node recorded
    SimulationRun.objects.filter(pk=run.pk).update(status="running")
    _lose(rep)

    assert _sweep() == {"redispatched": 0, "failed": 1, "abandoned": 0}

    rep.refresh_from_db()
    run.refresh_from_db()
    assert rep.status == run.status == "failed"
    assert rep.error.startswith("its task was lost (broker restarted?) at ") and run.error == rep.error
    assert run.replication_set.get(index=1).status == "cancelled"  # the run failed: its other replication stops


def test_a_running_job_on_a_worker_that_does_not_answer_is_left_to_the_worker_loss_sweep(catalogue):
    run = _run(catalogue, replications=1)
    rep = run.replication_set.get()
    Replication.objects.filter(pk=rep.pk).update(status="running", worker="silent@nowhere", task_id="lost-1")

    assert _sweep() == {"redispatched": 0, "failed": 0, "abandoned": 0}
    assert Replication.objects.get(pk=rep.pk).status == "running"


def test_every_kind_of_job_is_swept(catalogue, queues):
    platform, workload = Platform.objects.get(slug="sdp-p3"), Workload.objects.get(slug="sdp-predict-p3")
    old = timezone.now() - timedelta(minutes=5)
    queues.append(f"bench.sweep-{uuid.uuid4().hex[:6]}")
    bench = BenchmarkRun.objects.create(platform=platform, kind="cpu", queue=queues[-1], task_id="lost-bench")
    imp = ProfileImport.objects.create(filename="x.csv", upload_path="profiles/uploads/x/x.csv", task_id="lost-import")
    report = Report.objects.create(scenario=Scenario.objects.create(name="s", workload=workload), format="json",
                                   task_id="lost-report")
    search = ConfigurationSearch.objects.create(platform=platform, workload=workload, total=1)
    chunk = SearchChunk.objects.create(search=search, index=0, start=0, end=1, task_id="lost-chunk")
    for model in (BenchmarkRun, ProfileImport, Report, ConfigurationSearch):
        model.objects.update(created_at=old)

    assert _sweep() == {"redispatched": 4, "failed": 0, "abandoned": 0}

    held = tasks_in_broker()
    for row in (bench, imp, report, chunk):
        row.refresh_from_db()
        assert row.status == "queued" and row.task_id in held and not row.task_id.startswith("lost-")


def test_nothing_is_done_when_the_broker_cannot_be_read(catalogue, monkeypatch):
    run = _run(catalogue, replications=1)
    _lose(run.replication_set.get())
    monkeypatch.setattr(core_services, "tasks_in_broker", lambda: None)

    assert _sweep() == {"redispatched": 0, "failed": 0, "abandoned": 0}


def test_in_process_jobs_long_past_every_time_limit_end_failed_as_abandoned(catalogue):
    """A benchmark's profile import (run in-process, no task) whose worker died before running it: no sweep sends it
    again, so once it is older than any job may take it ends failed with the reason, never queued for good."""
    from apps.core.services import fail_abandoned_in_process

    run = _run(catalogue, replications=1)
    job = ProfileImport.objects.create(filename="minipipeline-x-samples.csv", format="chiles_csv",
                                       upload_path="profiles/uploads/x/minipipeline-x-samples.csv", size_bytes=10)
    assert fail_abandoned_in_process(older_than_s=3600) == 0  # young: left alone
    ProfileImport.objects.filter(pk=job.pk).update(created_at=timezone.now() - timedelta(hours=2))
    Replication.objects.filter(run=run).update(status="running")
    SimulationRun.objects.filter(pk=run.pk).update(created_at=timezone.now() - timedelta(hours=2))

    assert fail_abandoned_in_process(older_than_s=3600) == 2
    job.refresh_from_db()
    assert job.status == "failed" and job.error.startswith("abandoned: the process running it in-process ended")
    assert Replication.objects.get(run=run).status == "failed"
