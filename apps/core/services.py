"""Core workflows: worker heartbeats, health checks, and the sweeps that keep jobs from getting stuck."""

from __future__ import annotations

import logging
import os
import platform
import socket
import time
from datetime import timedelta

from django.conf import settings
from django.db import connection
from django.utils import timezone

from apps.core.broker import tasks_in_broker, tasks_on_workers
from apps.core.jobs import node_alive, registered
from apps.core.models import JobStatus, WorkerHeartbeat

__all__ = ["record_heartbeat", "host_facts", "database_ok", "node_alive", "sweep_lost_tasks", "sweep_lost_workers", "sweep_stuck_jobs",
           "fail_abandoned_in_process"]

log = logging.getLogger(__name__)


def host_facts() -> dict:
    """Hostname, cores, memory and OS of the machine this process runs on."""
    memory = None
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    memory = float(line.split()[1]) * 1024.0
                    break
    except OSError:
        pass
    return {
        "hostname": socket.gethostname(),
        "cores": os.cpu_count(),
        "memory_bytes": memory,
        "os": f"{platform.system()} {platform.release()}",
    }


def record_heartbeat(queues: str = "", node: str = "") -> WorkerHeartbeat:
    """Say that this process (of Celery node ``node``, when it is a worker's main process) is alive, now."""
    facts = host_facts()
    beat, _ = WorkerHeartbeat.objects.update_or_create(
        hostname=facts["hostname"],
        pid=os.getpid(),
        defaults={"queues": queues, "cores": facts["cores"], "memory_bytes": facts["memory_bytes"], "os": facts["os"],
                  "node": node},
    )
    return beat


def database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except Exception:  # noqa: BLE001 - a health check reports, never raises
        return False


def sweep_stuck_jobs() -> None:
    """Both sweeps, as every worker runs them periodically (apps.core.signals): jobs whose worker was lost, then
    jobs whose task was lost."""
    sweep_lost_workers()
    sweep_lost_tasks()


def sweep_lost_workers() -> int:
    """Fail, naming the worker, the running jobs of every kind whose worker node no longer answers; how many.  Cheap
    when every node beats (one query per kind and node), so workers run it every heartbeat interval."""
    return sum(jobs.fail_lost_workers() for jobs in registered())


def sweep_lost_tasks(*, older_than_s: float | None = None, confirm_after_s: float = 2.0) -> dict[str, int]:
    """Send again, or fail, the jobs whose Celery task no longer exists anywhere.

    Redis keeps nothing on disk here, so a restart loses every queued task and its job would stay "queued" for good.
    A job sent to Celery more than ``older_than_s`` ago (default ``SKYPLAN_LOST_TASK_AFTER_S``) that is queued, or
    running with no answering node to vouch for it, and whose task is neither in the broker nor held by any worker
    that answers, was lost.  A queued one is sent again under a new id (safe: it never started, and a late copy of
    the old task finds itself superseded); a running one ends failed with "its task was lost (broker restarted?) at
    T".  Two looks ``confirm_after_s`` apart must agree.  Jobs run in-process and long abandoned end failed too
    (:func:`fail_abandoned_in_process`).  Returns how many were sent again, failed, and failed as abandoned.
    """
    bound = settings.SKYPLAN_LOST_TASK_AFTER_S if older_than_s is None else older_than_s
    counts = {"redispatched": 0, "failed": 0, "abandoned": fail_abandoned_in_process()}
    first = _lost_jobs(bound, timeout=1.0)
    if not first:
        return counts
    time.sleep(confirm_after_s)
    again = {(jobs.label, row.pk, row.status, row.task_id) for jobs, row in _lost_jobs(bound, timeout=2.0)}
    at = timezone.now()
    for jobs, row in first:
        if (jobs.label, row.pk, row.status, row.task_id) not in again:
            continue  # it moved meanwhile (started, finished, sent again), or its task turned up
        if row.status == JobStatus.QUEUED:
            counts["redispatched"] += jobs.redispatch(row)
        else:
            counts["failed"] += jobs.fail(row, f"its task was lost (broker restarted?) at {at:%Y-%m-%d %H:%M:%S} UTC: "
                                               "no worker is running it and the broker holds no copy")
    if any(counts.values()):
        log.warning("lost tasks: %(redispatched)d job(s) sent again, %(failed)d failed, %(abandoned)d in-process "
                    "job(s) abandoned", counts)
    return counts


def fail_abandoned_in_process(older_than_s: float | None = None) -> int:
    """Fail the in-process jobs (no Celery task: ``manage.py simulate``, a benchmark's profile imports) still
    unfinished long after the longest any job may take (``SKYPLAN_ABANDONED_AFTER_S``, past every task's time
    limit): the process that was running them ended without finishing — nothing else will."""
    bound = settings.SKYPLAN_ABANDONED_AFTER_S if older_than_s is None else older_than_s
    cutoff = timezone.now() - timedelta(seconds=bound)
    at = timezone.now()
    failed = 0
    for jobs in registered():
        for row in jobs.in_process_before(cutoff):
            failed += jobs.fail(row, f"abandoned: the process running it in-process ended without finishing it "
                                     f"(found at {at:%Y-%m-%d %H:%M:%S} UTC, requested over {bound / 3600:.0f} h before)")
    return failed


def _lost_jobs(older_than_s: float, *, timeout: float) -> list:
    """(kind, row) of every unfinished job old enough whose task nobody holds."""
    cutoff = timezone.now() - timedelta(seconds=older_than_s)
    rows = [(jobs, row) for jobs in registered() for row in jobs.sent_before(cutoff)]
    if not rows:
        return []
    in_broker = tasks_in_broker()
    if in_broker is None:
        return []
    rows = [(jobs, row) for jobs, row in rows if row.task_id not in in_broker]
    if not rows:
        return []
    workers = tasks_on_workers([row.task_id for _, row in rows], timeout)
    if workers is None:
        return []
    lost = []
    for jobs, row in rows:
        if row.task_id in workers.task_ids:
            continue
        node = jobs.node(row)
        if row.status == JobStatus.RUNNING and node and node not in workers.nodes:
            continue  # its worker did not answer: whether it is lost is the worker-loss sweep's call
        lost.append((jobs, row))
    return lost
