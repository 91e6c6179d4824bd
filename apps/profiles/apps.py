from django.apps import AppConfig


class ProfilesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "apps.profiles"
    label = "profiles"
    verbose_name = "Profiles"

    def ready(self):
        from apps.core.jobs import register
        from apps.profiles.services import IMPORT_JOBS

        register(IMPORT_JOBS)
