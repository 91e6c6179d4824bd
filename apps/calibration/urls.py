from django.urls import path

from apps.calibration import views

app_name = "calibration"

urlpatterns = [
    path("", views.calibration_list, name="list"),
    path("<uuid:calibration_id>/", views.calibration_detail, name="detail"),
]
