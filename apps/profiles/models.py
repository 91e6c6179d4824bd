"""Imported profiles, their import jobs, and calibrations derived from them.

A :class:`ProfileImport` tracks one uploaded file through parsing (status, progress, cancel,
the error naming file and line); only a successful parse creates a :class:`Profile`, in one
transaction with its analysis.  A :class:`Calibration` holds demands derived from one or two
profiles of the same run for a workload stage on a platform, with simulated and measured
durations, until it is applied.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.urls import reverse

from apps.core.models import JOB_FINISHED, JobStatus, TaskJob
from apps.profiles.calibration import measurement_warnings

__all__ = ["Status", "ProfileImport", "Profile", "Calibration", "TierMeasurement"]


Status = JobStatus
FINISHED = JOB_FINISHED


class Profile(models.Model):
    """One parsed profiling file and its stored analysis (summary, phases, series, histograms)."""

    class Kind(models.TextChoices):
        SAMPLES = "samples", "per-second samples"
        STRACE = "strace", "system-call trace"
        FIO = "fio", "storage benchmark"
        DARSHAN = "darshan", "Darshan I/O log"

    name = models.CharField(max_length=255)
    format = models.CharField(max_length=20)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    size_bytes = models.BigIntegerField()
    file = models.CharField(max_length=500, blank=True, help_text="stored copy, relative to MEDIA_ROOT")
    host = models.CharField(max_length=255, blank=True)
    duration_s = models.FloatField(null=True)
    summary = models.JSONField(default=dict)
    analysis = models.JSONField(default=dict)
    platform = models.ForeignKey("platforms.Platform", null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="profiles")
    stage = models.ForeignKey("workloads.WorkloadStage", null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="profiles")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    workspace = models.ForeignKey("accounts.Workspace", null=True, blank=True, on_delete=models.CASCADE,
                                  related_name="profiles", help_text="who may see it (none: shared, e.g. from the command line)")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"profile {self.pk} ({self.name})"

    def get_absolute_url(self) -> str:
        return reverse("profiles:detail", args=[self.pk])

    @property
    def phases(self) -> list[dict]:
        return self.analysis.get("phases") or []


class ProfileImport(TaskJob):
    """An uploaded file on its way through the parser (a Celery task), with progress and cancel."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    filename = models.CharField(max_length=255)
    format = models.CharField(max_length=20, default="auto")
    upload_path = models.CharField(max_length=500, help_text="the streamed upload, relative to MEDIA_ROOT")
    size_bytes = models.BigIntegerField(default=0)
    platform = models.ForeignKey("platforms.Platform", null=True, blank=True, on_delete=models.SET_NULL)
    stage = models.ForeignKey("workloads.WorkloadStage", null=True, blank=True, on_delete=models.SET_NULL)
    error_line = models.PositiveIntegerField(null=True, blank=True)
    cancel_requested = models.BooleanField(default=False)
    profile = models.OneToOneField(Profile, null=True, blank=True, on_delete=models.SET_NULL, related_name="source")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    workspace = models.ForeignKey("accounts.Workspace", null=True, blank=True, on_delete=models.CASCADE,
                                  related_name="profile_imports", help_text="who may see it (none: shared, e.g. from the command line)")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"import of {self.filename}"

    def get_absolute_url(self) -> str:
        return reverse("profiles:import", args=[self.pk])



class Calibration(models.Model):
    """Stage demands derived from profiles of one run, and the simulated vs measured duration they give."""

    stage = models.ForeignKey("workloads.WorkloadStage", on_delete=models.CASCADE, related_name="calibrations")
    platform = models.ForeignKey("platforms.Platform", on_delete=models.CASCADE, related_name="calibrations")
    profiles = models.ManyToManyField(Profile, related_name="calibrations")
    node_type = models.CharField(max_length=100)
    storage_tier = models.CharField(max_length=100)
    demands = models.JSONField(help_text="derived stage facts in base units")
    notes = models.JSONField(default=dict, help_text="fact name → how it was derived")
    before = models.JSONField(default=dict, help_text="the stage facts before calibration")
    measured_s = models.FloatField()
    simulated_before_s = models.FloatField(null=True)
    simulated_after_s = models.FloatField(null=True)
    method = models.TextField()
    applied_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    workspace = models.ForeignKey("accounts.Workspace", null=True, blank=True, on_delete=models.CASCADE,
                                  related_name="calibrations", help_text="who may see it (none: shared, e.g. from the command line)")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"calibration {self.pk} of {self.stage} on {self.platform}"

    def get_absolute_url(self) -> str:
        return reverse("profiles:calibration", args=[self.pk])

    @staticmethod
    def _error(simulated: float | None, measured: float) -> float | None:
        return None if simulated is None or not measured else (simulated - measured) / measured

    @property
    def error_before(self) -> float | None:
        return self._error(self.simulated_before_s, self.measured_s)

    @property
    def error_after(self) -> float | None:
        return self._error(self.simulated_after_s, self.measured_s)


class TierMeasurement(models.Model):
    """A storage tier's bandwidth/IOPS measured by a fio profile, and whether it was applied."""

    profile = models.ForeignKey(Profile, on_delete=models.CASCADE, related_name="tier_measurements")
    tier = models.ForeignKey("platforms.StorageTier", on_delete=models.CASCADE, related_name="measurements")
    host = models.CharField(max_length=255)
    date = models.DateField()
    values = models.JSONField(help_text="tier fact → measured value in base units")
    before = models.JSONField(default=dict)
    applied_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"fio on {self.host} for {self.tier}"

    def warnings(self) -> list[str]:
        """Measured values that cannot take effect on the tier as it stands, each saying what to change."""
        tier = self.tier
        return measurement_warnings(self.values, {"read_bw": tier.read_bw, "write_bw": tier.write_bw,
                                                  "iops": tier.iops})
