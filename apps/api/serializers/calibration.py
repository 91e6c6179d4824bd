"""Observations of a workspace's runs and calibrations over the API."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.calibration.models import CalibrationJob, Observation
from apps.core.fields import QuantitySerializerField
from apps.core.provenance import SOURCE_LABELS, describe_source

__all__ = ["ObservationSerializer", "ObservationWriteSerializer", "CalibrationSerializer", "CalibrationRequestSerializer"]


class ObservationSerializer(serializers.ModelSerializer):
    workspace = serializers.IntegerField(source="workspace_id", read_only=True)
    workload = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    platform = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    value_s = serializers.FloatField(source="value", read_only=True, help_text="the observed value in seconds")
    source_text = serializers.SerializerMethodField(help_text="the source in one sentence")

    class Meta:
        model = Observation
        fields = ["id", "workspace", "label", "workload", "platform", "quantity", "stage", "value_s", "source",
                  "source_text", "use_for_fitting", "note", "created_at"]

    def get_source_text(self, obj) -> str:
        return describe_source(obj.source)


@extend_schema_field({"type": "string", "description": "a time with its unit, e.g. '7 min'", "example": "7 min"})
class TimeField(QuantitySerializerField):
    """A time with its unit ("7 min"), seconds inside."""

    def __init__(self, **kwargs):
        super().__init__(dimension="time", strictly_positive=True, **kwargs)


class ObservationWriteSerializer(serializers.Serializer):
    """An observed run: what was measured, its value with a unit, and where the value comes from."""

    label = serializers.CharField(max_length=120, help_text="a short name of the run")
    workload = serializers.SlugField(max_length=50, help_text="the workload's slug (the reference catalogue's or "
                                                                "this workspace's own)")
    platform = serializers.SlugField(max_length=50, help_text="the platform's slug (the reference catalogue's or "
                                                                "this workspace's own, copies included)")
    quantity = serializers.ChoiceField(choices=Observation.Quantity.choices)
    stage = serializers.CharField(max_length=60, required=False, allow_blank=True, default="",
                                  help_text="the stage, for a stage_time")
    value = TimeField()
    source = serializers.JSONField(help_text=(
        "where the value comes from: {kind: " + "|".join(SOURCE_LABELS) + ", ...}; paper: title, where; url: url; "
        "measurement: host, date (YYYY-MM-DD); assumption: reason; fitted: method"))
    use_for_fitting = serializers.BooleanField(required=False, default=True)
    note = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")


class DemandSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="a stage's per-task demand '<stage>.<field>' (cpu_seconds, overhead_s, "
                                           "seq_read_bytes, seq_write_bytes, random_read_ops, random_write_ops) or "
                                           "a numeric workload parameter")
    lower = serializers.JSONField(help_text="a number in base units, or (a stage's demand) a value with a unit")
    upper = serializers.JSONField(help_text="a number in base units, or (a stage's demand) a value with a unit")


class CalibrationRequestSerializer(serializers.Serializer):
    """Which demands of a workload to fit to the workspace's observations of it, each bounded."""

    workload = serializers.SlugField(max_length=50)
    demands = serializers.ListField(child=serializers.JSONField(), help_text="[{name, lower, upper}]")
    apply = serializers.BooleanField(required=False, default=False, help_text=(
        "store the fitted values (provenance 'fitted') into the workload; only a workspace's own workload"))


class CalibrationSerializer(serializers.ModelSerializer):
    workspace = serializers.IntegerField(source="workspace_id", read_only=True)
    workload = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    finished = serializers.BooleanField(source="is_finished", read_only=True)

    class Meta:
        model = CalibrationJob
        fields = ["id", "workspace", "workload", "demands", "apply", "applied", "status", "progress", "finished",
                  "error", "result", "created_at", "started_at", "finished_at"]
