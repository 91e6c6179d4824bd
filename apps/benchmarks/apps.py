from django.apps import AppConfig


class BenchmarksConfig(AppConfig):
    name = "apps.benchmarks"
    verbose_name = "Benchmarks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from apps.benchmarks import signals  # noqa: F401 - connects the worker announcement
