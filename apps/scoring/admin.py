from django.contrib import admin

from apps.scoring.models import ConfigurationSearch, Criterion


@admin.register(Criterion)
class CriterionAdmin(admin.ModelAdmin):
    list_display = ("label", "key", "metric", "direction", "weight", "position", "enabled")
    list_editable = ("weight", "position", "enabled")
    search_fields = ("key", "label")


@admin.register(ConfigurationSearch)
class ConfigurationSearchAdmin(admin.ModelAdmin):
    list_display = ("__str__", "platform", "workload", "status", "total", "created_at")
    readonly_fields = ("inputs", "results")
