"""The catalogue over HTTP: platforms and workloads with every value's provenance.  A user sees the reference
catalogue and the platform copies of their workspaces, and copies a platform into the active workspace."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.response import Response

from apps.api.base import (
    BAD_WORKSPACE,
    ERRORS,
    NO_WORKSPACE,
    NOT_FOUND,
    WORKSPACE_PARAMETER,
    ApiView,
    ListApiView,
    RetrieveApiView,
    editable_workspace,
)
from apps.api.serializers.catalogue import (
    PlatformDetailSerializer,
    PlatformSerializer,
    WorkloadDetailSerializer,
    WorkloadSerializer,
)
from apps.platforms import services
from apps.platforms.models import Platform
from apps.workloads.models import Workload

__all__ = ["PlatformList", "PlatformDetail", "PlatformCopy", "WorkloadList", "WorkloadDetail"]


@extend_schema_view(get=extend_schema(responses={200: PlatformSerializer(many=True), **ERRORS}))
class PlatformList(ListApiView):
    """The reference catalogue and the platform copies of your workspaces."""

    serializer_class = PlatformSerializer
    queryset = Platform.objects.none()

    def get_queryset(self):
        return services.visible_platforms(self.request.user).select_related("workspace", "copied_from")


@extend_schema_view(get=extend_schema(responses={200: PlatformDetailSerializer, **NOT_FOUND, **ERRORS}))
class PlatformDetail(RetrieveApiView):
    """A platform with its facts, node types and storage tiers; each value with its source.  Another workspace's
    copy is not found."""

    serializer_class = PlatformDetailSerializer
    queryset = Platform.objects.none()
    lookup_field = "slug"

    def get_queryset(self):
        return services.visible_platforms(self.request.user).select_related(
            "workspace", "copied_from").prefetch_related("node_types", "storage_tiers")


class PlatformCopy(ApiView):
    """Copy a platform — every fact, node type and storage tier with its source — into the workspace the
    X-Skyplan-Workspace header names, else your active workspace (you need the editor role there), where its
    editors may change it.  The copy gets a new slug (`<slug>-copy`, `<slug>-copy-2`, ...) and the name
    "<name> (copy)"."""

    @extend_schema(parameters=[WORKSPACE_PARAMETER], request=None, responses={
        201: PlatformDetailSerializer,
        **BAD_WORKSPACE,
        404: OpenApiResponse(NOT_FOUND[404].response,
                             description=f"no such platform, or {NO_WORKSPACE[404].description}"),
        **ERRORS})
    def post(self, request, slug):
        platform = services.get_platform(request.user, slug)
        duplicate = services.copy_platform(platform, editable_workspace(request), user=request.user)
        duplicate = Platform.objects.select_related("workspace", "copied_from").prefetch_related(
            "node_types", "storage_tiers").get(pk=duplicate.pk)
        return Response(PlatformDetailSerializer(duplicate, context={"request": request}).data,
                        status=status.HTTP_201_CREATED)


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
