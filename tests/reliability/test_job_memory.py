"""A job that needs more memory than a worker process lets it have ends failed saying so, and the worker goes on.

Each pool process may grow by ``SKYPLAN_JOB_MEMORY_MB`` beyond its size at start (a soft RLIMIT_AS set when it
starts, ``apps.core.signals.limit_job_memory``).  Here a worker allows 100 MB: a replication of 150,000 jobs
(450,000 tasks, admitted: about 1,100 MB by the contract's estimate, under the 1,500 MB admission limit) runs out of
it and ends failed with the reason, then a replication of 200 jobs runs to the end on the same worker.
"""

from __future__ import annotations

import os
import uuid

import pytest
from worker_processes import start_worker, stop_worker, wait_for

from apps.celery import app
from apps.platforms.models import Platform
from apps.scenarios.models import SimulationRun
from apps.scenarios.services import create_run, dispatch_run
from apps.workloads.models import Workload

pytestmark = [pytest.mark.worker]

JOB_MEMORY_MB = 100


@pytest.fixture
def small_memory_worker(transactional_db):
    """A worker of its own, whose pool processes may each grow by JOB_MEMORY_MB; the tasks sent meanwhile go to it."""
    if not os.environ.get("CELERY_BROKER_URL", "").startswith("redis"):
        pytest.skip("worker tests need CELERY_BROKER_URL pointing at Redis (make test sets it)")
    queue = f"skyplan-memory-{uuid.uuid4().hex[:8]}"
    proc, log_path, log = start_worker(queue, queue, extra_env={"SKYPLAN_JOB_MEMORY_MB": str(JOB_MEMORY_MB)})
    previous, app.conf.task_default_queue = app.conf.task_default_queue, queue
    yield log_path
    app.conf.task_default_queue = previous
    stop_worker(proc, log)


def _run(user, n_jobs: int) -> SimulationRun:
    run = create_run(platform=Platform.objects.get(slug="sdp-p3"), workload=Workload.objects.get(slug="sdp-predict-p3"),
                     workload_overrides={"n_jobs": n_jobs}, replications=1, user=user)
    dispatch_run(run)
    return run


def _finished(run: SimulationRun, what: str) -> SimulationRun:
    return wait_for(lambda: (lambda r: r if r.is_finished else None)(SimulationRun.objects.get(pk=run.pk)), 600, what)


@pytest.mark.django_db(transaction=True)
def test_a_replication_past_the_memory_a_job_may_use_fails_saying_so_and_the_worker_goes_on(
        catalogue, user, small_memory_worker):
    big = _finished(_run(user, 150_000), "the replication of 150,000 jobs to end")
    assert big.status == "failed"
    rep = big.replication_set.get()
    assert rep.status == "failed"
    assert rep.error.startswith("ran out of memory: replication 0 needed more than the 100 MB a job may use"), rep.error
    assert "SKYPLAN_JOB_MEMORY_MB" in big.error

    small = _finished(_run(user, 200), "the replication of 200 jobs to end")
    assert small.status == "succeeded", small.error
    assert small.replication_set.get().result["makespan_s"] > 0
