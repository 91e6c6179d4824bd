"""The catalogue over HTTP, read-only: platforms and workloads with every value's provenance."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_view

from apps.api.base import ERRORS, NOT_FOUND, ListApiView, RetrieveApiView
from apps.api.serializers.catalogue import (
    PlatformDetailSerializer,
    PlatformSerializer,
    WorkloadDetailSerializer,
    WorkloadSerializer,
)
from apps.platforms.models import Platform
from apps.workloads.models import Workload

__all__ = ["PlatformList", "PlatformDetail", "WorkloadList", "WorkloadDetail"]


@extend_schema_view(get=extend_schema(responses={200: PlatformSerializer(many=True), **ERRORS}))
class PlatformList(ListApiView):
    serializer_class = PlatformSerializer
    queryset = Platform.objects.all()


@extend_schema_view(get=extend_schema(responses={200: PlatformDetailSerializer, **NOT_FOUND, **ERRORS}))
class PlatformDetail(RetrieveApiView):
    """A platform with its facts, node types and storage tiers; each value with its source."""

    serializer_class = PlatformDetailSerializer
    queryset = Platform.objects.prefetch_related("node_types", "storage_tiers")
    lookup_field = "slug"


@extend_schema_view(get=extend_schema(responses={200: WorkloadSerializer(many=True), **ERRORS}))
class WorkloadList(ListApiView):
    serializer_class = WorkloadSerializer
    queryset = Workload.objects.all()


@extend_schema_view(get=extend_schema(responses={200: WorkloadDetailSerializer, **NOT_FOUND, **ERRORS}))
class WorkloadDetail(RetrieveApiView):
    """A workload with its parameters and its stages' demands; each value with its source."""

    serializer_class = WorkloadDetailSerializer
    queryset = Workload.objects.prefetch_related("stages")
    lookup_field = "slug"
