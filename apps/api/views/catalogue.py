"""The catalogue over HTTP: platforms and workloads with every value's provenance.  A user sees the reference
catalogue and the platforms and workloads of their workspaces, copies either into a workspace, and creates, changes
and deletes a workspace's workloads (editors)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from apps.api.base import (
    BAD_REQUEST,
    BAD_WORKSPACE,
    ERRORS,
    NO_WORKSPACE,
    NOT_FOUND,
    UNSUPPORTED,
    WORKSPACE_PARAMETER,
    ApiView,
    ListCreateApiView,
    RetrieveApiView,
    editable_workspace,
)
from apps.api.serializers.catalogue import (
    PlatformDetailSerializer,
    PlatformSerializer,
    PlatformWriteSerializer,
    WorkloadDetailSerializer,
    WorkloadSerializer,
    WorkloadWriteSerializer,
)
from apps.platforms import services
from apps.platforms.models import Platform
from apps.workloads import platform_entries
from apps.workloads import services as workload_services
from apps.workloads.models import Workload

__all__ = ["PlatformList", "PlatformDetail", "PlatformCopy", "WorkloadList", "WorkloadDetail", "WorkloadCopy"]

_detail_serializer = inline_serializer("WorkloadInUse", {"detail": serializers.CharField()})


def _platform_body(request, platform: Platform, code: int = 200) -> Response:
    fresh = Platform.objects.select_related("workspace", "copied_from").prefetch_related(
        "node_types", "storage_tiers").get(pk=platform.pk)
    return Response(PlatformDetailSerializer(fresh, context={"request": request}).data, status=code)


_PLATFORM_400 = {400: OpenApiResponse(BAD_REQUEST[400].response, description=(
    "invalid platform: each key is the path of a value in error (`name`, `facts.wan_bandwidth.unit`, "
    "`node_types[0].facts.cores`, `storage_tiers[1].kind`), its value the reasons; nothing was saved"))}

class PlatformList(ListCreateApiView):
    """The reference catalogue and the platforms of your workspaces; create one from scratch in a workspace."""

    serializer_class = PlatformSerializer
    queryset = Platform.objects.none()

    def get_queryset(self):
        return services.visible_platforms(self.request.user).select_related("workspace", "copied_from")

    @extend_schema(responses={200: PlatformSerializer(many=True), **ERRORS})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(parameters=[WORKSPACE_PARAMETER], request=PlatformWriteSerializer, responses={
        201: PlatformDetailSerializer, **_PLATFORM_400, **NO_WORKSPACE, **UNSUPPORTED, **ERRORS})
    def post(self, request, *args, **kwargs):
        """Create a platform from scratch in the workspace the X-Skyplan-Workspace header names, else your active
        workspace (editor role needed there): name, kind, facts, node types and storage tiers, every value with its
        unit ("10 Gb/s" as value 10, unit "Gb/s"; "3.06 USD/h") and source.  The slug comes from `slug` or the name."""
        workspace = editable_workspace(request)
        try:
            platform = platform_entries.create_platform(request.data, workspace, user=request.user)
        except platform_entries.InvalidPlatform as exc:
            raise ValidationError({exc.path or "non_field_errors": [exc.message]}) from None
        return _platform_body(request, platform, status.HTTP_201_CREATED)


class PlatformDetail(RetrieveApiView):
    """A platform with its facts, node types and storage tiers; each value with its source.  Another workspace's
    platform is not found; the reference catalogue is read-only (copy it to change it)."""

    serializer_class = PlatformDetailSerializer
    queryset = Platform.objects.none()
    lookup_field = "slug"

    def get_queryset(self):
        return services.visible_platforms(self.request.user).select_related(
            "workspace", "copied_from").prefetch_related("node_types", "storage_tiers")

    @extend_schema(responses={200: PlatformDetailSerializer, **NOT_FOUND, **ERRORS})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def _change(self, request, slug, partial: bool) -> Response:
        platform = services.editable_copy(request.user, slug)
        try:
            entry = platform_entries.merge_platform_entry(platform, request.data) if partial else request.data
            platform_entries.replace_platform(platform, entry, user=request.user)
        except platform_entries.InvalidPlatform as exc:
            raise ValidationError({exc.path or "non_field_errors": [exc.message]}) from None
        return _platform_body(request, platform)

    @extend_schema(request=PlatformWriteSerializer, responses={
        200: PlatformDetailSerializer, **_PLATFORM_400, **NOT_FOUND, **UNSUPPORTED, **ERRORS})
    def put(self, request, slug):
        """Replace a workspace's platform (editor role): the whole body, as for creating it; node types and storage
        tiers not in the body are removed (rename one by sending it under its new name).  All or nothing."""
        return self._change(request, slug, partial=False)

    @extend_schema(request=PlatformWriteSerializer(partial=True), responses={
        200: PlatformDetailSerializer, **_PLATFORM_400, **NOT_FOUND, **UNSUPPORTED, **ERRORS})
    def patch(self, request, slug):
        """Change part of a workspace's platform (editor role): `name`, `kind` and `description` replace, `facts`
        merge by name (`null` clears one), `node_types` and `storage_tiers` replace the lists (add, remove, rename,
        change a tier's kind).  All or nothing."""
        return self._change(request, slug, partial=True)

    @extend_schema(responses={204: None, 409: OpenApiResponse(_detail_serializer, description=(
        "scenarios, benchmark runs or calibrations use the platform: delete them first")), **NOT_FOUND, **ERRORS})
    def delete(self, request, slug):
        """Delete a workspace's platform (editor role); refused while scenarios, benchmark runs or calibrations
        use it."""
        platform = services.editable_copy(request.user, slug)
        try:
            services.delete_copy(platform, user=request.user)
        except services.PlatformInUse as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(status=status.HTTP_204_NO_CONTENT)


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


def _workloads():
    return Workload.objects.select_related("workspace", "copied_from").prefetch_related("stages")


def _invalid(exc: workload_services.InvalidWorkload) -> ValidationError:
    """A refused workload as a 400 whose key is the path of the value in error (``stages[1].facts.cpu_seconds``)."""
    return ValidationError({exc.path or "non_field_errors": [exc.message]})


def _workload_body(request, workload: Workload, code: int = 200) -> Response:
    fresh = _workloads().get(pk=workload.pk)
    return Response(WorkloadDetailSerializer(fresh, context={"request": request}).data, status=code)


_WORKLOAD_400 = {400: OpenApiResponse(BAD_REQUEST[400].response, description=(
    "invalid workload: each key is the path of a value in error (`name`, `parameters.n_jobs.unit`, "
    "`stages[1].facts.cpu_seconds.source`), its value the reasons; nothing was saved"))}


class WorkloadList(ListCreateApiView):
    """The reference catalogue and your workspaces' own workloads; create one in a workspace."""

    serializer_class = WorkloadSerializer
    queryset = Workload.objects.none()

    def get_queryset(self):
        return workload_services.visible_workloads(self.request.user).select_related("workspace", "copied_from")

    @extend_schema(responses={200: WorkloadSerializer(many=True), **ERRORS})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(parameters=[WORKSPACE_PARAMETER], request=WorkloadWriteSerializer, responses={
        201: WorkloadDetailSerializer, **_WORKLOAD_400, **NO_WORKSPACE, **UNSUPPORTED, **ERRORS})
    def post(self, request, *args, **kwargs):
        """Create a workload in the workspace the X-Skyplan-Workspace header names, else your active workspace
        (editor role needed there), from a body in the catalogue format: name, template, parameters and stages,
        every value with its unit and source.  The slug comes from `slug` or the name (`-2`, `-3`, … when taken)."""
        workspace = editable_workspace(request)
        try:
            workload = workload_services.create_workload(request.data, workspace, user=request.user)
        except workload_services.InvalidWorkload as exc:
            raise _invalid(exc) from None
        return _workload_body(request, workload, status.HTTP_201_CREATED)


class WorkloadDetail(RetrieveApiView):
    """A workload with its parameters and its stages' demands; each value with its source.  Another workspace's
    workload is not found; the reference catalogue is read-only (copy it to change it)."""

    serializer_class = WorkloadDetailSerializer
    queryset = Workload.objects.none()
    lookup_field = "slug"

    def get_queryset(self):
        return workload_services.visible_workloads(self.request.user).select_related(
            "workspace", "copied_from").prefetch_related("stages")

    @extend_schema(responses={200: WorkloadDetailSerializer, **NOT_FOUND, **ERRORS})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def _change(self, request, slug, partial: bool) -> Response:
        workload = workload_services.editable_workload(request.user, slug)
        try:
            entry = workload_services.merge_entry(workload, request.data) if partial else request.data
            workload_services.update_workload(workload, entry, user=request.user)
        except workload_services.InvalidWorkload as exc:
            raise _invalid(exc) from None
        return _workload_body(request, workload)

    @extend_schema(request=WorkloadWriteSerializer, responses={
        200: WorkloadDetailSerializer, **_WORKLOAD_400, **NOT_FOUND, **UNSUPPORTED, **ERRORS})
    def put(self, request, slug):
        """Replace a workspace's workload (editor role): the whole body, as for creating it; stages not in the body
        are removed.  All or nothing."""
        return self._change(request, slug, partial=False)

    @extend_schema(request=WorkloadWriteSerializer(partial=True), responses={
        200: WorkloadDetailSerializer, **_WORKLOAD_400, **NOT_FOUND, **UNSUPPORTED, **ERRORS})
    def patch(self, request, slug):
        """Change part of a workspace's workload (editor role): `name`, `description` and `template` replace,
        `parameters` merge by name (`null` removes one), `stages` replace the list.  All or nothing."""
        return self._change(request, slug, partial=True)

    @extend_schema(responses={204: None, 409: OpenApiResponse(_detail_serializer, description=(
        "scenarios use the workload: delete them first")), **NOT_FOUND, **ERRORS})
    def delete(self, request, slug):
        """Delete a workspace's workload (editor role); refused while scenarios use it."""
        workload = workload_services.editable_workload(request.user, slug)
        try:
            workload_services.delete_workload(workload, user=request.user)
        except workload_services.WorkloadInUse as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WorkloadCopy(ApiView):
    """Copy a workload — parameters and stages, every value with its source — into the workspace the
    X-Skyplan-Workspace header names, else your active workspace (editor role needed there), where its editors may
    change it.  The copy is `<slug>-copy` (`-copy-2`, …) named "<name> (copy)"."""

    @extend_schema(parameters=[WORKSPACE_PARAMETER], request=None, responses={
        201: WorkloadDetailSerializer,
        **BAD_WORKSPACE,
        404: OpenApiResponse(NOT_FOUND[404].response,
                             description=f"no such workload, or {NO_WORKSPACE[404].description}"),
        **ERRORS})
    def post(self, request, slug):
        workload = workload_services.get_workload(request.user, slug)
        duplicate = workload_services.copy_workload(workload, editable_workspace(request), user=request.user)
        return _workload_body(request, duplicate, status.HTTP_201_CREATED)
