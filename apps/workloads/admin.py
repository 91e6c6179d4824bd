from django.contrib import admin

from apps.workloads.models import ReferenceObservation, Workload, WorkloadStage


class StageInline(admin.StackedInline):
    model = WorkloadStage
    extra = 0


@admin.register(Workload)
class WorkloadAdmin(admin.ModelAdmin):
    list_display = ("name", "template")
    prepopulated_fields = {"slug": ("name",)}
    inlines = [StageInline]


@admin.register(ReferenceObservation)
class ReferenceObservationAdmin(admin.ModelAdmin):
    list_display = ("key", "quantity", "platform", "value", "unit")
    list_filter = ("quantity", "platform")
    search_fields = ("key", "quantity", "note")
