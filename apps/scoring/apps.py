from django.apps import AppConfig


class ScoringConfig(AppConfig):
    name = "apps.scoring"
    label = "scoring"
    verbose_name = "Scoring and recommendations"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from apps.core.jobs import register
        from apps.scenarios.services import RESULT_SECTIONS
        from apps.scoring.services import CHUNK_JOBS, SCORE_REPORT_JOBS, scoring_section, scoring_shown

        register(CHUNK_JOBS)
        register(SCORE_REPORT_JOBS)
        RESULT_SECTIONS["scoring"] = scoring_section
        RESULT_SECTIONS["scoring_shown"] = scoring_shown
