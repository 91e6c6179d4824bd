from django.apps import AppConfig


class CalibrationConfig(AppConfig):
    name = "apps.calibration"
    default_auto_field = "django.db.models.BigAutoField"
