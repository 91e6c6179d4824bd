from django.urls import path

from apps.scenarios import views

app_name = "scenarios"
urlpatterns = [
    path("runs/", views.run_list, name="runs"),
    path("runs/<uuid:run_id>/", views.run_detail, name="run"),
    path("runs/<uuid:run_id>/status/", views.run_status, name="run_status"),
    path("runs/<uuid:run_id>/cancel/", views.run_cancel, name="run_cancel"),
    path("validation/", views.validation, name="validation"),
]
