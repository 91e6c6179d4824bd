"""Simulation runs and their replications.

A run snapshots its inputs (platform, workload and options as plain dicts) so it can
be re-run and explained even after the catalogue changes.  Each replication is a
row written by one Celery task; the run is complete when all of them are.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Avg
from django.urls import reverse

__all__ = ["SimulationRun", "Replication"]


class Status(models.TextChoices):
    QUEUED = "queued", "queued"
    RUNNING = "running", "running"
    SUCCEEDED = "succeeded", "succeeded"
    FAILED = "failed", "failed"
    CANCELLED = "cancelled", "cancelled"


FINISHED = (Status.SUCCEEDED, Status.FAILED, Status.CANCELLED)


class SimulationRun(models.Model):
    Status = Status

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    label = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    platform = models.ForeignKey("platforms.Platform", null=True, on_delete=models.SET_NULL, related_name="runs")
    workload = models.ForeignKey("workloads.Workload", null=True, on_delete=models.SET_NULL, related_name="runs")
    options = models.JSONField(default=dict, blank=True)
    seed = models.BigIntegerField(default=0)
    replications = models.PositiveIntegerField(default=1)
    inputs = models.JSONField(default=dict, help_text="snapshot of platform, workload and options")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED, db_index=True)
    error = models.TextField(blank=True)
    results = models.JSONField(null=True, blank=True, help_text="summary over replications")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.label or f"run {str(self.id)[:8]}"

    def get_absolute_url(self) -> str:
        return reverse("scenarios:run", args=[self.id])

    @property
    def is_finished(self) -> bool:
        return self.status in FINISHED

    def progress(self) -> float:
        """Fraction done, 0 to 1, averaged over replications."""
        if self.status == Status.SUCCEEDED:
            return 1.0
        value = self.replication_set.aggregate(p=Avg("progress"))["p"]
        return float(value or 0.0)


class Replication(models.Model):
    """One replication of a run (one seed); its result is the simulator's JSON output."""

    run = models.ForeignKey(SimulationRun, on_delete=models.CASCADE, related_name="replication_set")
    index = models.PositiveIntegerField()
    seed = models.BigIntegerField()
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    progress = models.FloatField(default=0.0)
    task_id = models.CharField(max_length=64, blank=True)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    worker = models.CharField(max_length=200, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["run", "index"]
        constraints = [models.UniqueConstraint(fields=["run", "index"], name="unique_replication_index")]
