from django.urls import path

from apps.scoring import views

app_name = "scoring"

urlpatterns = [
    path("", views.index, name="index"),
    path("criteria/", views.criteria, name="criteria"),
    path("criteria/<int:pk>/", views.criterion_edit, name="criterion"),
    path("criteria/<int:pk>/delete/", views.criterion_delete, name="criterion_delete"),
    path("criteria/reset/", views.criteria_reset, name="criteria_reset"),
    path("criteria/customise/", views.criteria_customise, name="criteria_customise"),
    path("criteria/use-reference/", views.criteria_use_reference, name="criteria_use_reference"),
    path("workloads/<slug:slug>/", views.score, name="score"),
    path("workloads/<slug:slug>/tco/", views.tco, name="tco"),
    path("reports/<int:pk>/status/", views.report_status, name="report_status"),
    path("rerank/", views.rerank, name="rerank"),
    path("searches/", views.searches, name="searches"),
    path("searches/<uuid:search_id>/", views.search_detail, name="search"),
    path("searches/<uuid:search_id>/status/", views.search_status, name="search_status"),
    path("searches/<uuid:search_id>/cancel/", views.search_cancel, name="search_cancel"),
]
