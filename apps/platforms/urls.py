from django.urls import path

from apps.platforms import views

app_name = "platforms"
urlpatterns = [
    path("", views.platform_list, name="list"),
    path("<slug:slug>/", views.platform_detail, name="detail"),
    path("<slug:slug>/copy/", views.platform_copy, name="copy"),
    path("<slug:slug>/edit/", views.platform_edit, name="edit"),
    path("<slug:slug>/delete/", views.platform_delete, name="delete"),
]
