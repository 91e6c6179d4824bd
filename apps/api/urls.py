"""API URLs: /api/v1/... (the API), /api/schema/ (OpenAPI 3), /api/docs/ (Swagger UI) and /api/redoc/ (ReDoc)."""

from csp.constants import SELF, UNSAFE_INLINE
from csp.decorators import csp_update
from django.contrib.auth.decorators import login_not_required
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

from apps.api.authentication import AUTHENTICATION_CLASSES
from apps.api.views import auth, benchmarks, calibration, catalogue, profiles, reports, scenarios, workspaces

app_name = "api"


def _docs_page(view):
    """A public documentation page.  Scripts stay same-origin only; Swagger UI and ReDoc set styles from script
    (and ReDoc searches in a blob: web worker), which the site-wide policy would block on these two pages."""
    return login_not_required(csp_update({"style-src": [SELF, UNSAFE_INLINE], "worker-src": [SELF, "blob:"]})(view))


v1 = [
    path("auth/token/", auth.TokenView.as_view(), name="token"),
    path("workspaces/", workspaces.WorkspaceList.as_view(), name="workspace-list"),
    path("workspaces/<int:workspace_id>/invitations/", workspaces.WorkspaceInvite.as_view(),
         name="workspace-invitations"),
    path("invitations/", workspaces.InvitationList.as_view(), name="invitation-list"),
    path("invitations/<int:invitation_id>/accept/", workspaces.InvitationAccept.as_view(), name="invitation-accept"),
    path("invitations/<int:invitation_id>/decline/", workspaces.InvitationDecline.as_view(),
         name="invitation-decline"),
    path("platforms/", catalogue.PlatformList.as_view(), name="platform-list"),
    path("platforms/<slug:slug>/", catalogue.PlatformDetail.as_view(), name="platform-detail"),
    path("platforms/<slug:slug>/copy/", catalogue.PlatformCopy.as_view(), name="platform-copy"),
    path("workloads/", catalogue.WorkloadList.as_view(), name="workload-list"),
    path("workloads/<slug:slug>/", catalogue.WorkloadDetail.as_view(), name="workload-detail"),
    path("workloads/<slug:slug>/copy/", catalogue.WorkloadCopy.as_view(), name="workload-copy"),
    path("observations/", calibration.ObservationList.as_view(), name="observation-list"),
    path("observations/<int:observation_id>/", calibration.ObservationDetail.as_view(), name="observation-detail"),
    path("calibrations/", calibration.CalibrationList.as_view(), name="calibration-list"),
    path("calibrations/<uuid:calibration_id>/", calibration.CalibrationDetail.as_view(), name="calibration-detail"),
    path("calibrations/<uuid:calibration_id>/cancel/", calibration.CalibrationCancel.as_view(),
         name="calibration-cancel"),
    path("scenarios/", scenarios.ScenarioList.as_view(), name="scenario-list"),
    path("scenarios/<uuid:scenario_id>/", scenarios.ScenarioDetail.as_view(), name="scenario-detail"),
    path("scenarios/<uuid:scenario_id>/run/", scenarios.ScenarioRun.as_view(), name="scenario-run"),
    path("scenarios/<uuid:scenario_id>/cancel/", scenarios.ScenarioCancel.as_view(), name="scenario-cancel"),
    path("scenarios/<uuid:scenario_id>/status/", scenarios.ScenarioStatus.as_view(), name="scenario-status"),
    path("scenarios/<uuid:scenario_id>/results/", scenarios.ScenarioResults.as_view(), name="scenario-results"),
    path("runs/", scenarios.RunList.as_view(), name="run-list"),
    path("runs/<uuid:run_id>/", scenarios.RunDetail.as_view(), name="run-detail"),
    path("runs/<uuid:run_id>/status/", scenarios.RunStatus.as_view(), name="run-status"),
    path("runs/<uuid:run_id>/cancel/", scenarios.RunCancel.as_view(), name="run-cancel"),
    path("profiles/", profiles.ProfileList.as_view(), name="profile-list"),
    path("profiles/<int:profile_id>/", profiles.ProfileDetail.as_view(), name="profile-detail"),
    path("profiles/<int:profile_id>/file/", profiles.ProfileFile.as_view(), name="profile-file"),
    path("profiles/imports/", profiles.ImportList.as_view(), name="profile-import-list"),
    path("profiles/imports/<uuid:job_id>/", profiles.ImportDetail.as_view(), name="profile-import-detail"),
    path("profiles/imports/<uuid:job_id>/cancel/", profiles.ImportCancel.as_view(), name="profile-import-cancel"),
    path("benchmarks/", benchmarks.BenchmarkList.as_view(), name="benchmark-list"),
    path("benchmarks/<uuid:run_id>/", benchmarks.BenchmarkDetail.as_view(), name="benchmark-detail"),
    path("benchmarks/<uuid:run_id>/status/", benchmarks.BenchmarkStatus.as_view(), name="benchmark-status"),
    path("benchmarks/<uuid:run_id>/cancel/", benchmarks.BenchmarkCancel.as_view(), name="benchmark-cancel"),
    path("benchmarks/<uuid:run_id>/results/", benchmarks.BenchmarkResults.as_view(), name="benchmark-results"),
    path("reports/", reports.ReportList.as_view(), name="report-list"),
    path("reports/<uuid:report_id>/", reports.ReportDetail.as_view(), name="report-detail"),
    path("reports/<uuid:report_id>/cancel/", reports.ReportCancel.as_view(), name="report-cancel"),
    path("reports/<uuid:report_id>/download/", reports.ReportDownload.as_view(), name="report-download"),
]

_auth = {"authentication_classes": AUTHENTICATION_CLASSES}
urlpatterns = [
    path("v1/", include(v1)),
    # the schema and its documentation are public (they describe the API, not the data)
    path("schema/", login_not_required(SpectacularAPIView.as_view(**_auth)), name="schema"),
    path("docs/", _docs_page(SpectacularSwaggerSplitView.as_view(url_name="api:schema", **_auth,
                                                                 template_name="api/swagger_ui.html")), name="docs"),
    path("redoc/", _docs_page(SpectacularRedocView.as_view(url_name="api:schema", **_auth,
                                                         template_name="api/redoc.html")), name="redoc"),
]
