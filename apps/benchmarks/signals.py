"""Workers announce themselves when they start (host facts and the queues they consume), then sweep for runs
whose worker was lost, every ``SWEEP_INTERVAL_S`` seconds, so a killed worker's runs end "failed" with the reason
even when nobody is looking at them."""

from __future__ import annotations

import logging
import threading

from celery.signals import worker_ready

SWEEP_INTERVAL_S = 30.0
log = logging.getLogger(__name__)


@worker_ready.connect
def announce(sender=None, **kwargs):
    """Record a heartbeat with this host's facts and the worker's queues (best effort: never stop a worker)."""
    try:
        from apps.core.services import record_heartbeat

        queues = ",".join(sorted(q.name for q in sender.app.amqp.queues.consume_from.values())) if sender else ""
        record_heartbeat(queues=queues)
    except Exception:  # noqa: BLE001 - a worker must start even when the database is briefly unreachable
        log.warning("worker announcement failed", exc_info=True)
    threading.Thread(target=_sweep_forever, name="skyplan-lost-run-sweep", daemon=True).start()


def _sweep_forever(stop: threading.Event | None = None) -> None:
    """Fail the benchmark runs and simulation replications whose worker no longer answers (best effort)."""
    from django.db import close_old_connections

    from apps.benchmarks.services import fail_lost_runs
    from apps.scenarios.services import fail_lost_replications

    stop = stop or threading.Event()
    while True:
        try:
            close_old_connections()
            fail_lost_runs()
            fail_lost_replications()
        except Exception:  # noqa: BLE001 - a sweep must never stop the worker
            log.warning("lost-run sweep failed", exc_info=True)
        if stop.wait(SWEEP_INTERVAL_S):
            return
