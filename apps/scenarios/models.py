"""Simulation runs and their replications; scenarios that compare one workload on several platforms.

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

from apps.core.models import JOB_FINISHED, Job, JobStatus, MissingRate, TaskJob, currency_section

__all__ = ["SimulationRun", "Replication", "Scenario", "ScenarioPlatform"]


Status = JobStatus
FINISHED = JOB_FINISHED


class SimulationRun(Job):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    label = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    workspace = models.ForeignKey("accounts.Workspace", null=True, blank=True, on_delete=models.CASCADE,
                                  related_name="runs", help_text="who may see it (none: command-line runs, staff only)")
    platform = models.ForeignKey("platforms.Platform", null=True, on_delete=models.SET_NULL, related_name="runs")
    workload = models.ForeignKey("workloads.Workload", null=True, on_delete=models.SET_NULL, related_name="runs")
    options = models.JSONField(default=dict, blank=True)
    seed = models.BigIntegerField(default=0)
    replications = models.PositiveIntegerField(default=1)
    inputs = models.JSONField(default=dict, help_text="snapshot of platform, workload and options")
    results = models.JSONField(null=True, blank=True, help_text="summary over replications")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.label or f"run {str(self.id)[:8]}"

    def get_absolute_url(self) -> str:
        return reverse("scenarios:run", args=[self.id])

    def progress(self) -> float:
        """Fraction done, 0 to 1, averaged over replications."""
        if self.status == Status.SUCCEEDED:
            return 1.0
        value = self.replication_set.aggregate(p=Avg("progress"))["p"]
        return float(value or 0.0)


class Replication(TaskJob):
    """One replication of a run (one seed).

    Its outcome is kept as columns (makespan, cost, queue wait: what summaries, percentiles and distributions
    read) and ``result``, the simulator's JSON output: the summary of every replication (stages, costs, notes) and,
    for the replications pages show (P10/P50/P90 of the makespan, ``detailed``), every task and the utilisation
    over time as well."""

    run = models.ForeignKey(SimulationRun, on_delete=models.CASCADE, related_name="replication_set")
    index = models.PositiveIntegerField()
    seed = models.BigIntegerField()
    result = models.JSONField(null=True, blank=True)
    makespan_s = models.FloatField(null=True, blank=True, help_text="submission to the last task, queue wait included")
    cost_aud = models.FloatField(null=True, blank=True, help_text="total cost of the replication")
    queue_wait_s = models.FloatField(null=True, blank=True)
    detailed = models.BooleanField(default=False, help_text="result holds every task and the utilisation series")

    class Meta:
        ordering = ["run", "index"]
        constraints = [models.UniqueConstraint(fields=["run", "index"], name="unique_replication_index")]


class Scenario(models.Model):
    """A named comparison: one workload (with parameter overrides) on two or more platforms.

    Running it creates one :class:`SimulationRun` per platform; the scenario's status and
    progress are derived from those runs.  ``results_cache`` holds the results page's
    tables and figures, computed once when every run has finished.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=200)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    workspace = models.ForeignKey("accounts.Workspace", null=True, blank=True, on_delete=models.CASCADE,
                                  related_name="scenarios", help_text="who may see it (none: command line, staff only)")
    workload = models.ForeignKey("workloads.Workload", on_delete=models.PROTECT, related_name="scenarios")
    workload_overrides = models.JSONField(default=dict, blank=True, help_text="parameter name -> value in base units")
    replications = models.PositiveIntegerField(default=5)
    seed = models.BigIntegerField(default=0)
    tco_years = models.FloatField(default=5.0, help_text="horizon of the total cost of ownership (years)")
    epochs_per_year = models.FloatField(default=1.0, help_text="how often the workload runs per year, for TCO")
    currency = models.CharField(max_length=3, default="AUD",
                                help_text="the currency results and reports show money in (computed in AUD, converted "
                                          "through the catalogue's exchange rate)")
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="what_ifs")
    change = models.CharField(max_length=300, blank=True, help_text="what this what-if changed from its parent")
    results_cache = models.JSONField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("scenarios:scenario", args=[self.id])

    def currency_text(self) -> str:
        """The currency its reports show money in, with the rate, date and source (or why there is none)."""
        try:
            return currency_section(self.currency)["text"]
        except MissingRate as exc:
            return str(exc)

    def runs(self) -> list[SimulationRun]:
        return [e.run for e in self.entries.all() if e.run is not None]

    def status(self) -> str:
        """draft (never run), running, succeeded, failed or cancelled, from the runs' statuses."""
        return combined_status([e.run.status if e.run else None for e in self.entries.all()])

    def progress(self) -> float:
        """Fraction done over all platforms' runs, 0 to 1."""
        runs = self.runs()
        if not runs:
            return 0.0
        return sum(r.progress() for r in runs) / len(runs)


class ScenarioPlatform(models.Model):
    """One platform of a scenario: its run options (as :class:`SimulationRun` takes them),
    catalogue overrides for what-ifs, and the run that simulated it."""

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="entries")
    platform = models.ForeignKey("platforms.Platform", on_delete=models.PROTECT, related_name="scenario_entries")
    position = models.PositiveIntegerField(default=0)
    options = models.JSONField(default=dict, blank=True)
    platform_overrides = models.JSONField(
        default=dict, blank=True, help_text='{"facts": {name: value}, "storage_tiers": {tier: {name: value}}}'
    )
    run = models.ForeignKey(SimulationRun, null=True, blank=True, on_delete=models.SET_NULL,
                            related_name="scenario_entries")

    class Meta:
        ordering = ["scenario", "position"]
        constraints = [models.UniqueConstraint(fields=["scenario", "platform"], name="unique_scenario_platform")]

    def __str__(self) -> str:
        return f"{self.scenario} / {self.platform}"


def combined_status(statuses: list) -> str:
    """A scenario's status from its platforms' run statuses (None: never run): draft, running, failed, cancelled or
    succeeded.  Callers that also show each platform's status pass the same statuses, so the two never disagree."""
    if not statuses or None in statuses:
        return "draft"
    if any(s in (Status.QUEUED, Status.RUNNING) for s in statuses):
        return "running"
    if any(s == Status.FAILED for s in statuses):
        return "failed"
    if any(s == Status.CANCELLED for s in statuses):
        return "cancelled"
    return "succeeded"
