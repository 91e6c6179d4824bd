"""Benchmarks: a predefined kind with its few bounded parameters (never a command), dispatched to a platform's queue."""

from __future__ import annotations

from rest_framework import serializers

from apps.api.serializers.catalogue import PlatformSlugField
from apps.api.serializers.scenarios import StrictSerializer
from apps.benchmarks.models import BenchmarkRun, MeasuredValue
from apps.benchmarks.services import DEFAULTS

__all__ = ["BenchmarkCreateSerializer", "BenchmarkSerializer", "BenchmarkStatusSerializer",
           "BenchmarkResultsSerializer"]


def _parameter_field(name: str, default, low, high, typ) -> serializers.Field:
    if typ is bool:
        return serializers.BooleanField(required=False)
    if typ is int:
        return serializers.IntegerField(min_value=low, max_value=high, required=False)
    return serializers.CharField(max_length=500, required=False, allow_blank=True,
                                 help_text="absolute path on the worker host (empty: its temporary directory)")


def _union() -> dict:
    fields: dict = {}
    for spec in DEFAULTS.values():
        for name, (default, low, high, typ) in spec.items():
            if name in fields:  # the same name in two kinds: the wider range; the service checks per kind
                _, l0, h0, _t = fields[name]
                low, high = (min(low, l0), max(high, h0)) if low is not None else (low, high)
            fields[name] = (default, low, high, typ)
    return fields


class BenchmarkParametersSerializer(StrictSerializer):
    """Parameters of the kind (unknown ones are refused); see the ranges per kind in docs/api.md."""

    def get_fields(self):
        return {name: _parameter_field(name, *spec) for name, spec in _union().items()}


class BenchmarkCreateSerializer(StrictSerializer):
    platform = PlatformSlugField(help_text="measured by a worker consuming the queue bench.<platform>")
    kind = serializers.ChoiceField(choices=BenchmarkRun.Kind.choices)
    parameters = BenchmarkParametersSerializer(required=False)


class MeasuredValueSerializer(serializers.ModelSerializer):
    class Meta:
        model = MeasuredValue
        fields = ["name", "label", "value", "dimension", "source", "applied_to"]


class BenchmarkSerializer(serializers.ModelSerializer):
    workspace = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True,
                                             help_text="the workspace it belongs to (null: shared)")
    url = serializers.HyperlinkedIdentityField(view_name="api:benchmark-detail", lookup_url_kwarg="run_id")
    platform = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    progress = serializers.SerializerMethodField()

    class Meta:
        model = BenchmarkRun
        fields = ["id", "url", "workspace", "platform", "kind", "parameters", "queue", "status", "progress", "error", "host",
                  "created_at", "started_at", "finished_at"]

    def get_progress(self, run) -> float:
        return round(1.0 if run.status == "succeeded" else run.progress, 4)


class BenchmarkStatusSerializer(serializers.Serializer):
    status = serializers.CharField()
    progress = serializers.FloatField(help_text="0 to 1")
    error = serializers.CharField()
    finished = serializers.BooleanField()


class BenchmarkResultsSerializer(serializers.Serializer):
    status = serializers.CharField()
    host = serializers.JSONField(allow_null=True, help_text="what the worker host said about itself")
    measured_values = MeasuredValueSerializer(many=True, help_text="figures ready to apply, each with provenance "
                                              "'measured on host H, date D'")
    result = serializers.JSONField(allow_null=True, help_text="the probe's raw result")
