"""Thin Celery tasks: take IDs, call a service."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from apps.calibration.fitting import execute_calibration
from apps.core.jobs import DB_RETRY

__all__ = ["fit"]


@shared_task(name="calibration.fit", bind=True, acks_late=True, time_limit=3600, soft_time_limit=3540,
             autoretry_for=(OperationalError, InterfaceError), **DB_RETRY)
def fit(self, job_id: str) -> str:
    """Fit calibration ``job_id``'s demands to its workspace's observations; returns its status."""
    return execute_calibration(job_id, worker=self.request.hostname or "", task_id=self.request.id)
