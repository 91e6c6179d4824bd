"""Scenarios and simulation runs over HTTP: create, list, detail, run, cancel, status, results."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.exceptions import ValidationError
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
)
from apps.api.serializers.scenarios import (
    ActionResultSerializer,
    RunCreate,
    RunSerializer,
    RunStatusSerializer,
    ScenarioCreate,
    ScenarioResultsSerializer,
    ScenarioSerializer,
    ScenarioStatusSerializer,
    parse_request,
)
from apps.platforms.models import Platform
from apps.platforms.services import visible_platforms
from apps.scenarios import services
from apps.scenarios.models import Scenario, SimulationRun
from apps.scoring import services as scoring_services
from apps.workloads.models import Workload
from apps.workloads.services import visible_workloads


def _scenarios():
    return Scenario.objects.select_related("workload").prefetch_related("entries__platform")


def _scenario(request, scenario_id, need=Role.VIEWER) -> Scenario:
    """A scenario of one of the user's workspaces (404 otherwise), with at least role ``need`` there (403)."""
    return get_or_404(_scenarios(), request.user, need=need, pk=scenario_id)


def _workload(request, slug: str) -> Workload:
    """The workload named, among those the user sees (another workspace's workload "does not exist")."""
    workload = visible_workloads(request.user).filter(slug=slug).first()
    if workload is None:
        raise ValidationError({"workload": [f"workload {slug!r} does not exist"]})
    return workload


def _platforms(request, named: list[tuple[str, str]]) -> list[Platform]:
    """The platforms named (path, slug) among those the user sees; one that is not is a 400 at its path."""
    found = {p.slug: p for p in visible_platforms(request.user).filter(slug__in=[slug for _, slug in named])}
    missing = {path: [f"platform {slug!r} does not exist"] for path, slug in named if slug not in found}
    if missing:
        raise ValidationError(missing)
    return [found[slug] for _, slug in named]


@extend_schema_view(get=extend_schema(responses={200: ScenarioSerializer(many=True), **ERRORS}))
class ScenarioList(ListCreateApiView):
    """Scenarios, newest first; create one (and optionally start its runs)."""

    serializer_class = ScenarioSerializer
    queryset = Scenario.objects.none()

    def get_queryset(self):
        return visible(_scenarios().prefetch_related("entries__run"), self.request.user)

    @extend_schema(parameters=[WORKSPACE_PARAMETER], request=ScenarioCreate,
                   responses={201: ScenarioSerializer, **BAD_REQUEST, **NO_WORKSPACE, **UNSUPPORTED, **ERRORS})
    def post(self, request):
        workspace = editable_workspace(request)
        d = parse_request(ScenarioCreate, request.data)
        workload = _workload(request, d.workload)
        platforms = _platforms(request, [(f"platforms[{i}].platform", e.platform) for i, e in enumerate(d.platforms)])
        try:
            scenario = services.create_scenario(
                name=d.name, workload=workload,
                entries=[(platforms[i], e.options.to_data(), e.platform_overrides.to_data())
                         for i, e in enumerate(d.platforms)],
                workload_overrides=dict(d.workload_overrides), replications=d.replications, seed=d.seed,
                tco_years=d.tco_years, epochs_per_year=d.epochs_per_year, user=request.user, workspace=workspace,
                currency=d.currency,
            )
            if d.run:
                services.run_scenario(scenario, user=request.user)
        except services.InvalidScenario as exc:
            raise ValidationError(exc.as_dict()) from None
        return Response(self.get_serializer(_scenario(request, scenario.pk)).data, status=status.HTTP_201_CREATED)


class ScenarioDetail(ApiView):
    @extend_schema(responses={200: ScenarioSerializer, **NOT_FOUND, **ERRORS})
    def get(self, request, scenario_id):
        return Response(ScenarioSerializer(_scenario(request, scenario_id), context={"request": request}).data)


class ScenarioRun(ApiView):
    """Start (or re-run) every platform's simulation on the workers."""

    @extend_schema(request=None, responses={202: ScenarioStatusSerializer, **BAD_REQUEST, **NOT_FOUND, **ERRORS})
    def post(self, request, scenario_id):
        scenario = _scenario(request, scenario_id, need=Role.EDITOR)
        try:
            services.run_scenario(scenario, user=request.user)
        except services.InvalidScenario as exc:
            raise ValidationError(exc.as_dict()) from None
        return Response(_status(_scenario(request, scenario_id)), status=status.HTTP_202_ACCEPTED)


class ScenarioCancel(ApiView):
    @extend_schema(request=None, responses={200: ActionResultSerializer, **NOT_FOUND, **ERRORS})
    def post(self, request, scenario_id):
        scenario = _scenario(request, scenario_id, need=Role.EDITOR)
        cancelled = services.cancel_scenario(scenario)
        return Response({"cancelled": cancelled, "status": _scenario(request, scenario_id).status()})


def _status(scenario: Scenario) -> dict:
    state = services.scenario_status(scenario)
    runs = {e.platform.slug: e.run_id for e in scenario.entries.select_related("platform")}
    for p in state["platforms"]:
        p["run"] = runs.get(p["platform"])
        p.pop("run_url", None)
    return ScenarioStatusSerializer(state).data


class ScenarioStatus(ApiView):
    """Combined and per-platform status and progress (poll this while the runs go)."""

    @extend_schema(responses={200: ScenarioStatusSerializer, **NOT_FOUND, **ERRORS})
    def get(self, request, scenario_id):
        return Response(_status(_scenario(request, scenario_id)))


class ScenarioResults(ApiView):
    """The results page's data: per-platform summaries, bounds, validation and scoring (ranks)."""

    @extend_schema(
        parameters=[OpenApiParameter("figures", bool, description="include the plotly figures (large)")],
        responses={200: ScenarioResultsSerializer, **NOT_READY, **NOT_FOUND, **ERRORS},
    )
    def get(self, request, scenario_id):
        scenario = _scenario(request, scenario_id)
        results = services.scenario_results(scenario)
        if results is None:
            return not_ready(scenario.status())
        scoring = scoring_services.scoring_section(scenario, results)
        summary = [{k: v for k, v in row.items() if k != "run_url"} for row in results.get("summary", [])]
        out = {"summary": summary, "bounds": results.get("bounds", []), "validation": results.get("validation"),
               "scoring": scoring}
        if request.query_params.get("figures", "").lower() in ("1", "true", "yes"):
            import json

            out["figures"] = {name: json.loads(fig) for name, fig in (results.get("figures") or {}).items()}
        return Response(out)


# --- simulation runs -----------------------------------------------------------------------------------

@extend_schema_view(get=extend_schema(responses={200: RunSerializer(many=True), **ERRORS}))
class RunList(ListCreateApiView):
    """Simulation runs of one workload on one platform, newest first; start one."""

    serializer_class = RunSerializer
    queryset = SimulationRun.objects.none()

    def get_queryset(self):
        return visible(SimulationRun.objects.select_related("platform", "workload"), self.request.user)

    @extend_schema(parameters=[WORKSPACE_PARAMETER], request=RunCreate,
                   responses={201: RunSerializer, **BAD_REQUEST, **NO_WORKSPACE, **UNSUPPORTED, **ERRORS})
    def post(self, request):
        workspace = editable_workspace(request)
        d = parse_request(RunCreate, request.data)
        workload = _workload(request, d.workload)
        platform = _platforms(request, [("platform", d.platform)])[0]
        try:
            run = services.create_run(platform=platform, workload=workload, options=d.options.to_data(), seed=d.seed,
                                      replications=d.replications, user=request.user, label=d.label,
                                      workspace=workspace)
        except services.InvalidScenario as exc:
            raise ValidationError(exc.as_dict()) from None
        services.dispatch_run(run)
        return Response(self.get_serializer(run).data, status=status.HTTP_201_CREATED)


def _run(request, run_id, need=Role.VIEWER) -> SimulationRun:
    return get_or_404(SimulationRun.objects.select_related("platform", "workload"), request.user, need=need,
                      pk=run_id)


class RunDetail(ApiView):
    @extend_schema(responses={200: RunSerializer, **NOT_FOUND, **ERRORS})
    def get(self, request, run_id):
        return Response(RunSerializer(_run(request, run_id), context={"request": request}).data)


class RunStatus(ApiView):
    @extend_schema(responses={200: RunStatusSerializer, **NOT_FOUND, **ERRORS})
    def get(self, request, run_id):
        run = _run(request, run_id)
        return Response(RunStatusSerializer({"status": run.status, "progress": round(run.progress(), 4),
                                             "error": run.error, "finished": run.is_finished}).data)


class RunCancel(ApiView):
    @extend_schema(request=None, responses={200: RunStatusSerializer, **NOT_FOUND, **ERRORS},
                   description="Cancel a queued or running run; a finished run is left as it is.")
    def post(self, request, run_id):
        run = _run(request, run_id, need=Role.EDITOR)
        services.cancel_run(run)
        run.refresh_from_db()
        return Response(RunStatusSerializer({"status": run.status, "progress": round(run.progress(), 4),
                                             "error": run.error, "finished": run.is_finished}).data)


__all__ = ["ScenarioList", "ScenarioDetail", "ScenarioRun", "ScenarioCancel", "ScenarioStatus", "ScenarioResults",
           "RunList", "RunDetail", "RunStatus", "RunCancel"]
