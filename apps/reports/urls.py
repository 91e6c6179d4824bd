from django.urls import path

from apps.reports import views

app_name = "reports"
urlpatterns = [
    path("scenarios/<uuid:scenario_id>/reports/", views.report_request, name="request"),
    path("reports/<uuid:report_id>/", views.report_detail, name="detail"),
    path("reports/<uuid:report_id>/status/", views.report_status_json, name="status"),
    path("reports/<uuid:report_id>/cancel/", views.report_cancel, name="cancel"),
    path("reports/<uuid:report_id>/download/", views.report_download, name="download"),
]
