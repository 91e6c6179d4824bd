"""Scoring pages: radar and ranks, TCO, configuration searches, criteria.  Thin: form, one service call."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from apps.accounts.workspaces import Role, active_workspace, editable_workspace, get_or_404, role_allows, visible
from apps.core import jsonbounds
from apps.scoring import services
from apps.scoring.charts import pareto_figure, radar_figure, tco_figure
from apps.scoring.forms import DEMO_SPACE, CriterionForm, ScoreForm, SearchForm, TcoForm
from apps.scoring.models import ConfigurationSearch, Criterion, ScoreReport
from apps.workloads.models import Workload


def _workspace(request):
    """The active workspace of a signed-in user (whose criteria score their pages), else None (the reference set)."""
    return active_workspace(request) if request.user.is_authenticated else None


def index(request):
    return render(request, "scoring/index.html", {"workloads": Workload.objects.all(),
                                                  "criteria": services.criteria_of(_workspace(request))})


def _report(request, workload, form_class, **extra):
    """The form and the scoring report it asks for: kept from an earlier request, or being computed on a worker
    (``pending``: the page polls and reloads when it is ready)."""
    form = form_class(request.GET or None, user=request.user)
    context = {"workload": workload, "form": form, "report": None, "pending": None, "failed": ""}
    if request.GET and not form.is_valid():
        return context
    data = form.cleaned_data if request.GET else {}
    slugs = [p.slug for p in data.get("platform") or []] or None
    horizon = {k: data.get(k) for k in ("years", "epochs_per_year", "growth_per_epoch", "egress_gb_per_epoch")}
    try:
        row = services.requested_report(workload, slugs, method=data.get("method") or "weighted_sum",
                                        seed=data.get("seed") or 0, horizon=horizon, user=request.user,
                                        workspace=_workspace(request), **extra)
    except ValueError as exc:
        field = str(exc).split(":", 1)[0]
        form.add_error(field if field in form.fields else None, str(exc))
        return context
    if row.status == ScoreReport.Status.SUCCEEDED:
        context["report"] = row.report
    elif row.is_finished:
        context["failed"] = row.error or "the report could not be computed"
    else:
        context["pending"] = row
    return context


def report_status(request, pk):
    """Whether a scoring report is ready (polled by the scoring pages while a worker computes it)."""
    row = get_object_or_404(ScoreReport.objects.only("status"), pk=pk)
    done = 1 if row.status == ScoreReport.Status.SUCCEEDED else 0
    return JsonResponse({"status": row.status, "progress": float(done), "done": done, "total": 1,
                         "finished": row.is_finished})


def score(request, slug):
    workload = get_object_or_404(Workload, slug=slug)
    context = _report(request, workload, ScoreForm)
    if context["report"]:
        context.update(services.table_rows(context["report"]))
        if "aggregates" in context["report"]:
            context["radar"] = radar_figure(context["report"])
    return render(request, "scoring/score.html", context)


def tco(request, slug):
    workload = get_object_or_404(Workload, slug=slug)
    context = _report(request, workload, TcoForm, samples=200)
    if context["report"] and "tco" in context["report"]:
        context["curves"] = tco_figure(context["report"]["tco"])
    return render(request, "scoring/tco.html", context)


def criteria(request):
    """The criteria that score the active workspace: its own (its editors change them) or the reference set (staff
    change it; an editor may copy it into the workspace to change it there)."""
    workspace = _workspace(request)
    rows = services.criteria_of(workspace)
    own = workspace is not None and rows.filter(workspace=workspace).exists()
    editor = workspace is not None and role_allows(workspace.role_of(request.user), Role.EDITOR)
    can_edit = editor if own else request.user.is_staff
    form = CriterionForm(request.POST or None)
    form.instance.workspace = workspace if own else None
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not can_edit:
            raise PermissionDenied(
                f"this needs the editor role in workspace {workspace.name!r}" if own else
                "the reference criteria are shared by every workspace: changing them needs a catalogue maintainer "
                "(staff) account; copy them into your workspace to change them there")
        if form.is_valid():
            form.save()
            messages.info(request, "Criterion added.")
            return redirect("scoring:criteria")
    return render(request, "scoring/criteria.html", {"form": form, "criteria": rows, "workspace": workspace,
                                                     "own": own, "can_edit": can_edit, "editor": editor})


@login_required
def criterion_edit(request, pk):
    criterion = get_or_404(Criterion.objects.all(), request.user, need=Role.EDITOR, pk=pk)
    form = CriterionForm(request.POST or None, instance=criterion)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.info(request, f"Criterion {criterion.label} saved.")
        return redirect("scoring:criteria")
    return render(request, "scoring/criterion_form.html", {"form": form, "criterion": criterion})


@login_required
@require_POST
def criterion_delete(request, pk):
    criterion = get_or_404(Criterion.objects.all(), request.user, need=Role.EDITOR, pk=pk)
    criterion.delete()
    messages.info(request, f"Criterion {criterion.label} removed.")
    return redirect("scoring:criteria")


@login_required
@require_POST
def criteria_reset(request):
    if not request.user.is_staff:
        raise PermissionDenied("the reference criteria are shared by every workspace: restoring them needs a "
                               "catalogue maintainer (staff) account")
    n = services.reset_default_criteria()
    messages.info(request, f"The paper's {n} criteria restored in the reference set.")
    return redirect("scoring:criteria")


@login_required
@require_POST
def criteria_customise(request):
    workspace = editable_workspace(request)
    n = services.customise_criteria(workspace)
    messages.info(request, f"{workspace.name} now scores with its own {n} criteria (a copy of the reference set).")
    return redirect("scoring:criteria")


@login_required
@require_POST
def criteria_use_reference(request):
    workspace = editable_workspace(request)
    services.use_reference_criteria(workspace)
    messages.info(request, f"{workspace.name} scores with the reference criteria again.")
    return redirect("scoring:criteria")


def searches(request):
    initial = {"workload": "chiles-epoch1", "platform": "aws-sydney", "space": json.dumps(DEMO_SPACE, indent=1),
               "deadline_h": 96, "budget_aud": 500, "seed": 0}
    form = SearchForm(request.POST or None, initial=initial, user=request.user)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            search = services.create_search(
                platform=d["platform"], workload=d["workload"], space=d["space"], seed=d["seed"],
                deadline_s=d["deadline_h"] * 3600.0 if d["deadline_h"] else None, budget_aud=d["budget_aud"],
                user=request.user, workspace=editable_workspace(request))
        except services.InvalidSearch as exc:
            field = str(exc).split(":", 1)[0].split(".", 1)[0]
            form.add_error({"deadline": "deadline_h", "budget": "budget_aud"}.get(field, "space"), str(exc))
        else:
            services.dispatch_search(search)
            return redirect(search)
    items = visible(ConfigurationSearch.objects.select_related("platform", "workload"), request.user)[:50]
    return render(request, "scoring/search_list.html", {"form": form, "searches": items})


def search_detail(request, search_id):
    search = get_or_404(ConfigurationSearch.objects.select_related("platform", "workload"), request.user,
                        pk=search_id)
    context = {"search": search}
    if search.results:
        context["pareto"] = pareto_figure(search.results["points"], search.results["pareto"])
    return render(request, "scoring/search_detail.html", context)


def search_status(request, search_id):
    search = get_or_404(ConfigurationSearch.objects.all(), request.user, pk=search_id)
    return JsonResponse({"status": search.status, "progress": round(search.progress(), 4), "done": search.done(),
                         "total": search.total, "error": search.error, "finished": search.is_finished})


@require_POST
def search_cancel(request, search_id):
    search = get_or_404(ConfigurationSearch.objects.all(), request.user, need=Role.EDITOR, pk=search_id)
    messages.info(request, "Search cancelled." if services.cancel_search(search) else
                  f"The search had already {search.status}.")
    return redirect(search)


def rerank(request):
    """JSON: aggregates and orders of ``ranks`` (JSON: platform -> ranks) under ``weights`` (comma-separated)."""
    try:
        ranks = jsonbounds.loads(request.GET.get("ranks", ""))
        weights = [float(w) for w in request.GET.get("weights", "").split(",") if w.strip()]
        if not isinstance(ranks, dict) or not ranks or not all(
                isinstance(v, list) and all(x is None or (isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= 5)
                                            for x in v) for v in ranks.values()):
            raise ValueError("ranks: a JSON object of platform -> list of ranks 0..5 (null: unknown)")
        return JsonResponse(services.rerank(ranks, weights))
    except (ValueError, TypeError) as exc:  # json.JSONDecodeError is a ValueError
        return JsonResponse({"error": str(exc)}, status=400)
