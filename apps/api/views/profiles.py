"""Profiles over HTTP: upload a file (an import job on a worker), follow the job, read a profile's analysis."""

from __future__ import annotations

from django.template.defaultfilters import filesizeformat
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import renderers, status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from apps.accounts.workspaces import Role, get_or_404, visible
from apps.api.base import (
    BAD_REQUEST,
    ERRORS,
    NO_WORKSPACE,
    NOT_FOUND,
    UNSUPPORTED,
    WORKSPACE_PARAMETER,
    AnyMediaRenderer,
    ApiView,
    ListApiView,
    ListCreateApiView,
    editable_workspace,
    service_error,
)
from apps.api.serializers.profiles import ImportSerializer, ProfileDetailSerializer, ProfileSerializer, UploadSerializer
from apps.core.storage import NotInStorage, download_response
from apps.profiles import services
from apps.profiles.models import Profile, ProfileImport
from apps.profiles.uploads import StoredUpload, max_upload_bytes, store_uploads

__all__ = ["ImportList", "ImportDetail", "ImportCancel", "ProfileList", "ProfileDetail", "ProfileFile"]


@extend_schema_view(get=extend_schema(responses={200: ImportSerializer(many=True), **ERRORS}))
class ImportList(ListCreateApiView):
    """Import jobs, newest first; upload a profile file (multipart) to start one."""

    serializer_class = ImportSerializer
    queryset = ProfileImport.objects.none()
    parser_classes = [MultiPartParser, FormParser]

    def dispatch(self, request, *args, **kwargs):
        # stream the upload into the store, refusing a file past the size limit (as the upload page does); an upload
        # the request then refuses is removed
        if request.method != "POST":
            return super().dispatch(request, *args, **kwargs)
        with store_uploads(request):
            return super().dispatch(request, *args, **kwargs)

    def get_queryset(self):
        return visible(ProfileImport.objects.select_related("platform"), self.request.user)

    @extend_schema(parameters=[WORKSPACE_PARAMETER], request={"multipart/form-data": UploadSerializer},
                   responses={202: ImportSerializer, **BAD_REQUEST, **NO_WORKSPACE, **UNSUPPORTED, **ERRORS})
    def post(self, request):
        workspace = editable_workspace(request)
        upload = UploadSerializer(data=request.data, context={"request": request})
        too_large = getattr(request._request, "too_large", [])
        if too_large:
            raise ValidationError({"file": [f"{name}: larger than the {filesizeformat(max_upload_bytes())} limit"
                                            for name in too_large]})
        upload.is_valid(raise_exception=True)
        d = upload.validated_data
        f = d["file"]
        if not isinstance(f, StoredUpload):
            raise ValidationError({"file": ["send the file as multipart/form-data"]})
        rel, size = services.store_upload(f, f.name)
        try:
            job = services.create_import(upload_path=rel, filename=f.name[:255], size_bytes=size, fmt=d["format"],
                                         user=request.user, platform=d.get("platform"), stage=d.get("stage"),
                                         workspace=workspace)
        except services.InvalidRequest as exc:
            services.discard_upload(rel)
            raise service_error(exc, {"format": "format"}) from None
        services.dispatch_import(job)
        return Response(self.get_serializer(job).data, status=status.HTTP_202_ACCEPTED)


def _job(request, job_id, need=Role.VIEWER) -> ProfileImport:
    return get_or_404(ProfileImport.objects.select_related("platform"), request.user, need=need, pk=job_id)


class ImportDetail(ApiView):
    """An import job: status, progress (0 to 1), the error naming file and line, and the profile once done."""

    @extend_schema(responses={200: ImportSerializer, **NOT_FOUND, **ERRORS})
    def get(self, request, job_id):
        return Response(ImportSerializer(_job(request, job_id), context={"request": request}).data)


class ImportCancel(ApiView):
    @extend_schema(request=None, responses={200: ImportSerializer, **NOT_FOUND, **ERRORS},
                   description="Ask a queued or running import to stop; a finished one is left as it is.")
    def post(self, request, job_id):
        services.cancel_import(_job(request, job_id, need=Role.EDITOR))
        return Response(ImportSerializer(_job(request, job_id), context={"request": request}).data)


@extend_schema_view(get=extend_schema(responses={200: ProfileSerializer(many=True), **ERRORS}))
class ProfileList(ListApiView):
    serializer_class = ProfileSerializer
    queryset = Profile.objects.none()

    def get_queryset(self):
        return visible(Profile.objects.select_related("platform"), self.request.user)


class ProfileDetail(ApiView):
    """A profile with its analysis summary (Table-4 style) and phases."""

    @extend_schema(responses={200: ProfileDetailSerializer, **NOT_FOUND, **ERRORS})
    def get(self, request, profile_id):
        profile = get_or_404(Profile.objects.select_related("platform"), request.user, pk=profile_id)
        return Response(ProfileDetailSerializer(profile, context={"request": request}).data)


class ProfileFile(ApiView):
    """The profile's file as uploaded (or kept by a benchmark), streamed from the store as an attachment."""

    renderer_classes = [renderers.JSONRenderer, AnyMediaRenderer]

    @extend_schema(responses={
        (200, "application/octet-stream"): OpenApiResponse(OpenApiTypes.BINARY, description="the profile's file"),
        **NOT_FOUND, **ERRORS,
    })
    def get(self, request, profile_id):
        profile = get_or_404(Profile.objects.all(), request.user, pk=profile_id)
        if not profile.file:
            return Response({"detail": "this profile keeps no file"}, status=status.HTTP_404_NOT_FOUND)
        try:
            return download_response(profile.file, profile.name)
        except NotInStorage:
            return Response({"detail": services.PROFILE_FILE_NOT_IN_STORAGE}, status=status.HTTP_404_NOT_FOUND)
