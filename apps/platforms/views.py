"""Catalogue pages for platforms: the list and a platform's page (the reference catalogue and the copies of the
user's workspaces), copying a platform into the active workspace, editing and deleting a workspace's copy."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from apps.accounts.workspaces import Role, active_workspace, editable_workspace, role_allows
from apps.core.editing import delete_page, edit_page
from apps.core.templatetags.skyplan import columns
from apps.platforms import services
from apps.platforms.forms import PlatformEditor
from apps.platforms.models import NodeType, Platform, StorageTier

#: facts shown on the platform page, grouped as a reader scans them
PLATFORM_SECTIONS = (
    ("Where and how big", ("location", "region", "max_nodes")),
    ("Data transfer (WAN to the data source)", ("wan_bandwidth", "wan_streams_to_saturate", "wan_variability")),
    (
        "Batch scheduler",
        ("scheduler", "queue_wait_model", "queue_wait_median", "queue_wait_sigma", "queue_wait_samples",
         "usable_threads_per_task", "billing_unit", "billing_granularity"),
    ),
    (
        "Prices",
        ("capex", "amortisation_years", "share_used", "node_hour_rate", "staff_per_year", "power_per_year",
         "egress_per_gb", "price_date"),
    ),
    ("Control and usability", ("root_access", "usability", "usability_note")),
)


def platform_list(request):
    platforms = services.visible_platforms(request.user).select_related("workspace").prefetch_related(
        "node_types", "storage_tiers")
    can_create = role_allows(active_workspace(request).role_of(request.user), Role.EDITOR)
    return render(request, "platforms/list.html", {"platforms": services.with_origins(platforms, request.user),
                                                   "can_create": can_create})


def platform_detail(request, slug):
    platform = services.get_platform(request.user, slug, Platform.objects.select_related("workspace"))
    services.with_origins([platform], request.user)
    active = active_workspace(request)
    return render(
        request,
        "platforms/detail.html",
        {
            "platform": platform,
            "sections": PLATFORM_SECTIONS,
            "node_columns": columns(NodeType, NodeType.FACT_FIELDS),
            "tier_columns": columns(StorageTier, StorageTier.FACT_FIELDS),
            "node_types": platform.node_types.all(),
            "storage_tiers": platform.storage_tiers.all(),
            "observations": platform.observations.all(),
            "can_copy": role_allows(active.role_of(request.user), Role.EDITOR),
            "can_edit": not platform.is_reference and role_allows(platform.workspace.role_of(request.user),
                                                                  Role.EDITOR),
        },
    )


@require_POST
def platform_copy(request, slug):
    platform = services.get_platform(request.user, slug)
    workspace = editable_workspace(request)
    duplicate = services.copy_platform(platform, workspace, user=request.user)
    messages.info(request, f"{platform.name} copied to {workspace.name} as {duplicate.name}: change its values here, "
                           "each changed value with its source.")
    return redirect("platforms:edit", duplicate.slug)


def platform_edit(request, slug):
    platform = services.editable_copy(request.user, slug, Platform.objects.select_related("workspace").prefetch_related(
        "node_types", "storage_tiers"))
    services.with_origins([platform], request.user)
    editor = PlatformEditor(platform, request.POST or None, sections=PLATFORM_SECTIONS)
    return edit_page(request, editor, "platforms/edit.html", {"platform": platform},
                     reverse("platforms:detail", args=[slug]))


@require_POST
def platform_delete(request, slug):
    return delete_page(request, services.editable_copy(request.user, slug), services.delete_copy, services.PlatformInUse, what="copy",
                       edit="platforms:edit", listing="platforms:list")
