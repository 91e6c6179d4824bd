from django.apps import AppConfig


class BenchmarksConfig(AppConfig):
    name = "apps.benchmarks"
    verbose_name = "Benchmarks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from apps.benchmarks.services import BENCHMARK_JOBS
        from apps.core.jobs import register

        register(BENCHMARK_JOBS)
