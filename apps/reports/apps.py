from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "apps.reports"
    label = "reports"
    verbose_name = "Reports"

    def ready(self):
        from apps.core.jobs import register
        from apps.reports.services import REPORT_JOBS

        register(REPORT_JOBS)
