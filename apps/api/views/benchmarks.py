"""Benchmarks over HTTP: dispatch a predefined kind to a platform's queue, follow it, read what it measured."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.response import Response

from apps.accounts.workspaces import Role, get_or_404, visible
from apps.api.base import (
    BAD_REQUEST,
    ERRORS,
    NO_WORKSPACE,
    NOT_FOUND,
    NOT_READY,
    UNSUPPORTED,
    WORKSPACE_PARAMETER,
    ApiView,
    ListCreateApiView,
    editable_workspace,
    not_ready,
    service_error,
)
from apps.api.serializers.benchmarks import (
    BenchmarkCreateSerializer,
    BenchmarkResultsSerializer,
    BenchmarkSerializer,
    BenchmarkStatusSerializer,
)
from apps.benchmarks import services
from apps.benchmarks.models import BenchmarkRun

__all__ = ["BenchmarkList", "BenchmarkDetail", "BenchmarkStatus", "BenchmarkCancel", "BenchmarkResults"]


@extend_schema_view(get=extend_schema(responses={200: BenchmarkSerializer(many=True), **ERRORS}))
class BenchmarkList(ListCreateApiView):
    """Benchmark runs, newest first; request one (it waits on bench.<platform> for a worker on that host)."""

    serializer_class = BenchmarkSerializer
    queryset = BenchmarkRun.objects.none()

    def get_queryset(self):
        return visible(BenchmarkRun.objects.select_related("platform"), self.request.user)

    @extend_schema(parameters=[WORKSPACE_PARAMETER], request=BenchmarkCreateSerializer,
                   responses={202: BenchmarkSerializer, **BAD_REQUEST, **NO_WORKSPACE, **UNSUPPORTED, **ERRORS})
    def post(self, request):
        workspace = editable_workspace(request)
        data = BenchmarkCreateSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        d = data.validated_data
        try:
            run = services.create_benchmark(platform=d["platform"], kind=d["kind"],
                                            parameters=dict(d.get("parameters") or {}), user=request.user,
                                            workspace=workspace)
        except services.InvalidBenchmark as exc:
            raise service_error(exc, {"kind": "kind", "parameters": "parameters"}) from None
        services.dispatch(run)
        return Response(self.get_serializer(run).data, status=status.HTTP_202_ACCEPTED)


def _run(request, run_id, need=Role.VIEWER) -> BenchmarkRun:
    return get_or_404(BenchmarkRun.objects.select_related("platform"), request.user, need=need, pk=run_id)


def _status(run: BenchmarkRun) -> dict:
    return BenchmarkStatusSerializer({"status": run.status, "error": run.error, "finished": run.is_finished,
                                      "progress": round(1.0 if run.status == "succeeded" else run.progress, 4)}).data


class BenchmarkDetail(ApiView):
    @extend_schema(responses={200: BenchmarkSerializer, **NOT_FOUND, **ERRORS})
    def get(self, request, run_id):
        return Response(BenchmarkSerializer(_run(request, run_id), context={"request": request}).data)


class BenchmarkStatus(ApiView):
    @extend_schema(responses={200: BenchmarkStatusSerializer, **NOT_FOUND, **ERRORS})
    def get(self, request, run_id):
        return Response(_status(_run(request, run_id)))


class BenchmarkCancel(ApiView):
    @extend_schema(request=None, responses={200: BenchmarkStatusSerializer, **NOT_FOUND, **ERRORS},
                   description="Cancel a queued or running benchmark; a finished one is left as it is.")
    def post(self, request, run_id):
        services.cancel(_run(request, run_id, need=Role.EDITOR))
        return Response(_status(_run(request, run_id)))


class BenchmarkResults(ApiView):
    """What a finished benchmark measured: values with provenance, the host, and the probe's raw result."""

    @extend_schema(responses={200: BenchmarkResultsSerializer, **NOT_READY, **NOT_FOUND, **ERRORS})
    def get(self, request, run_id):
        run = _run(request, run_id)
        if not run.is_finished:
            return not_ready(run.status)
        return Response(BenchmarkResultsSerializer({"status": run.status, "host": run.host, "result": run.result,
                                                    "measured_values": run.measured_values.all()}).data)
