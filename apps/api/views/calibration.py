"""A workspace's observed runs over HTTP (record, list, read, delete)."""

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
from apps.api.serializers.calibration import ObservationSerializer, ObservationWriteSerializer
from apps.calibration import services
from apps.calibration.models import Observation

__all__ = ["ObservationList", "ObservationDetail"]


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
