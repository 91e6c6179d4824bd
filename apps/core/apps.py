from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "apps.core"
    label = "core"
    verbose_name = "Skyplan core"

    def ready(self):
        from apps.core import signals  # noqa: F401 - connects the worker announcement and the stuck-job sweeps
