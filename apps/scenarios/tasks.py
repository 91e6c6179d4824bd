"""Thin Celery tasks: take IDs, call a service.  Their return values are not kept (nothing reads them: the
replications' rows are the state), which spares the result backend a write per task."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from apps.core.jobs import DB_RETRY
from apps.scenarios.services import execute_replication, execute_replications

__all__ = ["run_replication", "run_replications"]


@shared_task(name="scenarios.run_replication", bind=True, acks_late=True, reject_on_worker_lost=True, time_limit=3600,
             soft_time_limit=3550, ignore_result=True, autoretry_for=(OperationalError, InterfaceError), **DB_RETRY)
def run_replication(self, run_id: str, index: int) -> str:
    """Execute replication ``index`` of run ``run_id`` on this worker node; returns its status."""
    return execute_replication(run_id, index, worker=self.request.hostname or "", task_id=self.request.id)


@shared_task(name="scenarios.run_replications", bind=True, acks_late=True, reject_on_worker_lost=True,
             time_limit=3600, soft_time_limit=3550, ignore_result=True, autoretry_for=(OperationalError, InterfaceError),
             **DB_RETRY)
def run_replications(self, run_id: str, indexes: list[int]) -> dict:
    """Execute replications ``indexes`` of run ``run_id`` one after another on this worker node (a batch of a big
    run); returns index -> status."""
    return execute_replications(run_id, indexes, worker=self.request.hostname or "", task_id=self.request.id)
