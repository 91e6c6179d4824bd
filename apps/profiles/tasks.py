"""Thin Celery tasks: take IDs, call a service."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from apps.core.jobs import DB_RETRY
from apps.profiles.services import execute_import

__all__ = ["import_profile"]


@shared_task(name="profiles.import_profile", bind=True, acks_late=True, time_limit=3 * 3600,
             soft_time_limit=3 * 3600 - 60, autoretry_for=(OperationalError, InterfaceError), **DB_RETRY)
def import_profile(self, job_id: str) -> str:
    """Parse, analyse and save the profile of import ``job_id``; returns its status."""
    return execute_import(job_id, worker=self.request.hostname or "", task_id=self.request.id)
