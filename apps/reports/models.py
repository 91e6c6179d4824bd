"""A requested export of a scenario's ranked platform report, generated on a Celery worker."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.urls import reverse

from apps.core.models import TaskJob

__all__ = ["Report", "FORMATS"]

#: format -> (file extension, MIME type)
FORMATS: dict[str, tuple[str, str]] = {
    "pdf": ("pdf", "application/pdf"),
    "html": ("html", "text/html; charset=utf-8"),
    "csv": ("zip", "application/zip"),  # one CSV per table
    "xlsx": ("xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    "json": ("json", "application/json"),
}


class Report(TaskJob):
    """One export of one scenario in one format.  The file is written only when generation succeeds."""

    class Format(models.TextChoices):
        PDF = "pdf", "PDF"
        HTML = "html", "HTML (self-contained)"
        CSV = "csv", "CSV (the tables)"
        XLSX = "xlsx", "XLSX (the tables)"
        JSON = "json", "JSON (versioned schema)"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    scenario = models.ForeignKey("scenarios.Scenario", on_delete=models.CASCADE, related_name="reports")
    format = models.CharField(max_length=8, choices=Format.choices)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    stage = models.CharField(max_length=120, blank=True, help_text="what the worker is doing now")
    file = models.FileField(upload_to="reports/%Y/%m/", blank=True)
    size_bytes = models.BigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.get_format_display()} report of {self.scenario}"

    def get_absolute_url(self) -> str:
        return reverse("reports:detail", args=[self.id])

    @property
    def extension(self) -> str:
        return FORMATS[self.format][0]

    @property
    def content_type(self) -> str:
        return FORMATS[self.format][1]

    def download_name(self) -> str:
        """A file name for the download: the scenario's name made safe, and the format's extension."""
        from django.utils.text import slugify

        return f"skyplan-{slugify(self.scenario.name)[:60] or 'scenario'}.{self.extension}"
