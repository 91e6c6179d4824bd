"""Thin Celery task: a benchmark runs on whichever worker consumes its platform's queue."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from apps.benchmarks.services import execute
from apps.core.jobs import DB_RETRY

__all__ = ["run_benchmark"]


@shared_task(name="benchmarks.run", bind=True, acks_late=True, reject_on_worker_lost=True, time_limit=3600,
             soft_time_limit=3500, autoretry_for=(OperationalError, InterfaceError), **DB_RETRY)
def run_benchmark(self, run_id: str) -> str:
    return execute(run_id, worker=self.request.hostname or "", task_id=self.request.id)
