"""Catalogue pages for platforms."""

from django.shortcuts import get_object_or_404, render

from apps.core.templatetags.skyplan import columns
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
    platforms = Platform.objects.prefetch_related("node_types", "storage_tiers")
    return render(request, "platforms/list.html", {"platforms": platforms})


def platform_detail(request, slug):
    platform = get_object_or_404(Platform, slug=slug)
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
        },
    )
