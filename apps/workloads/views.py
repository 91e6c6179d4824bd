"""Catalogue pages for workloads (the reference catalogue and the user's workspaces' own), copying one into the
active workspace, editing and deleting a workspace's own, and the reference observations."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from apps.accounts.workspaces import Role, active_workspace, editable_workspace, role_allows
from apps.core.editing import delete_page, edit_page
from apps.core.templatetags.skyplan import columns
from apps.workloads import services
from apps.workloads.catalogue import CatalogueError
from apps.workloads.creation import ImportWorkloadForm, NewWorkloadEditor, import_upload
from apps.workloads.forms import WorkloadEditor
from apps.workloads.models import ReferenceObservation, WorkloadStage
from apps.workloads.services import copy_workload, get_workload, visible_workloads


def workload_list(request):
    can_create = role_allows(active_workspace(request).role_of(request.user), Role.EDITOR)
    return render(request, "workloads/list.html", {
        "workloads": visible_workloads(request.user).prefetch_related("stages"), "can_create": can_create})


def workload_new(request):
    """A workload from scratch in the active workspace (editors): its name, template and first stage, then its edit
    page for the rest."""
    workspace = editable_workspace(request)
    editor = NewWorkloadEditor(request.POST or None)
    if request.method == "POST":
        workload = editor.save(workspace, request.user)
        if workload is not None:
            messages.info(request, f"{workload.name} created in {workspace.name}: add its stages and demands here.")
            return redirect("workloads:edit", workload.slug)
    return render(request, "workloads/new.html", {"editor": editor, "workspace": workspace},
                  status=400 if request.method == "POST" else 200)


def workload_import(request):
    """Load a workload file (JSON or YAML) into the active workspace (editors): all or nothing, a refusal naming the
    file, its line or JSON path and the field."""
    workspace = editable_workspace(request)
    form = ImportWorkloadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            loaded = import_upload(form.cleaned_data["file"], workspace, request.user)
        except CatalogueError as exc:
            form.add_error("file", f"Nothing was imported. {exc.file}: {exc.path}: {exc.message}")
        else:
            names = ", ".join(w.name for w in loaded)
            messages.info(request, f"Imported into {workspace.name}: {names}.")
            if len(loaded) == 1:
                return redirect("workloads:edit", loaded[0].slug)
            return redirect("workloads:list")
    return render(request, "workloads/import.html", {"form": form, "workspace": workspace},
                  status=400 if request.method == "POST" else 200)


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
            "can_edit": not workload.is_reference and role_allows(workload.workspace.role_of(request.user),
                                                                  Role.EDITOR),
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
    messages.info(request, f"{workload.name} copied to {workspace.name} as {duplicate.name}: change its values here, "
                           "each changed value with its source.")
    return redirect("workloads:edit", duplicate.slug)


def workload_edit(request, slug):
    workload = services.editable_workload(request.user, slug)
    return edit_page(request, WorkloadEditor(workload, request.POST or None), "workloads/edit.html",
                     {"workload": workload}, reverse("workloads:detail", args=[slug]))


@require_POST
def workload_delete(request, slug):
    return delete_page(request, services.editable_workload(request.user, slug), services.delete_workload, services.WorkloadInUse, what="workload",
                       edit="workloads:edit", listing="workloads:list")
