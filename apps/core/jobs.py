"""Jobs that Celery tasks work on (simulation replications, benchmarks, profile imports, reports, search chunks),
as the reliability sweeps see them.

Each such row names the one task that may work on it (``task_id``): :func:`dispatch` saves a fresh id before it
sends the task, and a task whose id the row no longer names does nothing.  So a job can be sent again safely —
after its task was lost with the broker's memory, say — and a late copy of the old task changes nothing.

Each app describes its kind of job with a small :class:`TrackedJobs` subclass and registers it in its
``AppConfig.ready``; :mod:`apps.core.services` sweeps every registered kind.
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime

from django.db import models
from django.db.models import QuerySet
from django.utils import timezone

from apps.core.models import JobStatus

__all__ = ["TrackedJobs", "register", "registered", "dispatch", "superseded", "DB_RETRY"]

log = logging.getLogger(__name__)

#: Celery task options of every job task: a database error (PostgreSQL restarting, a dropped connection) retries the
#: task after 1, 2, 4, 8, 16, 30, 30 and 30 s — about two minutes of outage — instead of failing the job.  The
#: services are idempotent, so a retry that finds its job finished does nothing.
DB_RETRY = {"retry_backoff": 1, "retry_backoff_max": 30, "retry_jitter": False, "max_retries": 8}


class TrackedJobs:
    """One kind of job row; subclasses set ``model`` and override the hooks that differ."""

    label = "job"
    model: type[models.Model]
    #: the field (path) saying when the job was requested
    requested_at = "created_at"

    def unfinished(self) -> QuerySet:
        """Rows queued or running (whose parent, if any, is not finished)."""
        return self.model.objects.filter(status__in=(JobStatus.QUEUED, JobStatus.RUNNING))

    def sent_before(self, when: datetime) -> QuerySet:
        """Unfinished rows requested before ``when`` and sent to Celery.  Rows with no task id are run in-process
        (``manage.py simulate``, a benchmark's profile imports) and are none of the sweep's business."""
        return self.unfinished().exclude(task_id="").filter(**{f"{self.requested_at}__lt": when})

    def in_process_before(self, when: datetime) -> QuerySet:
        """Unfinished rows run in-process (no task id) requested before ``when``."""
        return self.unfinished().filter(task_id="", **{f"{self.requested_at}__lt": when})

    def node(self, row) -> str:
        """The Celery node (``name@host``) running the row, when it recorded one."""
        return ""

    def send(self, row, task_id: str) -> None:
        """Send the row's Celery task with id ``task_id``."""
        raise NotImplementedError

    def fail(self, row, reason: str) -> bool:
        """End a row that is still as it was read failed with ``reason``; True when it did."""
        return bool(self.model.objects.filter(pk=row.pk, status=row.status, task_id=row.task_id).update(
            status=JobStatus.FAILED, error=reason, finished_at=timezone.now()))

    def fail_lost_workers(self) -> int:
        """Fail the running rows whose worker node no longer answers (kinds that record their node); how many."""
        return 0

    def redispatch(self, row) -> bool:
        """Send a queued row's task again under a new id (only if the row is still as it was read)."""
        task_id = str(uuid.uuid4())
        if not self.model.objects.filter(pk=row.pk, status=JobStatus.QUEUED, task_id=row.task_id).update(
                task_id=task_id):
            return False
        _send(self, row, task_id)
        return True


_registry: dict[str, TrackedJobs] = {}


def register(jobs: TrackedJobs) -> TrackedJobs:
    _registry[jobs.label] = jobs
    return jobs


def registered() -> list[TrackedJobs]:
    return list(_registry.values())


def dispatch(jobs: TrackedJobs, row) -> str:
    """Give ``row`` a fresh task id, save it, then send the task under that id; returns the id.  If the broker is
    unreachable the row keeps its id with no task behind it, and the lost-task sweep sends it again later."""
    task_id = str(uuid.uuid4())
    jobs.model.objects.filter(pk=row.pk).update(task_id=task_id)
    row.task_id = task_id
    _send(jobs, row, task_id)
    return task_id


def _send(jobs: TrackedJobs, row, task_id: str) -> None:
    from kombu.exceptions import OperationalError as BrokerUnreachable

    try:
        jobs.send(row, task_id)
    except BrokerUnreachable:
        log.warning("broker unreachable: %s %s stays queued; the lost-task sweep sends it when the broker is back",
                    jobs.label, row.pk, exc_info=True)


def superseded(row, task_id: str | None) -> bool:
    """Is task ``task_id`` no longer the one ``row`` names (the job was sent again)?  None: called directly."""
    return bool(task_id and row.task_id and row.task_id != task_id)
