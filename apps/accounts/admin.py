from django.contrib import admin

from apps.accounts.models import Membership, Workspace


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 1


@admin.register(Workspace)
class WorkspaceAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "personal_of", "created_at")
    search_fields = ("name", "slug")
    inlines = [MembershipInline]
