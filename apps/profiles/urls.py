from django.urls import path

from apps.profiles import views

app_name = "profiles"

urlpatterns = [
    path("", views.profile_list, name="list"),
    path("<int:profile_id>/", views.profile_detail, name="detail"),
    path("<int:profile_id>/file/", views.profile_file, name="file"),
    path("<int:profile_id>/calibrate/", views.profile_calibrate, name="calibrate"),
    path("<int:profile_id>/measure-tier/", views.profile_measure_tier, name="measure_tier"),
    path("imports/<uuid:job_id>/", views.import_detail, name="import"),
    path("imports/<uuid:job_id>/status/", views.import_status, name="import_status"),
    path("imports/<uuid:job_id>/cancel/", views.import_cancel, name="import_cancel"),
    path("calibrations/<int:cal_id>/", views.calibration_detail, name="calibration"),
    path("calibrations/<int:cal_id>/apply/", views.calibration_apply, name="calibration_apply"),
    path("tier-measurements/", views.measurement_list, name="measurements"),
]
