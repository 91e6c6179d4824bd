"""A Celery task really runs on a separate worker process, against Redis and PostgreSQL."""

import os

import pytest

from apps.core.models import WorkerHeartbeat
from apps.core.tasks import heartbeat

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]


def _parent_pid(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        return int(next(line for line in fh if line.startswith("PPid:")).split()[1])


def test_it_runs_a_task_on_a_separate_worker_process(celery_worker_process):
    result = heartbeat.delay(queues=celery_worker_process["queue"]).get(timeout=60)

    assert result["pid"] != os.getpid()
    assert _parent_pid(result["pid"]) == celery_worker_process["process"].pid
    beat = WorkerHeartbeat.objects.get(pk=result["id"])
    assert beat.queues == celery_worker_process["queue"]
    assert beat.cores >= 1
