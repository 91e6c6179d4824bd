from django.urls import path

from apps.benchmarks import views

app_name = "benchmarks"
urlpatterns = [
    path("", views.run_list, name="list"),
    path("<uuid:run_id>/", views.run_detail, name="run"),
    path("<uuid:run_id>/status/", views.run_status, name="run_status"),
    path("<uuid:run_id>/cancel/", views.run_cancel, name="run_cancel"),
    path("<uuid:run_id>/apply/", views.run_apply, name="run_apply"),
    path("<uuid:run_id>/new-platform/", views.run_new_platform, name="run_new_platform"),
]
