"""Thin Celery tasks: take IDs, call a service."""

from __future__ import annotations

from celery import shared_task

from apps.scoring.services import execute_chunk

__all__ = ["run_search_chunk"]


@shared_task(name="scoring.run_search_chunk", acks_late=True, time_limit=3600, soft_time_limit=3550)
def run_search_chunk(search_id: str, index: int) -> str:
    """Evaluate chunk ``index`` of configuration search ``search_id``; returns its status."""
    return execute_chunk(search_id, index)
