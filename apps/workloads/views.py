"""Catalogue pages for workloads and the reference observations."""

from django.shortcuts import render

from apps.core.templatetags.skyplan import columns
from apps.workloads.models import ReferenceObservation, WorkloadStage
from apps.workloads.services import get_workload, visible_workloads


def workload_list(request):
    return render(request, "workloads/list.html", {"workloads": visible_workloads(request.user).prefetch_related("stages")})


def workload_detail(request, slug):
    workload = get_workload(request.user, slug)
    stages = list(workload.stages.all())
    shown = [name for name in WorkloadStage.FACT_FIELDS  # only the facts some stage gives
             if any(getattr(s, name) not in (None, "", []) for s in stages)]
    return render(
        request,
        "workloads/detail.html",
        {
            "workload": workload,
            "stages": stages,
            "stage_columns": columns(WorkloadStage, shown),
            "observations": workload.observations.select_related("platform"),
        },
    )


def observation_list(request):
    observations = ReferenceObservation.objects.select_related("platform", "workload")
    return render(request, "workloads/observations.html", {"observations": observations})
