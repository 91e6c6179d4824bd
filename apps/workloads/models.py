"""Workloads (pipeline templates with parameters), their stages' demands, and reference observations.

Reference observations are published measurements used only to validate the model;
they are never inputs to a computation.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse

from apps.core.fields import QuantityField
from apps.core.labels import readable
from apps.core.models import CatalogueModel
from apps.core.provenance import describe_source, short_source, source_errors
from apps.workloads.schemas import STAGE_NAMES, TEMPLATES
from simulator.model.specs import ACCESS_PATTERNS, DEPENDENCY_KINDS, LINKS, ROLES, SIZE_DISTRIBUTIONS

__all__ = ["Workload", "WorkloadStage", "ReferenceObservation"]


class Workload(CatalogueModel):
    class Template(models.TextChoices):
        JOB_ARRAY = "job_array", "job array (stage-in / compute / stage-out)"
        CUSTOM_DAG = "custom_dag", "custom DAG of stages"
        STAGES = "stages", "DAG of stages (the general model)"

    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=160)
    template = models.CharField(max_length=20, choices=Template.choices)
    description = models.TextField(blank=True)
    parameters = models.JSONField(default=dict, blank=True, help_text="parameter name → value in base units")
    parameter_dimensions = models.JSONField(
        default=dict, blank=True,
        help_text="parameter name → dimension ('bytes', 'time', ...) of a parameter its template does not declare")
    workspace = models.ForeignKey(
        "accounts.Workspace", null=True, blank=True, on_delete=models.CASCADE, related_name="workloads",
        help_text="the workspace this workload belongs to; none: the shared, read-only reference catalogue")
    copied_from = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="copies",
                                    help_text="the workload this copy was made from")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("workloads:detail", args=[self.slug])

    @property
    def is_reference(self) -> bool:
        """Part of the shared reference catalogue (not a workspace's own)."""
        return self.workspace_id is None

    @property
    def FACT_FIELDS(self) -> tuple[str, ...]:  # noqa: N802 - same name as the class attribute it replaces
        return tuple(self.parameters or {})

    def fact_value(self, name: str):
        return (self.parameters or {}).get(name)

    def parameter_rows(self) -> list[dict]:
        """Parameters in template order with label, dimension and provenance, for display."""
        rows = []
        for param in TEMPLATES.get(self.template, ()):
            if param.name in (self.parameters or {}):
                rows.append(self._row(param.name, param.label, param.dimension))
        known = {p.name for p in TEMPLATES.get(self.template, ())}
        for name in sorted(set(self.parameters or {}) - known):
            rows.append(self._row(name, name.replace("_", " "), (self.parameter_dimensions or {}).get(name, "scalar")))
        return rows

    def _row(self, name: str, label: str, dimension: str) -> dict:
        source = self.source_of(name)
        return {
            "name": name,
            "label": label,
            "value": self.parameters[name],
            "dimension": dimension,
            "source_short": short_source(source),
            "source_text": describe_source(source),
        }

    def clean(self):
        errors: dict[str, list[str]] = {}
        params = self.parameters if isinstance(self.parameters, dict) else None
        if params is None:
            raise ValidationError({"parameters": "must be an object mapping parameter names to numbers"})
        schema = {p.name: p for p in TEMPLATES.get(self.template, ())}
        for name, param in schema.items():
            if param.required and name not in params:
                errors.setdefault("parameters", []).append(f"{name}: required by the {self.template} template")
        for name, value in params.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                errors.setdefault("parameters", []).append(f"{name}: must be a number, got {value!r}")
            elif name in schema and (why := schema[name].check(value)):
                errors.setdefault("parameters", []).append(f"{name}: {why}, got {value!r}")
        if errors:
            raise ValidationError(errors)
        super().clean()


_PATTERNS = [(k, k) for k in ACCESS_PATTERNS]


class WorkloadStage(CatalogueModel):
    """One stage of a workload and what one of its tasks demands (at the reference size)."""

    FACT_FIELDS = (
        "n_tasks",
        "depends_on",
        "seq_read_bytes",
        "seq_write_bytes",
        "random_read_ops",
        "random_write_ops",
        "random_op_bytes",
        "cpu_seconds",
        "usable_threads",
        "peak_memory",
        "overhead",
        "tasks_per",
        "reference_speed",
        "dependency",
        "group_size",
        "size_distribution",
        "size_values",
        "size_sigma",
        "max_read_rate",
        "size_mean",
        "size_min",
        "size_max",
        "size_reference",
        "work_items",
        "link",
        "batch_policy",
        "cloud_policy",
        "cloud_instances",
        "cloud_items_per_task",
        "cloud_launch_interval",
        "cloud_pricing",
        *(f"{role}_{what}" for role in ROLES for what in ("read_bytes", "write_bytes", "pattern", "request_bytes")),
    )

    workload = models.ForeignKey(Workload, on_delete=models.CASCADE, related_name="stages")
    name = models.CharField(max_length=60)
    order = models.PositiveIntegerField(default=0)
    n_tasks = QuantityField("tasks in the stage", dimension="scalar", strictly_positive=True)
    depends_on = models.JSONField("depends on stages", default=list, blank=True)
    seq_read_bytes = QuantityField("sequential read per task", dimension="bytes")
    seq_write_bytes = QuantityField("sequential write per task", dimension="bytes")
    random_read_ops = QuantityField("random read operations per task", dimension="scalar")
    random_write_ops = QuantityField("random write operations per task", dimension="scalar")
    random_op_bytes = QuantityField("bytes per random operation", dimension="bytes")
    cpu_seconds = QuantityField("CPU per task (core-seconds)", dimension="time")
    usable_threads = QuantityField("usable threads", dimension="scalar", strictly_positive=True)
    peak_memory = QuantityField("peak memory", dimension="bytes")
    overhead = QuantityField("fixed overhead per task", dimension="time")
    # the general model (template "stages"; see docs/workloads-format.md)
    tasks_per = models.CharField("one task per item of parameter", max_length=60, blank=True)
    reference_speed = QuantityField("speed of the core cpu_seconds were measured on", dimension="scalar",
                                    strictly_positive=True)
    dependency = models.CharField("dependency on upstream stages", max_length=20, blank=True,
                                  choices=[(k, k.replace("_", " ")) for k in DEPENDENCY_KINDS])
    group_size = QuantityField("upstream tasks per task (grouped)", dimension="scalar", strictly_positive=True)
    size_distribution = models.CharField("task sizes", max_length=20, blank=True,
                                         choices=[(k, k) for k in SIZE_DISTRIBUTIONS])
    size_values = models.JSONField("size of each task (multiplier)", default=list, blank=True)
    size_sigma = QuantityField("log-sigma of lognormal sizes", dimension="scalar")
    max_read_rate = QuantityField("the task's own ceiling on its read rate", dimension="bandwidth",
                                  strictly_positive=True)
    size_mean = QuantityField("mean data size of a task (spread)", dimension="bytes", strictly_positive=True)
    size_min = QuantityField("smallest data size of a task (spread)", dimension="bytes", strictly_positive=True)
    size_max = QuantityField("largest data size of a task (spread)", dimension="bytes", strictly_positive=True)
    size_reference = QuantityField("data size the demands are given for (spread)", dimension="bytes",
                                   strictly_positive=True)
    work_items = models.CharField("each task's work is this parameter's number of items", max_length=60, blank=True)
    link = models.CharField("brings its data in over", max_length=20, blank=True, choices=[(k, k) for k in LINKS])
    # where the stage runs when a scenario does not place it (simulator/model/stage_defaults.py)
    batch_policy = models.CharField("cluster/HPC: pool policy by default", max_length=20, blank=True,
                                    choices=[(k, k) for k in ("static", "dynamic")])
    cloud_policy = models.CharField("cloud: pool policy by default", max_length=20, blank=True,
                                    choices=[(k, k) for k in ("dynamic", "elastic")])
    cloud_instances = QuantityField("cloud: instances at once by default", dimension="scalar", strictly_positive=True)
    cloud_items_per_task = QuantityField("cloud: work items per task by default", dimension="scalar",
                                         strictly_positive=True)
    cloud_launch_interval = QuantityField("cloud: time between instance launches", dimension="time")
    cloud_pricing = models.CharField("cloud: pricing by default", max_length=20, blank=True,
                                     choices=[(k, k.replace("_", " ")) for k in ("on_demand", "spot")])
    input_read_bytes = QuantityField("input read per task", dimension="bytes")
    input_write_bytes = QuantityField("input written per task", dimension="bytes")
    input_pattern = models.CharField("input access", max_length=20, blank=True, choices=_PATTERNS)
    input_request_bytes = QuantityField("input request size", dimension="bytes", strictly_positive=True)
    scratch_read_bytes = QuantityField("scratch read per task", dimension="bytes")
    scratch_write_bytes = QuantityField("scratch written per task", dimension="bytes")
    scratch_pattern = models.CharField("scratch access", max_length=20, blank=True, choices=_PATTERNS)
    scratch_request_bytes = QuantityField("scratch request size", dimension="bytes", strictly_positive=True)
    output_read_bytes = QuantityField("output read per task", dimension="bytes")
    output_write_bytes = QuantityField("output written per task", dimension="bytes")
    output_pattern = models.CharField("output access", max_length=20, blank=True, choices=_PATTERNS)
    output_request_bytes = QuantityField("output request size", dimension="bytes", strictly_positive=True)

    class Meta:
        ordering = ["workload", "order"]
        constraints = [models.UniqueConstraint(fields=["workload", "name"], name="unique_stage_per_workload")]

    def __str__(self) -> str:
        return f"{self.workload.name} · {self.label}"

    @property
    def label(self) -> str:
        """The stage's name as words ("convert to adios"), for pages."""
        return readable(self.name)

    def clean(self):
        if not isinstance(self.depends_on, list) or not all(isinstance(s, str) for s in self.depends_on):
            raise ValidationError({"depends_on": "must be a list of stage names"})
        expected = STAGE_NAMES.get(self.workload.template, ()) if self.workload_id else ()
        if expected and self.name not in expected:
            raise ValidationError({"name": f"the {self.workload.template} template has stages {', '.join(expected)}"})
        super().clean()


class ReferenceObservation(models.Model):
    """A published measurement (a time, a bill, a rank) kept to validate the model against."""

    key = models.CharField(max_length=120, unique=True)
    quantity = models.CharField(max_length=80, db_index=True)
    platform = models.ForeignKey(
        "platforms.Platform", null=True, blank=True, on_delete=models.CASCADE, related_name="observations"
    )
    workload = models.ForeignKey(Workload, null=True, blank=True, on_delete=models.CASCADE, related_name="observations")
    value = models.JSONField(null=True, blank=True, help_text="as published: number, text or list; null when not reported")
    unit = models.CharField(max_length=40, blank=True)
    base_value = models.FloatField(null=True, blank=True, help_text="numeric value in base units")
    scatter = models.JSONField(null=True, blank=True)
    scatter_kind = models.CharField(max_length=40, blank=True)
    source = models.JSONField()
    note = models.TextField(blank=True)
    fit = models.CharField(max_length=40, blank=True,
                           help_text="the fitted values this observation is an input of (e.g. invert_cpu); "
                                     "empty: only compared with the model")

    class Meta:
        ordering = ["quantity", "key"]

    def __str__(self) -> str:
        return self.key

    def clean(self):
        errors = source_errors(self.source)
        if errors:
            raise ValidationError({"source": errors})

    @property
    def source_short(self) -> str:
        return short_source(self.source)

    @property
    def source_text(self) -> str:
        return describe_source(self.source)
