"""A workspace's observations of its own runs (what a fit is made to)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from apps.core.fields import QuantityField
from apps.core.models import TaskJob

__all__ = ["Observation", "CalibrationJob"]


class Observation(models.Model):
    """One observed run of a workload on a platform, e.g. "394 jobs took 7 min on platform X": the quantity
    measured (the makespan, the run time after the queue wait, or one stage's time), its value with the source it
    comes from, and whether a calibration may fit to it (``use_for_fitting``) or only compares with it."""

    class Quantity(models.TextChoices):
        MAKESPAN = "makespan", "makespan (queue wait included)"
        RUN_TIME = "run_time", "run time (after the queue wait)"
        STAGE_TIME = "stage_time", "one stage's time (first task start to last task end)"

    workspace = models.ForeignKey("accounts.Workspace", on_delete=models.CASCADE, related_name="observations")
    label = models.CharField(max_length=120, help_text="a short name of the run, e.g. 'March 394-job run'")
    workload = models.ForeignKey("workloads.Workload", on_delete=models.CASCADE, related_name="user_observations")
    platform = models.ForeignKey("platforms.Platform", on_delete=models.CASCADE, related_name="user_observations")
    quantity = models.CharField(max_length=20, choices=Quantity.choices)
    stage = models.CharField(max_length=60, blank=True, help_text="the stage whose time was observed (stage_time)")
    value = QuantityField("observed value", dimension="time", strictly_positive=True)
    source = models.JSONField(help_text="where the value comes from (apps.core.provenance)")
    use_for_fitting = models.BooleanField(default=True)
    note = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return self.label

    @property
    def key(self) -> str:
        """The observation as fits and predictions name it."""
        return f"{self.pk}: {self.label}"


class CalibrationJob(TaskJob):
    """A fit of some demands of a workload to the workspace's observations of it (a Celery task, with progress and
    cancel): what was asked (``demands``, each ``{name, lower, upper}`` in base units), and once done the fitted
    values and every observation's prediction and error (``result``), stored into the workload when it is the
    workspace's own and ``apply`` was asked."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey("accounts.Workspace", on_delete=models.CASCADE, related_name="calibration_jobs")
    workload = models.ForeignKey("workloads.Workload", on_delete=models.CASCADE, related_name="calibration_jobs")
    demands = models.JSONField(help_text="[{name, lower, upper}] in base units")
    apply = models.BooleanField(default=False, help_text="store the fitted values into the workspace's workload")
    applied = models.BooleanField(default=False)
    result = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"calibration of {self.workload.slug}"
