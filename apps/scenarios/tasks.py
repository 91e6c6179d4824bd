"""Thin Celery tasks: take IDs, call a service."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from apps.core.jobs import DB_RETRY
from apps.scenarios.services import execute_replication

__all__ = ["run_replication"]


@shared_task(name="scenarios.run_replication", bind=True, acks_late=True, reject_on_worker_lost=True, time_limit=3600,
             soft_time_limit=3550, autoretry_for=(OperationalError, InterfaceError), **DB_RETRY)
def run_replication(self, run_id: str, index: int) -> str:
    """Execute replication ``index`` of run ``run_id`` on this worker node; returns its status."""
    return execute_replication(run_id, index, worker=self.request.hostname or "", task_id=self.request.id)
