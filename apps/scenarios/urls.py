from django.urls import path

from apps.scenarios import views

app_name = "scenarios"
urlpatterns = [
    path("runs/", views.run_list, name="runs"),
    path("runs/<uuid:run_id>/", views.run_detail, name="run"),
    path("runs/<uuid:run_id>/status/", views.run_status, name="run_status"),
    path("runs/<uuid:run_id>/cancel/", views.run_cancel, name="run_cancel"),
    path("validation/", views.validation, name="validation"),
    path("scenarios/", views.scenario_list, name="scenarios"),
    path("scenarios/new/", views.scenario_new, name="scenario_new"),
    path("scenarios/demo/", views.scenario_demo, name="scenario_demo"),
    path("scenarios/compare/", views.scenario_compare, name="compare"),
    path("scenarios/<uuid:scenario_id>/", views.scenario_detail, name="scenario"),
    path("scenarios/<uuid:scenario_id>/status/", views.scenario_status, name="scenario_status"),
    path("scenarios/<uuid:scenario_id>/recommendation/", views.scenario_recommendation, name="recommendation"),
    path("scenarios/<uuid:scenario_id>/run/", views.scenario_run, name="scenario_run"),
    path("scenarios/<uuid:scenario_id>/cancel/", views.scenario_cancel, name="scenario_cancel"),
    path("scenarios/<uuid:scenario_id>/what-if/", views.scenario_what_if, name="scenario_what_if"),
]
