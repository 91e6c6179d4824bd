"""Catalogue pages for workloads (the reference catalogue and the user's workspaces' own), copying one into the
active workspace, and the reference observations."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from apps.accounts.workspaces import Role, active_workspace, editable_workspace, role_allows
from apps.core.templatetags.skyplan import columns
from apps.workloads.models import ReferenceObservation, WorkloadStage
from apps.workloads.services import copy_workload, get_workload, visible_workloads


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
            "can_copy": role_allows(active_workspace(request).role_of(request.user), Role.EDITOR),
            "stages": stages,
            "stage_columns": columns(WorkloadStage, shown),
            "observations": workload.observations.select_related("platform"),
        },
    )


def observation_list(request):
    observations = ReferenceObservation.objects.select_related("platform", "workload")
    return render(request, "workloads/observations.html", {"observations": observations})


@require_POST
def workload_copy(request, slug):
    workload = get_workload(request.user, slug)
    workspace = editable_workspace(request)
    duplicate = copy_workload(workload, workspace, user=request.user)
    messages.info(request, f"{workload.name} copied to {workspace.name} as {duplicate.name}; change it through the "
                           f"API (PATCH /api/v1/workloads/{duplicate.slug}/), each changed value with its source.")
    return redirect("workloads:detail", duplicate.slug)
