"""Scoring criteria (editable) and configuration searches with their chunks.

A search snapshots its inputs (platform and workload as plain dicts, the space) like a simulation run,
so it can be re-run after the catalogue changes; one Celery task evaluates one chunk of configurations.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Sum
from django.urls import reverse

from apps.core.models import JOB_FINISHED, Job, JobStatus, TaskJob
from apps.scoring.logic.criteria import METRICS, RubricError, validate_rubric

__all__ = ["Criterion", "ConfigurationSearch", "SearchChunk", "ScoreReport", "Status"]


class Criterion(models.Model):
    """One consideration of the radar: a metric, a direction, a 0-5 rubric and a weight.

    A criterion with no workspace belongs to the reference set (the paper's eight and the write bandwidth unless a
    catalogue maintainer changed them), which scores every workspace that has no criteria of its own; a workspace
    that copies the reference set owns its copy (its editors change it, its viewers read it)."""

    class Direction(models.TextChoices):
        HIGHER = "higher", "higher is better"
        LOWER = "lower", "lower is better"

    workspace = models.ForeignKey("accounts.Workspace", null=True, blank=True, on_delete=models.CASCADE,
                                  related_name="criteria", help_text="none: the reference set, the default")
    key = models.SlugField(max_length=60)
    label = models.CharField(max_length=120)
    metric = models.CharField(max_length=40, choices=[(k, m.label) for k, m in METRICS.items()])
    direction = models.CharField(max_length=10, choices=Direction.choices)
    rubric = models.JSONField(help_text="thresholds or categories mapping the metric to 0-5 (see docs/scoring.md)")
    weight = models.FloatField(default=1.0)
    position = models.PositiveIntegerField(default=0)
    enabled = models.BooleanField(default=True)

    class Meta:
        ordering = ["position", "key"]
        constraints = [
            models.UniqueConstraint(fields=["workspace", "key"], name="unique_criterion_key_per_workspace"),
            models.UniqueConstraint(fields=["key"], condition=models.Q(workspace__isnull=True),
                                    name="unique_reference_criterion_key"),
        ]

    def __str__(self) -> str:
        return self.label

    def clean(self):
        errors = {}
        if self.weight is not None and self.weight < 0:
            errors["weight"] = "must not be negative"
        try:
            validate_rubric(self.rubric, self.metric, self.direction)
        except RubricError as exc:
            field = str(exc).split(":", 1)[0].split(".", 1)[0]
            errors[field if field in ("metric", "direction") else "rubric"] = str(exc)
        if errors:
            raise ValidationError(errors)


Status = JobStatus
FINISHED = JOB_FINISHED


class ConfigurationSearch(Job):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    label = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    workspace = models.ForeignKey("accounts.Workspace", null=True, blank=True, on_delete=models.CASCADE,
                                  related_name="searches", help_text="who may see it (none: command line, staff only)")
    platform = models.ForeignKey("platforms.Platform", null=True, on_delete=models.SET_NULL, related_name="searches")
    workload = models.ForeignKey("workloads.Workload", null=True, on_delete=models.SET_NULL, related_name="searches")
    space = models.JSONField(default=dict)
    inputs = models.JSONField(default=dict, help_text="snapshot of platform and workload")
    seed = models.BigIntegerField(default=0)
    deadline_s = models.FloatField(null=True, blank=True)
    budget_aud = models.FloatField(null=True, blank=True)
    total = models.PositiveIntegerField(default=0)
    results = models.JSONField(null=True, blank=True, help_text="Pareto front, cheapest in deadline, fastest in budget")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.label or f"search {str(self.id)[:8]}"

    def get_absolute_url(self) -> str:
        return reverse("scoring:search", args=[self.id])

    def done(self) -> int:
        return int(self.chunks.aggregate(n=Sum("done"))["n"] or 0)

    def progress(self) -> float:
        if self.status == Status.SUCCEEDED:
            return 1.0
        return self.done() / self.total if self.total else 0.0


class SearchChunk(TaskJob):
    """Configurations ``start``..``end`` (exclusive) of a search, evaluated by one task."""

    search = models.ForeignKey(ConfigurationSearch, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    done = models.PositiveIntegerField(default=0)
    points = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["search", "index"]
        constraints = [models.UniqueConstraint(fields=["search", "index"], name="unique_search_chunk_index")]


class ScoreReport(TaskJob):
    """A workload's scoring report (ranks, aggregates, robustness, TCO), computed once on a worker and kept.

    ``key`` is a digest of everything the report depends on (the workload and platforms as catalogue dicts, the
    criteria, method, seed, samples, replications and horizon): an edit of any of them asks for a new report,
    and the same request again finds this one.  ``params`` are what the worker needs to compute it."""

    key = models.CharField(max_length=64, unique=True)
    workload = models.ForeignKey("workloads.Workload", on_delete=models.CASCADE, related_name="score_reports")
    params = models.JSONField(default=dict)
    report = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
