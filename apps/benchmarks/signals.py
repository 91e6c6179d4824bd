"""Workers announce themselves when they start: host facts and the queues they consume."""

from __future__ import annotations

from celery.signals import worker_ready


@worker_ready.connect
def announce(sender=None, **kwargs):
    """Record a heartbeat with this host's facts and the worker's queues (best effort: never stop a worker)."""
    try:
        from apps.core.services import record_heartbeat

        queues = ",".join(sorted(q.name for q in sender.app.amqp.queues.consume_from.values())) if sender else ""
        record_heartbeat(queues=queues)
    except Exception:  # noqa: BLE001 - a worker must start even when the database is briefly unreachable
        import logging

        logging.getLogger(__name__).warning("worker announcement failed", exc_info=True)
