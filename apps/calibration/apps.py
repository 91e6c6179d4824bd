from django.apps import AppConfig


class CalibrationConfig(AppConfig):
    name = "apps.calibration"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from apps.calibration.fitting import CALIBRATION_JOBS
        from apps.core.jobs import register

        register(CALIBRATION_JOBS)
