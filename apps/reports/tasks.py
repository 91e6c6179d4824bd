"""Celery task: generate one report (thin: the work is in apps.reports.services)."""

from celery import shared_task

from apps.reports.services import generate_report


@shared_task(name="reports.generate", acks_late=True, time_limit=600, soft_time_limit=570)
def generate_report_task(report_id: str) -> str:
    return generate_report(report_id)
