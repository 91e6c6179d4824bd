from django.apps import AppConfig


class ScenariosConfig(AppConfig):
    name = "apps.scenarios"
    label = "scenarios"
    verbose_name = "Scenarios and simulation runs"

    def ready(self):
        from apps.core.jobs import register
        from apps.scenarios.services import REPLICATION_JOBS

        register(REPLICATION_JOBS)
