"""The Celery side of the core workflows: a worker announces itself when it starts (host facts and the queues it
consumes), then runs the stuck-job sweeps (:func:`apps.core.services.sweep_stuck_jobs`) every
``SKYPLAN_SWEEP_INTERVAL_S`` seconds, so a lost worker's or a lost task's job is dealt with even when nobody is
looking at it."""

from __future__ import annotations

import logging
import threading

from celery.signals import worker_ready

log = logging.getLogger(__name__)


@worker_ready.connect
def announce(sender=None, **kwargs):
    """Record a heartbeat with this host's facts and the worker's queues (best effort: never stop a worker), then
    start the sweeps."""
    try:
        from apps.core.services import record_heartbeat

        queues = ",".join(sorted(q.name for q in sender.app.amqp.queues.consume_from.values())) if sender else ""
        record_heartbeat(queues=queues)
    except Exception:  # noqa: BLE001 - a worker must start even when the database is briefly unreachable
        log.warning("worker announcement failed", exc_info=True)
    threading.Thread(target=_sweep_forever, name="skyplan-stuck-job-sweep", daemon=True).start()


def _sweep_forever(stop: threading.Event | None = None) -> None:
    """Run the sweeps every interval until ``stop`` is set (best effort: a failed sweep is logged and retried)."""
    from django.conf import settings
    from django.db import close_old_connections

    from apps.core.services import sweep_stuck_jobs

    stop = stop or threading.Event()
    while True:
        try:
            close_old_connections()  # a connection broken by a database restart is replaced
            sweep_stuck_jobs()
        except Exception:  # noqa: BLE001 - a sweep must never stop the worker
            log.warning("stuck-job sweep failed", exc_info=True)
        if stop.wait(settings.SKYPLAN_SWEEP_INTERVAL_S):
            return
