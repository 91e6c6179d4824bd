"""Celery task: generate one report (thin: the work is in apps.reports.services)."""

from celery import shared_task
from django.db import InterfaceError, OperationalError

from apps.core.jobs import DB_RETRY
from apps.reports.services import generate_report


@shared_task(name="reports.generate", bind=True, acks_late=True, time_limit=600, soft_time_limit=570,
             autoretry_for=(OperationalError, InterfaceError), **DB_RETRY)
def generate_report_task(self, report_id: str) -> str:
    return generate_report(report_id, worker=self.request.hostname or "", task_id=self.request.id)
