from django.contrib import admin

from apps.benchmarks.models import BenchmarkRun, MeasuredValue


class MeasuredValueInline(admin.TabularInline):
    model = MeasuredValue
    extra = 0
    readonly_fields = ("name", "label", "value", "dimension", "source", "applied_to")


@admin.register(BenchmarkRun)
class BenchmarkRunAdmin(admin.ModelAdmin):
    list_display = ("id", "kind", "platform", "status", "created_at")
    list_filter = ("kind", "status", "platform")
    readonly_fields = ("host", "result", "task_id", "attempts", "started_at", "finished_at")
    inlines = [MeasuredValueInline]
