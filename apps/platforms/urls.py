from django.urls import path

from apps.platforms import views

app_name = "platforms"
urlpatterns = [
    path("", views.platform_list, name="list"),
    path("<slug:slug>/", views.platform_detail, name="detail"),
]
