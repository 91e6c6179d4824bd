"""Shared model pieces: the provenance-carrying catalogue base, worker heartbeats, and the abstract job every long
piece of work (simulation runs and replications, searches and their chunks, profile imports, benchmarks, reports)
is made of."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models

from apps.core.provenance import describe_source, short_source, source_errors
from simulator import units

__all__ = ["CatalogueModel", "ExchangeRate", "exchange_rates", "MissingRate", "currency_section", "WorkerHeartbeat", "JobStatus", "JOB_FINISHED", "Job", "TaskJob"]


class CatalogueModel(models.Model):
    """A catalogue row whose every fact records where it came from.

    Subclasses list their facts in ``FACT_FIELDS``; ``provenance`` maps each fact
    name to its source (see :mod:`apps.core.provenance`).  A fact with a value but
    no valid source fails validation, in the admin as in the loader.
    """

    FACT_FIELDS: tuple[str, ...] = ()

    provenance = models.JSONField(default=dict, blank=True, help_text="fact name → source object")

    class Meta:
        abstract = True

    def fact_value(self, name: str):
        return getattr(self, name)

    def provenance_problems(self) -> dict[str, list[str]]:
        """Fact name → what is wrong with its provenance, for every fact that has a value."""
        problems: dict[str, list[str]] = {}
        prov = self.provenance if isinstance(self.provenance, dict) else {}
        for name in self.FACT_FIELDS:
            value = self.fact_value(name)
            if value is None or value == "" or value == []:
                continue
            if name not in prov:
                problems[name] = ["has a value but no source"]
                continue
            errors = source_errors(prov[name])
            if errors:
                problems[name] = errors
        unknown = sorted(set(prov) - set(self.FACT_FIELDS))
        for name in unknown:
            problems[name] = [f"provenance given for unknown fact {name!r}"]
        return problems

    def clean(self):
        super().clean()
        if not isinstance(self.provenance, dict):
            raise ValidationError({"provenance": "must be an object mapping fact names to sources"})
        problems = self.provenance_problems()
        if problems:
            raise ValidationError(
                {"provenance": [f"{name}: {'; '.join(errs)}" for name, errs in sorted(problems.items())]}
            )

    def source_of(self, name: str) -> dict | None:
        return (self.provenance or {}).get(name)

    def source_text(self, name: str) -> str:
        return describe_source(self.source_of(name))

    def source_short(self, name: str) -> str:
        return short_source(self.source_of(name))


class ExchangeRate(models.Model):
    """A catalogue fact: one unit of ``currency`` was worth ``base_per_unit`` of the base currency (AUD) on ``date``,
    with its source.  Prices given in that currency convert through it; reports in that currency use it."""

    currency = models.CharField(max_length=3, choices=[(c, c) for c in units.CURRENCIES if c != units.CURRENCY])
    base_per_unit = models.FloatField(validators=[MinValueValidator(1e-9)],
                                      help_text=f"{units.CURRENCY} per one unit of the currency")
    date = models.DateField(help_text="the day the rate applies to")
    provenance = models.JSONField(default=dict, blank=True, help_text="the rate's source")

    class Meta:
        ordering = ("currency", "-date")
        constraints = [models.UniqueConstraint(fields=("currency", "date"), name="exchange_rate_currency_date")]

    def __str__(self) -> str:
        return self.as_fact().describe()

    def clean(self):
        super().clean()
        errors = source_errors(self.provenance)
        if errors:
            raise ValidationError({"provenance": errors})

    def as_fact(self) -> units.ExchangeRate:
        return units.ExchangeRate(self.currency, float(self.base_per_unit), self.date.isoformat(),
                                  dict(self.provenance or {}))


def exchange_rates() -> dict[str, units.ExchangeRate]:
    """The catalogue's rate of each currency (the latest date when it holds several), as simulator facts."""
    rates: dict[str, units.ExchangeRate] = {}
    for row in ExchangeRate.objects.order_by("currency", "-date"):
        rates.setdefault(row.currency, row.as_fact())
    return rates


class MissingRate(ValueError):
    """The scenario's currency has no exchange rate in the catalogue (any more)."""


def currency_section(code: str | None) -> dict[str, Any]:
    """What the report says about its currency: code, base, the rate (base per unit), its date and source."""
    code = code or units.CURRENCY
    if code == units.CURRENCY:
        return {"code": units.CURRENCY, "base": units.CURRENCY, "base_per_unit": 1.0, "date": None, "source": None,
                "text": f"Amounts in {units.CURRENCY}, the catalogue's currency (no conversion)."}
    rate = exchange_rates().get(code)
    if rate is None:
        raise MissingRate(f"the scenario shows money in {code} but the catalogue has no {code} exchange rate: add "
                          f"one (rate, date, source) or change the scenario's currency")
    return {"code": code, "base": units.CURRENCY, "base_per_unit": rate.base_per_unit, "date": rate.date,
            "source": rate.source,
            "text": f"Amounts in {code}, computed in {units.CURRENCY} and converted at {rate.describe()}; rate source: "
                    f"{describe_source(rate.source)}"}


class WorkerHeartbeat(models.Model):
    """A Celery worker said it is alive: which host, which process, which queues.  A worker's main process says so
    again every ``SKYPLAN_HEARTBEAT_INTERVAL_S`` under its node name, so the sweeps can tell it is alive even when it
    cannot answer a ping (apps.core.services.node_alive)."""

    hostname = models.CharField(max_length=255)
    pid = models.PositiveIntegerField()
    node = models.CharField(max_length=255, blank=True, db_index=True, help_text="Celery node name@host")
    queues = models.CharField(max_length=500, blank=True)
    cores = models.PositiveIntegerField(null=True)
    memory_bytes = models.FloatField(null=True)
    os = models.CharField(max_length=255, blank=True)
    seen_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-seen_at"]
        constraints = [models.UniqueConstraint(fields=["hostname", "pid"], name="unique_worker_process")]

    def __str__(self) -> str:
        return f"{self.hostname} (pid {self.pid})"


class JobStatus(models.TextChoices):
    """The life of every long job (simulation runs, searches, imports, benchmarks)."""

    QUEUED = "queued", "queued"
    RUNNING = "running", "running"
    SUCCEEDED = "succeeded", "succeeded"
    FAILED = "failed", "failed"
    CANCELLED = "cancelled", "cancelled"


#: the statuses a job does not leave
JOB_FINISHED = (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED)


class Job(models.Model):
    """What every job records of its life: its status, the reason it failed, and when it was requested, started and
    finished.  A job whose work is split over several Celery tasks (a run's replications, a search's chunks) is a
    :class:`Job`; each piece of work one task does is a :class:`TaskJob`."""

    Status = JobStatus
    FINISHED = JOB_FINISHED

    status = models.CharField(max_length=12, choices=JobStatus.choices, default=JobStatus.QUEUED, db_index=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True

    @property
    def is_finished(self) -> bool:
        return self.status in JOB_FINISHED


class TaskJob(Job):
    """A job one Celery task works on: which task may (``task_id``, see :mod:`apps.core.jobs`), on which worker node
    (``worker``, ``name@host``, so the lost-worker sweep can tell when it died), and how far it got (0 to 1)."""

    progress = models.FloatField(default=0.0)
    task_id = models.CharField(max_length=64, blank=True)
    worker = models.CharField(max_length=255, blank=True, help_text="the Celery node (name@host) running it")

    class Meta:
        abstract = True
