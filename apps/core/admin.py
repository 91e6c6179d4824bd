from django.contrib import admin

from apps.core.models import WorkerHeartbeat


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(admin.ModelAdmin):
    list_display = ("hostname", "pid", "queues", "cores", "seen_at")
