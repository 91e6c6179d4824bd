"""Scenarios (one workload on several platforms) and simulation runs: what a client sends and gets back.

Inputs are typed field by field (run options, placements, overrides) so that the schema says what is
accepted and a wrong type is a 400 naming the field; whether the values make a runnable scenario is
the scenario services' decision (their refusals are mapped to 400s by the views).
"""

from __future__ import annotations

from rest_framework import serializers

from apps.api.serializers.catalogue import PlatformSlugField, SlugLookupField
from apps.scenarios.adapters import PLATFORM_OVERRIDE_FACTS, TIER_OVERRIDE_FACTS
from apps.scenarios.models import Scenario, SimulationRun
from apps.workloads.models import Workload
from simulator.model.specs import POLICIES, PRICING_MODELS

__all__ = ["RunOptionsSerializer", "ScenarioCreateSerializer", "ScenarioSerializer", "ScenarioStatusSerializer",
           "ScenarioResultsSerializer", "RunCreateSerializer", "RunSerializer", "RunStatusSerializer"]

MAX_SEED = 2**62


class StrictSerializer(serializers.Serializer):
    """Refuses keys it does not know (a misspelt option must not be silently dropped)."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(str(k) for k in set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {k: [f"unknown field (known: {', '.join(self.fields)})"] for k in unknown})
        return super().to_internal_value(data)


class PlacementSerializer(StrictSerializer):
    """Where and how one stage runs; fields left out keep the simulator's default for the platform."""

    stage = serializers.CharField(max_length=60, help_text="a stage of the workload, e.g. invert")
    node_type = serializers.CharField(max_length=100, required=False, allow_null=True)
    nodes = serializers.IntegerField(min_value=1, max_value=100000, required=False)
    storage_in = serializers.CharField(max_length=100, required=False, allow_null=True,
                                       help_text="storage tier the stage reads from")
    storage_out = serializers.CharField(max_length=100, required=False, allow_null=True,
                                        help_text="storage tier the stage writes to")
    pricing = serializers.ChoiceField(choices=PRICING_MODELS, required=False)
    policy = serializers.ChoiceField(choices=POLICIES, required=False, help_text="allocation policy")
    launch_interval_s = serializers.FloatField(min_value=0, max_value=1e6, required=False)
    queue_wait_s = serializers.FloatField(min_value=0, max_value=1e9, required=False, allow_null=True,
                                          help_text="a fixed queue wait instead of the platform's model")
    subbands_per_task = serializers.IntegerField(min_value=1, max_value=100000, required=False)


class RunOptionsSerializer(StrictSerializer):
    """Options of a simulation on one platform (all optional: the defaults are the paper's placements)."""

    placements = PlacementSerializer(many=True, required=False)
    retention_after_run_s = serializers.FloatField(min_value=0, max_value=1e9, required=False,
                                                   help_text="keep the data stored this long after the run")
    spot_interruptions = serializers.BooleanField(required=False, help_text="spot instances can be reclaimed")
    include_copy = serializers.BooleanField(required=False, help_text="include the copy-in stage")
    single_allocation = serializers.BooleanField(required=False, help_text="one allocation for every stage")


_positive = {"min_value": 1e-12, "max_value": 1e18}


class TierOverridesField(serializers.DictField):
    child = serializers.DictField(child=serializers.FloatField(**_positive))

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        for tier, facts in value.items():
            unknown = set(facts) - set(TIER_OVERRIDE_FACTS)
            if unknown:
                raise serializers.ValidationError(
                    f"{tier}: {', '.join(sorted(unknown))} cannot be overridden (one of {', '.join(TIER_OVERRIDE_FACTS)})")
        return value


class PlatformOverridesSerializer(StrictSerializer):
    """What-if changes to the catalogue for this scenario only (positive numbers in base units)."""

    facts = serializers.DictField(child=serializers.FloatField(**_positive), required=False,
                                  help_text=f"one of {', '.join(PLATFORM_OVERRIDE_FACTS)} -> value")
    storage_tiers = TierOverridesField(required=False, help_text="tier name -> {fact -> value}; facts: "
                                                                 + ", ".join(TIER_OVERRIDE_FACTS))

    def validate_facts(self, value):
        unknown = set(value) - set(PLATFORM_OVERRIDE_FACTS)
        if unknown:
            raise serializers.ValidationError(
                f"{', '.join(sorted(unknown))} cannot be overridden (one of {', '.join(PLATFORM_OVERRIDE_FACTS)})")
        return value


class ScenarioEntrySerializer(StrictSerializer):
    platform = PlatformSlugField()
    options = RunOptionsSerializer(required=False)
    platform_overrides = PlatformOverridesSerializer(required=False)


class ScenarioCreateSerializer(StrictSerializer):
    name = serializers.CharField(max_length=200)
    workload = SlugLookupField(queryset=Workload.objects.all())
    platforms = ScenarioEntrySerializer(many=True, help_text="two or more platforms, each once")
    workload_overrides = serializers.DictField(child=serializers.FloatField(**_positive), required=False,
                                               help_text="workload parameter name -> value in base units")
    replications = serializers.IntegerField(min_value=1, max_value=200, default=5,
                                            help_text="Monte Carlo replications per platform")
    seed = serializers.IntegerField(min_value=0, max_value=MAX_SEED, default=0)
    tco_years = serializers.FloatField(min_value=0.1, max_value=50, default=5.0, help_text="TCO horizon (years)")
    epochs_per_year = serializers.FloatField(min_value=0.01, max_value=10000, default=1.0)
    run = serializers.BooleanField(default=False, help_text="start the runs straight away")


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
                  "epochs_per_year", "status", "platforms", "parent", "change", "created_at"]


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

class RunCreateSerializer(StrictSerializer):
    workload = SlugLookupField(queryset=Workload.objects.all())
    platform = PlatformSlugField()
    options = RunOptionsSerializer(required=False)
    replications = serializers.IntegerField(min_value=1, max_value=200, default=1)
    seed = serializers.IntegerField(min_value=0, max_value=MAX_SEED, default=0)
    label = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")


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
