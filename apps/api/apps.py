from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "apps.api"
    label = "api"
    verbose_name = "REST API"

    def ready(self):
        from apps.api import tokens  # noqa: F401 - connects the logout receiver
