from django.apps import AppConfig


class ScenariosConfig(AppConfig):
    name = "apps.scenarios"
    label = "scenarios"
    verbose_name = "Scenarios and simulation runs"
