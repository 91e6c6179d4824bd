from django.contrib import admin

from apps.platforms.models import NodeType, Platform, StorageTier


class NodeTypeInline(admin.StackedInline):
    model = NodeType
    extra = 0


class StorageTierInline(admin.StackedInline):
    model = StorageTier
    extra = 0


@admin.register(Platform)
class PlatformAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "location", "max_nodes", "workspace")
    list_filter = ("kind", ("workspace", admin.EmptyFieldListFilter))
    search_fields = ("name", "slug", "location")
    prepopulated_fields = {"slug": ("name",)}
    inlines = [NodeTypeInline, StorageTierInline]


@admin.register(NodeType)
class NodeTypeAdmin(admin.ModelAdmin):
    list_display = ("name", "platform", "cores", "memory")
    list_filter = ("platform",)


@admin.register(StorageTier)
class StorageTierAdmin(admin.ModelAdmin):
    list_display = ("name", "platform", "kind")
    list_filter = ("platform", "kind")
