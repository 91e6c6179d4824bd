"""Thin Celery tasks: take IDs, call a service."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from apps.core.jobs import DB_RETRY
from apps.scoring.services import execute_chunk, execute_report

__all__ = ["run_search_chunk", "compute_report"]


@shared_task(name="scoring.run_search_chunk", bind=True, acks_late=True, time_limit=3600, soft_time_limit=3550,
             autoretry_for=(OperationalError, InterfaceError), **DB_RETRY)
def run_search_chunk(self, search_id: str, index: int) -> str:
    """Evaluate chunk ``index`` of configuration search ``search_id``; returns its status."""
    return execute_chunk(search_id, index, worker=self.request.hostname or "", task_id=self.request.id)


@shared_task(name="scoring.compute_report", bind=True, acks_late=True, time_limit=1800, soft_time_limit=1750,
             autoretry_for=(OperationalError, InterfaceError), **DB_RETRY)
def compute_report(self, report_id: int) -> str:
    """Compute the scoring report ``report_id`` on this worker; returns its status."""
    return execute_report(report_id, worker=self.request.hostname or "", task_id=self.request.id)
