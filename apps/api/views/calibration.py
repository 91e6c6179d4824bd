"""A workspace's observed runs over HTTP (record, list, read, delete), and calibrations fitted to them (a job on a
worker: request, follow, cancel, read the fitted values and every observation's prediction)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from apps.accounts.workspaces import Role, get_or_404, visible
from apps.api.base import (
    BAD_REQUEST,
    ERRORS,
    NO_WORKSPACE,
    NOT_FOUND,
    WORKSPACE_PARAMETER,
    ApiView,
    ListCreateApiView,
    editable_workspace,
)
from apps.api.serializers.calibration import (
    CalibrationRequestSerializer,
    CalibrationSerializer,
    ObservationSerializer,
    ObservationWriteSerializer,
)
from apps.calibration import fitting, services
from apps.calibration.models import CalibrationJob, Observation

__all__ = ["ObservationList", "ObservationDetail", "CalibrationList", "CalibrationDetail", "CalibrationCancel"]


def _observations():
    return Observation.objects.select_related("workload", "platform")


@extend_schema_view(get=extend_schema(responses={200: ObservationSerializer(many=True), **ERRORS}))
class ObservationList(ListCreateApiView):
    """Observed runs of the workspaces you belong to, newest first; record one in the workspace you act in
    (editors)."""

    serializer_class = ObservationSerializer
    queryset = Observation.objects.none()

    def get_queryset(self):
        return visible(_observations(), self.request.user)

    @extend_schema(parameters=[WORKSPACE_PARAMETER], request=ObservationWriteSerializer,
                   responses={201: ObservationSerializer, **BAD_REQUEST, **NO_WORKSPACE, **ERRORS})
    def post(self, request):
        workspace = editable_workspace(request)
        body = ObservationWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        d = body.validated_data
        try:
            obs = services.record_observation(
                workspace, label=d["label"], workload=d["workload"], platform=d["platform"], quantity=d["quantity"],
                value_s=d["value"], source=d["source"], stage=d["stage"], use_for_fitting=d["use_for_fitting"],
                note=d["note"], user=request.user)
        except services.InvalidObservation as exc:
            raise ValidationError(exc.errors) from None
        return Response(ObservationSerializer(_observations().get(pk=obs.pk)).data, status=status.HTTP_201_CREATED)


class ObservationDetail(ApiView):
    @extend_schema(responses={200: ObservationSerializer, **NOT_FOUND, **ERRORS})
    def get(self, request, observation_id):
        """One observed run."""
        return Response(ObservationSerializer(get_or_404(_observations(), request.user, pk=observation_id)).data)

    @extend_schema(responses={204: None, **NOT_FOUND, **ERRORS})
    def delete(self, request, observation_id):
        """Delete an observed run (editors)."""
        get_or_404(_observations(), request.user, need=Role.EDITOR, pk=observation_id).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


def _calibrations():
    return CalibrationJob.objects.select_related("workload")


@extend_schema_view(get=extend_schema(responses={200: CalibrationSerializer(many=True), **ERRORS}))
class CalibrationList(ListCreateApiView):
    """Calibrations of the workspaces you belong to, newest first; request one in the workspace you act in (editors):
    the demands to fit, each bounded, fitted on a worker to the workspace's observations of the workload."""

    serializer_class = CalibrationSerializer
    queryset = CalibrationJob.objects.none()

    def get_queryset(self):
        return visible(_calibrations(), self.request.user)

    @extend_schema(parameters=[WORKSPACE_PARAMETER], request=CalibrationRequestSerializer,
                   responses={202: CalibrationSerializer, **BAD_REQUEST, **NO_WORKSPACE, **ERRORS})
    def post(self, request):
        workspace = editable_workspace(request)
        body = CalibrationRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        d = body.validated_data
        try:
            job = fitting.create_calibration(workspace, d["workload"], d["demands"], apply=d["apply"],
                                             user=request.user)
        except services.InvalidObservation as exc:
            raise ValidationError(exc.errors) from None
        fitting.dispatch_calibration(job)
        return Response(CalibrationSerializer(_calibrations().get(pk=job.pk)).data, status=status.HTTP_202_ACCEPTED)


class CalibrationDetail(ApiView):
    @extend_schema(responses={200: CalibrationSerializer, **NOT_FOUND, **ERRORS})
    def get(self, request, calibration_id):
        """A calibration: status, progress (0 to 1), the error, and once succeeded its result: the fitted values
        (with the method) and every observation's prediction and error, ``in_sample`` for those fitted to."""
        return Response(CalibrationSerializer(get_or_404(_calibrations(), request.user, pk=calibration_id)).data)


class CalibrationCancel(ApiView):
    @extend_schema(request=None, responses={200: CalibrationSerializer, **NOT_FOUND, **ERRORS},
                   description="Stop a queued or running calibration; a finished one is left as it is.")
    def post(self, request, calibration_id):
        fitting.cancel_calibration(get_or_404(_calibrations(), request.user, need=Role.EDITOR, pk=calibration_id))
        return Response(CalibrationSerializer(_calibrations().get(pk=calibration_id)).data)
