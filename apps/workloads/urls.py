from django.urls import path

from apps.workloads import views

app_name = "workloads"
urlpatterns = [
    path("", views.workload_list, name="list"),
    path("new/", views.workload_new, name="new"),
    path("import/", views.workload_import, name="import"),
    path("reference-observations/", views.observation_list, name="observations"),
    path("<slug:slug>/", views.workload_detail, name="detail"),
    path("<slug:slug>/copy/", views.workload_copy, name="copy"),
    path("<slug:slug>/edit/", views.workload_edit, name="edit"),
    path("<slug:slug>/delete/", views.workload_delete, name="delete"),
]
