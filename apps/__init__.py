"""Skyplan's Django project package: settings, URLs, the Celery app and one sub-package per app."""

from .celery import app as celery_app

__all__ = ["celery_app"]
