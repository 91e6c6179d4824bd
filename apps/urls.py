"""Top-level URLs."""

from django.contrib import admin
from django.urls import include, path

from apps import views as project_views
from apps.core import views as core_views
from apps.workloads.platform_structure import platform_new, platform_structure

admin.site.site_header = "Skyplan administration"
admin.site.site_title = "Skyplan"

urlpatterns = [
    path("", project_views.home, name="home"),
    path("health/", core_views.health, name="health"),
    path("favicon.ico", core_views.favicon, name="favicon"),
    path("accounts/", include("apps.accounts.urls")),
    # a platform's node types and tiers change through the catalogue entry, whose loader lives in apps.workloads
    path("platforms/new/", platform_new, name="platform_new"),
    path("platforms/<slug:slug>/structure/", platform_structure, name="platform_structure"),
    path("platforms/", include("apps.platforms.urls")),
    path("workloads/", include("apps.workloads.urls")),
    path("", include("apps.scenarios.urls")),
    path("scoring/", include("apps.scoring.urls")),
    path("benchmarks/", include("apps.benchmarks.urls")),
    path("profiles/", include("apps.profiles.urls")),
    path("calibration/", include("apps.calibration.urls")),
    path("", include("apps.reports.urls")),
    path("api/", include("apps.api.urls")),
    path("admin/", admin.site.urls),
]

# under /api/ errors are JSON ({"detail": …}); elsewhere the site's pages
handler400 = "apps.api.errors.bad_request"
handler403 = "apps.api.errors.permission_denied"
handler404 = "apps.api.errors.page_not_found"
handler500 = "apps.api.errors.server_error"
