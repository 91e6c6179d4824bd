"""Scenarios (one workload on several platforms) and simulation runs: what a client sends and gets back.

What a client sends is the scenario contract (:mod:`simulator.contract`, pydantic models whose JSON schema is the
OpenAPI schema); a refusal is a 400 keyed by the path of each field in error.  Whether the values make a runnable
scenario on the chosen platforms is the scenario services' decision, through the same contract.
"""

from __future__ import annotations

from pydantic import Field
from rest_framework import serializers

from apps.api import contract_schema  # noqa: F401 - registers the contract's OpenAPI schema
from apps.scenarios.models import Scenario, SimulationRun
from simulator.contract import ContractError, RunRequest, ScenarioRequest, parse

__all__ = ["ScenarioCreate", "RunCreate", "parse_request", "ScenarioSerializer", "ScenarioStatusSerializer",
           "ScenarioResultsSerializer", "RunSerializer", "RunStatusSerializer", "StrictSerializer"]


class StrictSerializer(serializers.Serializer):
    """Refuses keys it does not know (a misspelt option must not be silently dropped)."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(str(k) for k in set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {k: [f"unknown field (known: {', '.join(self.fields)})"] for k in unknown})
        return super().to_internal_value(data)


class ScenarioCreate(ScenarioRequest):
    """A scenario to create (the scenario contract, :class:`simulator.contract.ScenarioRequest`), and whether to
    start its runs."""

    run: bool = Field(False, description="start the runs straight away")


#: a simulation run to start: the scenario contract's :class:`~simulator.contract.RunRequest` as it is
RunCreate = RunRequest


def parse_request(model, data):
    """A request body validated by the scenario contract; a refusal is a 400 keyed by the path of each field in error
    (``platforms[1].options.placements[0].nodes``)."""
    try:
        return parse(model, data)
    except ContractError as exc:
        raise serializers.ValidationError(exc.as_dict()) from None


class PlatformEntryOutSerializer(serializers.Serializer):
    platform = serializers.CharField(source="platform.slug")
    name = serializers.CharField(source="platform.name")
    options = serializers.JSONField()
    platform_overrides = serializers.JSONField()
    run = serializers.UUIDField(source="run_id", allow_null=True)


class ScenarioSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="api:scenario-detail", lookup_url_kwarg="scenario_id")
    workload = serializers.CharField(source="workload.slug")
    status = serializers.CharField(help_text="draft, running, succeeded, failed or cancelled")
    platforms = PlatformEntryOutSerializer(source="entries", many=True)
    workspace = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True,
                                             help_text="the workspace it belongs to (null: shared)")

    class Meta:
        model = Scenario
        fields = ["id", "url", "name", "workspace", "workload", "workload_overrides", "replications", "seed", "tco_years",
                  "epochs_per_year", "currency", "status", "platforms", "parent", "change", "created_at"]


class PlatformStatusSerializer(serializers.Serializer):
    platform = serializers.CharField()
    name = serializers.CharField()
    status = serializers.CharField()
    progress = serializers.FloatField(help_text="0 to 1")
    error = serializers.CharField(help_text="why the platform's simulation failed, in plain words")
    run = serializers.UUIDField(allow_null=True)


class ScenarioStatusSerializer(serializers.Serializer):
    status = serializers.CharField(help_text="draft, running, succeeded, failed or cancelled")
    progress = serializers.FloatField(help_text="0 to 1, over every platform")
    finished = serializers.BooleanField()
    platforms = PlatformStatusSerializer(many=True)


class ScenarioResultsSerializer(serializers.Serializer):
    summary = serializers.ListField(child=serializers.DictField(), help_text="per platform: status and "
                                    "P10/P50/P90 makespan and cost over the replications")
    bounds = serializers.ListField(child=serializers.DictField(), help_text="per stage: the resource that "
                                   "bounded it on each platform")
    validation = serializers.DictField(allow_null=True, help_text="published vs simulated, for the paper's "
                                       "scenario; null otherwise")
    scoring = serializers.DictField(allow_null=True, help_text="criteria, ranks with explanations, aggregates, "
                                    "robustness and TCO")
    figures = serializers.DictField(child=serializers.DictField(), required=False,
                                    help_text="plotly figures (only with ?figures=true)")


class ActionResultSerializer(serializers.Serializer):
    cancelled = serializers.IntegerField(help_text="how many runs were cancelled")
    status = serializers.CharField()


# --- simulation runs -----------------------------------------------------------------------------------

class RunSerializer(serializers.ModelSerializer):
    workspace = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True,
                                             help_text="the workspace it belongs to (null: shared)")
    url = serializers.HyperlinkedIdentityField(view_name="api:run-detail", lookup_url_kwarg="run_id")
    platform = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    workload = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    progress = serializers.SerializerMethodField()
    results = serializers.JSONField(allow_null=True, help_text="P10/P50/P90 of makespan and cost once succeeded")

    class Meta:
        model = SimulationRun
        fields = ["id", "url", "label", "workspace", "platform", "workload", "options", "seed", "replications", "status",
                  "progress", "error", "results", "created_at", "started_at", "finished_at"]

    def get_progress(self, run) -> float:
        return round(run.progress(), 4)


class RunStatusSerializer(serializers.Serializer):
    status = serializers.CharField()
    progress = serializers.FloatField(help_text="0 to 1, averaged over the replications")
    error = serializers.CharField()
    finished = serializers.BooleanField()
