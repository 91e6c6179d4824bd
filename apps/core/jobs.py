"""The one life of every job (simulation replications, search chunks, profile imports, benchmarks, reports): send its
task, report progress and stop when cancelled, cancel, and end failed when its worker or its task was lost.

Each such row (an :class:`apps.core.models.TaskJob`) names the one task that may work on it (``task_id``):
:func:`dispatch` saves a fresh id before it sends the task, and a task whose id the row no longer names does nothing.
So a job can be sent again safely — after its task was lost with the broker's memory, say — and a late copy of the
old task changes nothing.  Tasks are sent by name, so no module here (or in a service) imports the tasks modules.

Cancel is one step for every kind: the row (and, for a job split over several tasks, every unfinished part) is marked
cancelled at once.  The task sees it at its next progress report (:class:`Progress`, at most every
``PROGRESS_INTERVAL_S``) and stops; one that does not answer within ``SKYPLAN_CANCEL_GRACE_S`` is terminated by its
worker (:func:`terminate_unanswered`, run in every worker's main process).

Each app describes its kind of job with a small :class:`TrackedJobs` subclass and registers it in its
``AppConfig.ready``; :mod:`apps.core.services` sweeps every registered kind.
"""

from __future__ import annotations

import logging
import time
import uuid
from datetime import datetime, timedelta

from django.conf import settings
from django.db import models, transaction
from django.db.models import Count, Max, Q, QuerySet
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerUnreachable

from apps.celery import app
from apps.core.models import JOB_FINISHED, JobStatus, WorkerHeartbeat

__all__ = ["TrackedJobs", "PartJobs", "register", "registered", "dispatch", "dispatch_together", "superseded", "DB_RETRY",
           "JobCancelled", "Progress",
           "cancel", "node_alive", "out_of_memory", "terminate_unanswered", "unanswered_tasks", "PROGRESS_INTERVAL_S",
           "LOST_AFTER_S"]

log = logging.getLogger(__name__)

#: Celery task options of every job task: a database error (PostgreSQL restarting, a dropped connection) retries the
#: task after 1, 2, 4, 8, 16, 30, 30 and 30 s — about two minutes of outage — instead of failing the job.  The
#: services are idempotent, so a retry that finds its job finished does nothing.
DB_RETRY = {"retry_backoff": 1, "retry_backoff_max": 30, "retry_jitter": False, "max_retries": 8}

#: how often a running job writes its progress and looks for a cancel (seconds)
PROGRESS_INTERVAL_S = 0.5
#: a job running this long on a Celery node that is not alive (no heartbeat, no answer to a ping) is lost (seconds)
LOST_AFTER_S = 5.0


def out_of_memory(what: str) -> str:
    """The reason a job ends failed when its process ran out of the memory a job may use (a ``MemoryError`` under
    the limit :func:`apps.core.signals.limit_job_memory` sets)."""
    return (f"ran out of memory: {what} needed more than the {settings.SKYPLAN_JOB_MEMORY_MB:,} MB a job may use "
            "on a worker (SKYPLAN_JOB_MEMORY_MB)")


class JobCancelled(Exception):
    """Raised inside a job's task when its row no longer runs (cancelled, or ended by a sweep)."""


def node_alive(node: str, *, ping_timeout_s: float = 2.0) -> bool:
    """Is Celery worker ``node`` (``name@host``) alive?  Yes when it beat within the last three heartbeat intervals,
    or when it answers a ping (asked twice).  Either is enough: a worker still reconnecting to a restarted Redis
    answers no ping but goes on beating; one that cannot reach a restarting PostgreSQL cannot beat but answers."""
    recent = timezone.now() - timedelta(seconds=3 * settings.SKYPLAN_HEARTBEAT_INTERVAL_S)
    if WorkerHeartbeat.objects.filter(node=node, seen_at__gte=recent).exists():
        return True
    return any(app.control.ping(destination=[node], timeout=ping_timeout_s) for _ in range(2))


class TrackedJobs:
    """One kind of job row; subclasses set ``model``, ``label`` and ``task_name`` and override the hooks that
    differ (a job split over parts fails and cancels its parent too)."""

    label = "job"
    model: type[models.Model]
    #: the Celery task (by name) that works on one row
    task_name = ""
    #: the field (path) saying when the job was requested
    requested_at = "created_at"

    # --- sending ------------------------------------------------------------------------------------------------
    def task_args(self, row) -> list:
        """The task's arguments for ``row``."""
        return [str(row.pk)]

    def task_queue(self, row) -> str | None:
        """The queue to send ``row``'s task to (None: the default queue)."""
        return None

    def send(self, row, task_id: str) -> None:
        """Send the row's Celery task with id ``task_id``."""
        options = {"queue": self.task_queue(row)} if self.task_queue(row) else {}
        app.send_task(self.task_name, args=self.task_args(row), task_id=task_id, **options)

    # --- what the sweeps look at ----------------------------------------------------------------------------------
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
        return row.worker if "@" in row.worker else ""

    def describe(self, row) -> str:
        """The row, as a failure reason names it."""
        return f"the {self.label}"

    # --- ending ---------------------------------------------------------------------------------------------------
    def fail(self, row, reason: str) -> bool:
        """End a row that is still as it was read failed with ``reason``; True when it did."""
        return bool(self.model.objects.filter(pk=row.pk, status=row.status, task_id=row.task_id).update(
            status=JobStatus.FAILED, error=reason, finished_at=timezone.now()))

    def fail_lost_workers(self, *, min_interval_s: float = 0.0, **within) -> int:
        """Fail, naming the worker, every running row (among those matching ``within``) whose worker node no longer
        answers.  A killed worker leaves its task unacknowledged until the broker's visibility timeout (hours with
        Redis); the redelivered task then finds the row finished and does nothing.  ``min_interval_s`` spares the
        pages that sweep on reading from asking more often than that.  Returns how many were failed."""
        key = (self.label, tuple(sorted((k, str(v)) for k, v in within.items())))
        now_s = time.monotonic()
        if min_interval_s and now_s - _last_sweep.get(key, -1e9) < min_interval_s:
            return 0
        _last_sweep[key] = now_s
        rows = self.unfinished().filter(status=JobStatus.RUNNING, worker__contains="@",
                                        started_at__lt=timezone.now() - timedelta(seconds=LOST_AFTER_S), **within)
        failed = 0
        alive: dict[str, bool] = {}
        for row in rows:
            node = self.node(row)
            if not node:
                continue
            if node not in alive:
                alive[node] = node_alive(node)
            if alive[node]:
                continue
            at = timezone.now()
            failed += self.fail(row, f"worker {node} lost at {at:%Y-%m-%d %H:%M:%S} UTC (it no longer answers); "
                                     f"{self.describe(row)} had been running there since {row.started_at:%H:%M:%S} UTC")
        if failed:
            log.warning("failed %d %s(s) whose worker was lost", failed, self.label)
        return failed

    def redispatch(self, row) -> bool:
        """Send a queued row's task again under a new id (only if the row is still as it was read)."""
        task_id = str(uuid.uuid4())
        if not self.model.objects.filter(pk=row.pk, status=JobStatus.QUEUED, task_id=row.task_id).update(
                task_id=task_id):
            return False
        _send(self, row, task_id)
        return True

    # --- on the worker --------------------------------------------------------------------------------------------
    def start(self, row, worker: str, task_id: str | None, **fields) -> bool:
        """Mark a locked row running on ``worker`` (unless it finished, or task ``task_id`` no longer owns it); True
        when the task should go on.  Call inside the transaction that locked the row."""
        if row.is_finished or superseded(row, task_id):
            return False
        row.status, row.started_at, row.worker = JobStatus.RUNNING, timezone.now(), worker
        for name, value in fields.items():
            setattr(row, name, value)
        row.save(update_fields=["status", "started_at", "worker", *fields])
        return True

    def start_all(self, rows, worker: str, task_id: str | None) -> list:
        """:meth:`start` for the locked rows of a batch in one statement (not one a row); returns the rows whose task
        should go on."""
        going = [row for row in rows if not row.is_finished and not superseded(row, task_id)]
        if going:
            now = timezone.now()
            for row in going:
                row.status, row.started_at, row.worker = JobStatus.RUNNING, now, worker
            self.model.objects.filter(pk__in=[row.pk for row in going]).update(
                status=JobStatus.RUNNING, started_at=now, worker=worker)
        return going

    def progress(self, row, *, start: float = 0.0, span: float = 1.0) -> Progress:
        """The progress callback of ``row``'s work (see :class:`Progress`)."""
        return Progress(self.model, row.pk, start=start, span=span)


class PartJobs(TrackedJobs):
    """The parts of a job split over several tasks (a run's replications, a search's chunks): rows with a foreign
    key to their job (named by ``parent``) and an ``index``, whose task takes (job id, index).  A part failing fails
    its job and stops the other parts (cancelled: their work is moot)."""

    #: the foreign key from a part to its job
    parent = ""

    @property
    def requested_at(self) -> str:
        return f"{self.parent}__created_at"

    def parent_id(self, part):
        return getattr(part, f"{self.parent}_id")

    def unfinished(self) -> QuerySet:
        return super().unfinished().exclude(**{f"{self.parent}__status__in": JOB_FINISHED})

    def task_args(self, part) -> list:
        return [str(self.parent_id(part)), part.index]

    def fail(self, part, reason: str) -> bool:
        with transaction.atomic():
            if not super().fail(part, reason):
                return False
            now = timezone.now()
            parent_model = self.model._meta.get_field(self.parent).related_model
            parent_model.objects.filter(pk=self.parent_id(part)).exclude(status__in=JOB_FINISHED).update(
                status=JobStatus.FAILED, error=reason, finished_at=now)
            self.model.objects.filter(**{f"{self.parent}_id": self.parent_id(part)}).exclude(
                status__in=JOB_FINISHED).update(status=JobStatus.CANCELLED, finished_at=now)
        return True

    def dispatch_all(self, job) -> None:
        """Send one task per part of ``job``."""
        for part in self.model.objects.filter(**{self.parent: job}):
            dispatch(self, part)


class Progress:
    """``progress(done, total)`` for a running job: at most every ``PROGRESS_INTERVAL_S`` it writes the fraction done
    (mapped onto ``start``..``start + span``, below 1 until the job saves its result) and, in the same query, finds
    out whether the row still runs; when it does not (cancelled, or ended by a sweep) it raises
    :class:`JobCancelled`, so the work stops within about that interval.  ``check()`` looks without writing."""

    def __init__(self, model, pk, *, start: float = 0.0, span: float = 1.0, interval_s: float = PROGRESS_INTERVAL_S,
                 extra=None):
        self.model, self.pk, self.start, self.span, self.interval_s = model, pk, start, span, interval_s
        self.extra = extra or (lambda done, total: {})
        self.last = -1e9

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.last < self.interval_s and done < total:
            return
        self.last = now
        fraction = min(0.99, self.start + self.span * done / max(total, 1))
        if not self.model.objects.filter(pk=self.pk, status=JobStatus.RUNNING).update(
                progress=fraction, **self.extra(done, total)):
            raise JobCancelled()

    def check(self) -> None:
        if not self.model.objects.filter(pk=self.pk, status=JobStatus.RUNNING).exists():
            raise JobCancelled()


_last_sweep: dict = {}
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


def dispatch_together(jobs: TrackedJobs, rows: list, task_name: str, args: list) -> str:
    """Give ``rows`` one fresh task id and send one task ``task_name`` with ``args`` that works on all of them (a
    batch); returns the id.  The lost-task sweep sends a row whose batch was lost again on its own
    (:meth:`TrackedJobs.send`), and the batch, should it still run, then skips that row (it is superseded)."""
    task_id = str(uuid.uuid4())
    jobs.model.objects.filter(pk__in=[row.pk for row in rows]).update(task_id=task_id)
    try:
        app.send_task(task_name, args=args, task_id=task_id)
    except BrokerUnreachable:
        log.warning("broker unreachable: %d %s(s) stay queued; the lost-task sweep sends them when the broker is "
                    "back", len(rows), jobs.label, exc_info=True)
    return task_id


def _send(jobs: TrackedJobs, row, task_id: str) -> None:
    try:
        jobs.send(row, task_id)
    except BrokerUnreachable:
        log.warning("broker unreachable: %s %s stays queued; the lost-task sweep sends it when the broker is back",
                    jobs.label, row.pk, exc_info=True)


def superseded(row, task_id: str | None) -> bool:
    """Is task ``task_id`` no longer the one ``row`` names (the job was sent again)?  None: called directly."""
    return bool(task_id and row.task_id and row.task_id != task_id)


def cancel(job, parts: QuerySet | None = None, **also) -> bool:
    """Cancel a queued or running ``job`` (and its unfinished ``parts``, the rows its tasks work on; the job itself
    when None), setting ``also`` on it; False when it had already finished.  The tasks are revoked (a queued one never
    starts); a running one stops at its next progress report, or is terminated (:func:`terminate_unanswered`)."""
    model = type(job)
    with transaction.atomic():
        locked = model.objects.select_for_update().get(pk=job.pk)
        if locked.is_finished:
            return False
        now = timezone.now()
        model.objects.filter(pk=job.pk).update(status=JobStatus.CANCELLED, finished_at=now, **also)
        task_ids = [locked.task_id] if parts is None else []
        if parts is not None:
            unfinished = parts.exclude(status__in=JOB_FINISHED)
            task_ids = list(unfinished.exclude(task_id="").values_list("task_id", flat=True))
            unfinished.update(status=JobStatus.CANCELLED, finished_at=now)
    job.status, job.finished_at = JobStatus.CANCELLED, now
    task_ids = [t for t in task_ids if t]
    if task_ids:
        try:
            app.control.revoke(task_ids)
        except Exception:  # noqa: BLE001 - the rows are cancelled; a running task still sees it
            log.warning("could not revoke %s", task_ids, exc_info=True)
    return True


def terminate_unanswered(node: str, *, grace_s: float | None = None) -> list[str]:
    """On worker ``node``'s main process: terminate the tasks it is running whose every job row ended, one of them
    cancelled or failed (by a cancel, or a sweep) more than ``grace_s`` ago (default ``SKYPLAN_CANCEL_GRACE_S``) —
    they did not answer — with SIGTERM, and with SIGKILL once twice that has passed.  Returns the task ids
    terminated."""
    from celery.worker import state

    grace = settings.SKYPLAN_CANCEL_GRACE_S if grace_s is None else grace_s
    try:
        running = {request.id for request in list(state.active_requests)}
    except RuntimeError:  # the set changed while read: look again next time
        return []
    if not running:
        return []
    soft, hard = unanswered_tasks(running, grace)
    for task_ids, signal in ((soft, "SIGTERM"), (hard, "SIGKILL")):
        if task_ids:
            log.warning("terminating (%s) tasks whose job ended but which go on: %s", signal, task_ids)
            app.control.revoke(task_ids, terminate=True, signal=signal, destination=[node])
    return soft + hard


def unanswered_tasks(task_ids, grace_s: float) -> tuple[list[str], list[str]]:
    """Of the running tasks ``task_ids``, those to terminate: every row naming the task ended, one of them cancelled
    or failed more than ``grace_s`` ago (first list), or more than twice that (second list: they ignored SIGTERM)."""
    now = timezone.now()
    hard, soft = [], []
    stopped = Q(status__in=(JobStatus.CANCELLED, JobStatus.FAILED))
    for jobs in registered():
        # a task whose every row ended, one of them cancelled or failed (one that succeeded may still be finishing
        # its job, e.g. a run's summary): group by task, as a batch names one task for several rows
        tasks = (jobs.model.objects.filter(task_id__in=task_ids).order_by().values("task_id")
                 .annotate(going=Count("pk", filter=~Q(status__in=JOB_FINISHED)), stopped=Count("pk", filter=stopped),
                           ended=Max("finished_at", filter=stopped))
                 .filter(going=0, stopped__gt=0, ended__lt=now - timedelta(seconds=grace_s)))
        for task in tasks:
            (hard if task["ended"] < now - timedelta(seconds=2 * grace_s) else soft).append(task["task_id"])
    return soft, hard
