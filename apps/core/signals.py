"""The Celery side of the core workflows.  A worker first checks it can use the file store (or refuses to start),
then announces itself when it starts (host facts and the queues it consumes), then, in threads of its main process,
writes a heartbeat and fails the jobs of lost workers every ``SKYPLAN_HEARTBEAT_INTERVAL_S`` seconds, runs both
stuck-job sweeps (:func:`apps.core.services.sweep_stuck_jobs`: lost workers, lost tasks) every
``SKYPLAN_SWEEP_INTERVAL_S`` seconds, so a lost worker's or a lost task's job is dealt with even when nobody is
looking at it, and every second terminates the tasks whose job was cancelled but which do not stop
(:func:`apps.core.jobs.terminate_unanswered`)."""

from __future__ import annotations

import logging
import resource
import threading

from celery.signals import worker_init, worker_process_init, worker_ready

log = logging.getLogger(__name__)


@worker_init.connect
def check_storage(sender=None, **kwargs):
    """Refuse to start a worker that cannot write, read back and delete a sentinel object in the store: every job
    that keeps a file would otherwise "succeed" with a file no other host can reach."""
    from apps.core.storage import StoreUnusable, check_store, describe_store

    node = getattr(sender, "hostname", "") or ""
    try:
        check_store(node.replace("@", "-at-"))
    except StoreUnusable as exc:
        log.critical("storage check failed: %s", exc)
        raise SystemExit(f"skyplan worker {node}: refusing to start: {exc}. Set SKYPLAN_STORAGE and its settings "
                         "alike on the web server and every worker (README: Several hosts).") from None
    log.info("storage check passed: %s", describe_store())


@worker_process_init.connect
def limit_job_memory(**kwargs):
    """In each pool process: let it grow its address space by ``SKYPLAN_JOB_MEMORY_MB`` beyond its size now (a soft
    RLIMIT_AS; the hard limit stays), so a job that needs more gets a MemoryError and ends failed saying so."""
    from django.conf import settings

    extra_mb = settings.SKYPLAN_JOB_MEMORY_MB
    if extra_mb <= 0:
        return
    with open("/proc/self/statm", encoding="ascii") as fh:
        size = int(fh.read().split()[0]) * resource.getpagesize()
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = size + extra_mb * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


@worker_ready.connect
def announce(sender=None, **kwargs):
    """Record a heartbeat with this host's facts, the worker's node name and its queues (best effort: never stop a
    worker), then start beating and sweeping."""
    from django.conf import settings

    from apps.core.jobs import terminate_unanswered
    from apps.core.services import record_heartbeat, sweep_lost_workers, sweep_stuck_jobs

    node = getattr(sender, "hostname", "") or ""
    queues = ",".join(sorted(q.name for q in sender.app.amqp.queues.consume_from.values())) if sender else ""

    def beat():
        record_heartbeat(queues=queues, node=node)

    try:
        beat()
    except Exception:  # noqa: BLE001 - a worker must start even when the database is briefly unreachable
        log.warning("worker announcement failed", exc_info=True)
    _every(settings.SKYPLAN_HEARTBEAT_INTERVAL_S, beat, "skyplan-heartbeat")
    _every(settings.SKYPLAN_SWEEP_INTERVAL_S, sweep_stuck_jobs, "skyplan-stuck-job-sweep")
    _every(settings.SKYPLAN_HEARTBEAT_INTERVAL_S, sweep_lost_workers, "skyplan-lost-worker-sweep")
    if node:
        _every(1.0, lambda: terminate_unanswered(node), "skyplan-cancel-watch")


def _every(interval_s: float, work, name: str, stop: threading.Event | None = None) -> threading.Thread:
    """Run ``work`` now and every ``interval_s`` seconds in a daemon thread, until ``stop`` is set (best effort: a
    failure is logged and the work tried again next time)."""
    from django.db import close_old_connections

    stop = stop or threading.Event()

    def loop():
        while True:
            try:
                close_old_connections()  # a connection broken by a database restart is replaced
                work()
            except Exception:  # noqa: BLE001 - this must never stop the worker
                log.warning("%s failed", name, exc_info=True)
            if stop.wait(interval_s):
                return

    thread = threading.Thread(target=loop, name=name, daemon=True)
    thread.start()
    return thread
