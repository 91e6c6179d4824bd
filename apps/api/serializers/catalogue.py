"""Platforms and workloads, read-only, each fact with its value in base units and its provenance."""

from __future__ import annotations

import re

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.accounts.workspaces import workspaces_of
from apps.core.fields import QuantityField
from apps.core.provenance import SOURCE_KINDS, describe_source
from apps.core.templatetags.skyplan import display_value
from apps.platforms.models import NodeType, Platform, StorageTier
from apps.platforms.services import reference_platforms, visible_platforms
from apps.workloads.models import Workload, WorkloadStage
from simulator.units import DIMENSIONS, format_quantity

__all__ = ["WorkloadWriteSerializer", "PlatformWriteSerializer", "SlugLookupField", "PlatformSlugField", "FactSerializer", "PlatformSerializer", "PlatformDetailSerializer", "WorkloadSerializer",
           "WorkloadDetailSerializer", "facts_of"]


class SlugLookupField(serializers.SlugRelatedField):
    """A catalogue object named by its slug; text that cannot be a slug is "not found" without asking the database
    (PostgreSQL refuses some characters, such as NUL, in a query)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("slug_field", "slug")
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str) or not SLUG.fullmatch(data):
            self.fail("does_not_exist", slug_name=self.slug_field, value=str(data)[:100])
        return super().to_internal_value(data)


SLUG = re.compile(r"[-a-zA-Z0-9_]{1,50}")


class PlatformSlugField(SlugLookupField):
    """A platform named by its slug, among those the requesting user sees (the reference catalogue and their
    workspaces' copies): another workspace's copy "does not exist".  Without a request in the context, only the
    reference catalogue."""

    def __init__(self, **kwargs):
        kwargs.setdefault("queryset", Platform.objects.all())
        super().__init__(**kwargs)

    def get_queryset(self):
        request = self.context.get("request")
        return visible_platforms(request.user) if request is not None else reference_platforms()


class FactSerializer(serializers.Serializer):
    """One catalogue value: in base units, as people read it, and where it came from."""

    value = serializers.JSONField(help_text="the value in base units (number), or text, a list or a boolean")
    unit = serializers.CharField(help_text="base unit of the value ('' for plain numbers and text)")
    display = serializers.CharField(help_text="the value as the pages show it, with a readable unit")
    source = serializers.JSONField(allow_null=True, help_text="provenance: {kind: seed|measurement|assumption|"
                                                             "fitted, ...}; null when none is recorded")
    source_text = serializers.CharField(help_text="the provenance in one sentence")


def _unit(model, name: str) -> str:
    field = model._meta.get_field(name)
    return DIMENSIONS.get(field.dimension, "") if isinstance(field, QuantityField) else ""


def facts_of(obj) -> dict:
    """Every fact of a catalogue row that has a value, keyed by name."""
    out = {}
    for name in obj.FACT_FIELDS:
        value = getattr(obj, name)
        if value is None or value == "" or value == []:
            continue
        if hasattr(value, "isoformat"):
            value = value.isoformat()
        source = obj.source_of(name)
        out[name] = {"value": value, "unit": _unit(type(obj), name), "display": display_value(obj, name),
                     "source": source, "source_text": describe_source(source)}
    return out


_facts_field = extend_schema_field(serializers.DictField(child=FactSerializer()))


class _WithFacts(serializers.Serializer):
    facts = serializers.SerializerMethodField()

    @_facts_field
    def get_facts(self, obj) -> dict:
        return facts_of(obj)


class NodeTypeSerializer(_WithFacts, serializers.ModelSerializer):
    class Meta:
        model = NodeType
        fields = ["name", "facts"]


class StorageTierSerializer(_WithFacts, serializers.ModelSerializer):
    kind = serializers.CharField(help_text=", ".join(StorageTier.Kind.values))

    class Meta:
        model = StorageTier
        fields = ["name", "kind", "facts"]


class _CopiedFrom:
    """``copied_from``: the slug of the platform or workload this one was copied from, when the requesting user sees
    it (the reference catalogue, or one of their workspaces')."""

    def get_copied_from(self, obj) -> str | None:
        origin = obj.copied_from
        if origin is None:
            return None
        if origin.workspace_id is None:
            return origin.slug
        request = self.context.get("request")
        if request is None:
            return None
        mine = self.context.setdefault("_workspace_ids", set(
            workspaces_of(request.user).values_list("pk", flat=True)))
        return origin.slug if origin.workspace_id in mine else None


class PlatformSerializer(_CopiedFrom, serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="api:platform-detail", lookup_field="slug")
    kind = serializers.CharField(help_text=", ".join(Platform.Kind.values))
    workspace = serializers.SlugRelatedField(
        slug_field="slug", read_only=True, allow_null=True,
        help_text="the workspace whose editable copy this is; null: the shared, read-only reference catalogue")
    copied_from = serializers.SerializerMethodField(
        help_text="slug of the platform this copy was made from (null for the reference catalogue, or when that "
                  "platform is not one you see)")

    class Meta:
        model = Platform
        fields = ["slug", "name", "kind", "description", "location", "region", "workspace", "copied_from", "url"]


class PlatformDetailSerializer(_WithFacts, PlatformSerializer):
    node_types = NodeTypeSerializer(many=True, read_only=True)
    storage_tiers = StorageTierSerializer(many=True, read_only=True)

    class Meta(PlatformSerializer.Meta):
        fields = [*PlatformSerializer.Meta.fields, "facts", "node_types", "storage_tiers"]


class ParameterSerializer(FactSerializer):
    label = serializers.CharField()
    dimension = serializers.CharField()


class StageSerializer(_WithFacts, serializers.ModelSerializer):
    class Meta:
        model = WorkloadStage
        fields = ["name", "order", "facts"]


class WorkloadSerializer(_CopiedFrom, serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="api:workload-detail", lookup_field="slug")
    workspace = serializers.SlugRelatedField(
        slug_field="slug", read_only=True, allow_null=True,
        help_text="the workspace this workload belongs to; null: the shared, read-only reference catalogue")
    copied_from = serializers.SerializerMethodField(
        help_text="slug of the workload this one was copied from (null when none, or when it is not one you see)")

    class Meta:
        model = Workload
        fields = ["slug", "name", "template", "description", "workspace", "copied_from", "url"]


class WorkloadDetailSerializer(WorkloadSerializer):
    parameters = serializers.SerializerMethodField()
    stages = StageSerializer(many=True, read_only=True)

    class Meta(WorkloadSerializer.Meta):
        fields = [*WorkloadSerializer.Meta.fields, "parameters", "stages"]

    @extend_schema_field(serializers.DictField(child=ParameterSerializer()))
    def get_parameters(self, obj) -> dict:
        out = {}
        for row in obj.parameter_rows():
            source = obj.source_of(row["name"])
            unit = DIMENSIONS.get(row["dimension"], "")
            display = format_quantity(row["value"], row["dimension"])
            out[row["name"]] = {"value": row["value"], "unit": unit, "display": display, "source": source,
                                "source_text": row["source_text"], "label": row["label"],
                                "dimension": row["dimension"]}
        return out


# --- writing a workload (the catalogue format: docs/catalogue-format.md) ----------------------------------------

class SourceSerializer(serializers.Serializer):
    """Where a value came from: ``kind`` and what that kind needs (apps/core/provenance.py)."""

    kind = serializers.CharField(help_text=(
        "one of " + ", ".join(SOURCE_KINDS) + ". paper: title, where (table/figure/section); url: url; measurement: host, date (YYYY-MM-DD); "
        "assumption: reason; fitted: method (what it was fitted to); any kind: note"))
    title = serializers.CharField(required=False)
    where = serializers.CharField(required=False)
    url = serializers.URLField(required=False)
    host = serializers.CharField(required=False)
    date = serializers.DateField(required=False)
    reason = serializers.CharField(required=False)
    method = serializers.CharField(required=False)
    note = serializers.CharField(required=False)


class ValueWithSourceSerializer(serializers.Serializer):
    value = serializers.JSONField(help_text="a number (in `unit`), text, a list or null")
    unit = serializers.CharField(required=False, allow_blank=True,
                                 help_text="e.g. GB, MB/s, s, h, AUD/h; '' for counts and text")
    source = SourceSerializer()


class StageWriteSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=60)
    facts = serializers.DictField(child=ValueWithSourceSerializer(), help_text=(
        "per task: " + ", ".join(WorkloadStage.FACT_FIELDS) + " (depends_on: a list of earlier stage names)"))


class WorkloadWriteSerializer(serializers.Serializer):
    """A workload in the catalogue format; every value has a unit and a source.  Only documents the body: the
    catalogue loader's checks (apps.workloads.catalogue.load_workload) decide."""

    slug = serializers.SlugField(required=False, help_text="wanted slug (create only; a taken one gets -2, -3, …); "
                                                           "default: from the name")
    name = serializers.CharField(max_length=160)
    template = serializers.ChoiceField(choices=Workload.Template.choices)
    description = serializers.CharField(required=False, allow_blank=True)
    parameters = serializers.DictField(child=ValueWithSourceSerializer(), required=False)
    stages = StageWriteSerializer(many=True, required=False)


class NodeTypeWriteSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    facts = serializers.DictField(child=ValueWithSourceSerializer(), help_text=", ".join(NodeType.FACT_FIELDS))


class StorageTierWriteSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    kind = serializers.CharField(help_text=", ".join(StorageTier.Kind.values))
    facts = serializers.DictField(child=ValueWithSourceSerializer(), help_text=", ".join(StorageTier.FACT_FIELDS))


class PlatformWriteSerializer(serializers.Serializer):
    """A platform in the catalogue format; every value has a unit and a source.  Only documents the body: the
    catalogue loader's checks (apps.workloads.catalogue.load_platform) decide."""

    slug = serializers.SlugField(required=False, help_text="wanted slug (create only; a taken one gets -2, -3, …); "
                                                           "default: from the name")
    name = serializers.CharField(max_length=120)
    kind = serializers.CharField(help_text=", ".join(Platform.Kind.values))
    description = serializers.CharField(required=False, allow_blank=True)
    facts = serializers.DictField(child=ValueWithSourceSerializer(), required=False,
                                  help_text=", ".join(Platform.FACT_FIELDS))
    node_types = NodeTypeWriteSerializer(many=True, required=False)
    storage_tiers = StorageTierWriteSerializer(many=True, required=False)
