from django.apps import AppConfig


class ScoringConfig(AppConfig):
    name = "apps.scoring"
    label = "scoring"
    verbose_name = "Scoring and recommendations"
    default_auto_field = "django.db.models.BigAutoField"
