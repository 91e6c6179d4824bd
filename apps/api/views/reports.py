"""Reports over HTTP: request a scenario's report in a format (generated on a worker), follow it, download it."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import renderers, status
from rest_framework.response import Response

from apps.accounts.workspaces import Role, get_or_404, visible
from apps.api.base import (
    BAD_REQUEST,
    ERRORS,
    NOT_FOUND,
    NOT_READY,
    UNSUPPORTED,
    AnyMediaRenderer,
    ApiView,
    ListCreateApiView,
    not_ready,
    service_error,
)
from apps.api.serializers.reports import ReportRequestSerializer, ReportSerializer
from apps.core.storage import NotInStorage, download_response
from apps.reports import services
from apps.reports.models import Report
from apps.scenarios.models import Scenario

__all__ = ["ReportList", "ReportDetail", "ReportCancel", "ReportDownload"]


@extend_schema_view(get=extend_schema(responses={200: ReportSerializer(many=True), **ERRORS}))
class ReportList(ListCreateApiView):
    """Reports, newest first; request one (PDF, self-contained HTML, CSV as a ZIP of tables, XLSX or JSON)."""

    serializer_class = ReportSerializer
    queryset = Report.objects.none()

    def get_queryset(self):
        return visible(Report.objects.all(), self.request.user, field="scenario__workspace")

    @extend_schema(request=ReportRequestSerializer, responses={202: ReportSerializer, **BAD_REQUEST, **UNSUPPORTED, **ERRORS})
    def post(self, request):
        data = ReportRequestSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        scenario = get_or_404(Scenario.objects.all(), request.user, need=Role.EDITOR,
                              pk=data.validated_data["scenario"].pk)
        try:
            report = services.request_report(scenario, data.validated_data["format"], user=request.user)
        except services.InvalidReport as exc:
            raise service_error(exc, {"format": "format", "scenario": "scenario"}) from None
        return Response(self.get_serializer(report).data, status=status.HTTP_202_ACCEPTED)


def _report(request, report_id, need=Role.VIEWER) -> Report:
    return get_or_404(Report.objects.select_related("scenario"), request.user, need=need, field="scenario__workspace",
                      pk=report_id)


class ReportDetail(ApiView):
    """A report's status: progress (0 to 1), what the worker is doing, the error, and the download link."""

    @extend_schema(responses={200: ReportSerializer, **NOT_FOUND, **ERRORS})
    def get(self, request, report_id):
        return Response(ReportSerializer(_report(request, report_id), context={"request": request}).data)


class ReportCancel(ApiView):
    @extend_schema(request=None, responses={200: ReportSerializer, **NOT_FOUND, **ERRORS},
                   description="Cancel a queued or running report; a finished one is left as it is.")
    def post(self, request, report_id):
        services.cancel_report(_report(request, report_id, need=Role.EDITOR))
        return Response(ReportSerializer(_report(request, report_id), context={"request": request}).data)


class ReportDownload(ApiView):
    """The report's file, as an attachment (its Content-Type says the format)."""

    renderer_classes = [renderers.JSONRenderer, AnyMediaRenderer]

    @extend_schema(responses={
        (200, "application/octet-stream"): OpenApiResponse(OpenApiTypes.BINARY, description="the report's file"),
        **NOT_READY, **NOT_FOUND, **ERRORS,
    })
    def get(self, request, report_id):
        report = _report(request, report_id)
        if report.status != Report.Status.SUCCEEDED or not report.file:
            return not_ready(report.status)
        try:
            return download_response(report.file.name, report.download_name(), report.content_type)
        except NotInStorage:
            return Response({"detail": services.REPORT_NOT_IN_STORAGE}, status=status.HTTP_404_NOT_FOUND)
