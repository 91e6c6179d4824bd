"""Thin Celery tasks of the core app."""

from __future__ import annotations

from celery import shared_task

from apps.core.services import record_heartbeat

__all__ = ["heartbeat"]


@shared_task(name="core.heartbeat", time_limit=60, soft_time_limit=50)
def heartbeat(queues: str = "") -> dict:
    """Record that this worker process is alive; returns what it recorded."""
    beat = record_heartbeat(queues=queues)
    return {"id": beat.pk, "hostname": beat.hostname, "pid": beat.pid}
