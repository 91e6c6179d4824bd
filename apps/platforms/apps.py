from django.apps import AppConfig


class PlatformsConfig(AppConfig):
    name = "apps.platforms"
    label = "platforms"
    verbose_name = "Platforms"
