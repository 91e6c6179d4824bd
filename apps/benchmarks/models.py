"""Benchmark runs dispatched to a worker on a candidate host, and the measured values they produced."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.urls import reverse

from apps.core.models import TaskJob

__all__ = ["BenchmarkRun", "MeasuredValue", "queue_for"]


def queue_for(platform_slug: str) -> str:
    """The Celery queue whose workers measure ``platform_slug``'s hosts."""
    return f"bench.{platform_slug}"


class BenchmarkRun(TaskJob):
    class Kind(models.TextChoices):
        STORAGE = "storage", "storage (fio)"
        CPU = "cpu", "CPU kernels"
        MINIPIPELINE = "minipipeline", "mini-pipeline (copy → split → invert → concat)"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    platform = models.ForeignKey("platforms.Platform", on_delete=models.CASCADE, related_name="benchmark_runs")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    parameters = models.JSONField(default=dict, blank=True)
    queue = models.CharField(max_length=150)
    host = models.JSONField(null=True, blank=True, help_text="what the worker host said about itself")
    result = models.JSONField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    workspace = models.ForeignKey("accounts.Workspace", null=True, blank=True, on_delete=models.CASCADE,
                                  related_name="benchmark_runs",
                                  help_text="who may see it (none: shared, e.g. from the command line)")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} on {self.platform.name}"

    def get_absolute_url(self) -> str:
        return reverse("benchmarks:run", args=[self.id])


class MeasuredValue(models.Model):
    """One figure a benchmark measured, in base units, ready to be applied to a catalogue fact."""

    run = models.ForeignKey(BenchmarkRun, on_delete=models.CASCADE, related_name="measured_values")
    name = models.CharField(max_length=60, help_text="catalogue fact it can set, e.g. read_bw_per_client")
    label = models.CharField(max_length=200)
    value = models.FloatField()
    dimension = models.CharField(max_length=30)
    source = models.JSONField(help_text="provenance: kind measurement, host, date, note")
    applied_to = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["run", "name"]
        constraints = [models.UniqueConstraint(fields=["run", "name"], name="unique_measured_value")]

    def __str__(self) -> str:
        return f"{self.label}: {self.value:g}"
