"""Simulation-run pages: start, watch (progress, cancel), results; the model validation page.

Scenario pages: list, builder (and the one-click demo), results with live progress,
cancel, rerun, what-if and compare."""

from __future__ import annotations

from django.contrib import messages
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_POST

from apps.accounts.workspaces import Role, editable_workspace, get_or_404, visible
from apps.scenarios import services
from apps.scenarios.forms import RunForm, ScenarioBuilder, WhatIfForm
from apps.scenarios.models import Scenario, SimulationRun
from apps.scenarios.services import InvalidScenario, cancel_run, create_run, dispatch_run, run_page
from apps.scenarios.validation import seed_sections, validation_report
from apps.workloads.models import Workload
from apps.workloads.services import get_workload, visible_workloads


def run_list(request):
    form = RunForm(request.POST or None, initial=request.GET.dict() or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            run = create_run(
                platform=data["platform"], workload=data["workload"], options=data["options"], seed=data["seed"],
                replications=data["replications"], user=request.user, workspace=editable_workspace(request),
            )
        except InvalidScenario as exc:  # each refusal next to the field its path starts with
            for error in exc.errors:
                head = error.path.split(".")[0].split("[")[0]
                form.add_error(head if head in form.fields else None, error.message if head in form.fields
                               else str(error))
        else:
            dispatch_run(run)
            return redirect(run)
    runs = visible(SimulationRun.objects.select_related("platform", "workload"), request.user)[:50]
    return render(request, "scenarios/run_list.html", {"form": form, "runs": runs})


def _run(request, run_id, need=Role.VIEWER):
    return get_or_404(SimulationRun.objects.select_related("platform", "workload"), request.user, need=need,
                      pk=run_id)


def run_detail(request, run_id):
    run = _run(request, run_id)
    return render(request, "scenarios/run_detail.html", run_page(run))


def run_status(request, run_id):
    run = _run(request, run_id)
    return JsonResponse(
        {"status": run.status, "progress": round(run.progress(), 4), "error": run.error, "finished": run.is_finished}
    )


@require_POST
def run_cancel(request, run_id):
    run = _run(request, run_id, need=Role.EDITOR)
    if cancel_run(run):
        messages.info(request, "Run cancelled.")
    else:
        messages.info(request, f"The run had already {run.status}.")
    return redirect(run)


def validation(request):
    workload = request.GET.get("workload", "chiles-epoch1")
    if not Workload.objects.filter(slug=workload).exists():
        return render(request, "scenarios/validation.html", {"missing": workload}, status=404)
    report = validation_report(workload)
    sections = seed_sections(report)
    figures = {f["id"]: f["json"] for sec in sections for f in sec["figures"]}
    return render(request, "scenarios/validation.html", {"report": report, "sections": sections, "figures": figures})


# --- scenarios -------------------------------------------------------------------------------------

def _scenario(request, scenario_id, need=Role.VIEWER, *, results=True):
    """The scenario, if the user may see it; ``results=False`` leaves its saved results (up to a few MB) unread."""
    scenarios = Scenario.objects.select_related("workload", "parent", "workspace")
    return get_or_404(scenarios if results else scenarios.defer("results_cache"), request.user, need=need,
                      pk=scenario_id)


def scenario_list(request):
    scenarios = visible(Scenario.objects.select_related("workload", "workspace"), request.user).prefetch_related(
        "entries__platform", "entries__run")[:50]
    return render(request, "scenarios/scenario_list.html", {"scenarios": scenarios, "demo": services.DEMO})


def scenario_new(request):
    slug = request.POST.get("workload") or request.GET.get("workload") or services.DEMO["workload"]
    workload = get_workload(request.user, slug)
    source = None
    if request.GET.get("from") and _is_uuid(request.GET["from"]):
        source = visible(Scenario.objects.all(), request.user).filter(pk=request.GET["from"]).first()
    builder = ScenarioBuilder(request.POST or None, workload=workload, source=source, user=request.user)
    if request.method == "POST":
        scenario = builder.save(user=request.user, parent=source, workspace=editable_workspace(request))
        if scenario is not None:
            if "run" in request.POST:
                services.run_scenario(scenario, user=request.user)
            return redirect(scenario)
    return render(request, "scenarios/scenario_form.html", {
        "builder": builder, "workloads": visible_workloads(request.user), "workload": workload, "source": source,
    }, status=400 if request.method == "POST" else 200)


def _is_uuid(text: str) -> bool:
    import uuid

    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


@require_POST
def scenario_demo(request):
    try:
        scenario = services.run_scenario(
            services.create_demo_scenario(user=request.user, workspace=editable_workspace(request)), user=request.user)
    except InvalidScenario as exc:
        messages.error(request, str(exc))
        return redirect("scenarios:scenarios")
    return redirect(scenario)


def scenario_detail(request, scenario_id):
    scenario = _scenario(request, scenario_id)
    what_if_form = WhatIfForm(scenario=scenario)
    return render(request, "scenarios/scenario_detail.html", {
        **services.scenario_page(scenario), "what_if_form": what_if_form,
        "what_if_suggestions": what_if_form.suggestions()})


def scenario_recommendation(request, scenario_id):
    """JSON: the recommendation and the aggregates for the weights of the sliders (``weights``: comma-separated,
    one per criterion), as the page's own HTML so the live page reads exactly as a reload would."""
    scenario = _scenario(request, scenario_id)
    results = services.scenario_results(scenario, partial=True)  # the ranked results: the parts to come are not read
    scoring = services.result_sections(scenario, results).get("scoring")
    if results is None or not scoring or scoring.get("error") or scoring["report"].get("error"):
        return JsonResponse({"error": "this scenario has no ranked results yet"}, status=409)
    try:
        weights = [float(w) for w in request.GET.get("weights", "").split(",") if w.strip()]
    except ValueError:
        return JsonResponse({"error": "weights: comma-separated numbers, one per criterion"}, status=400)
    expected = len(scoring["weights"])
    if len(weights) != expected or any(not 0 <= w <= 1000 for w in weights) or sum(weights) <= 0:
        return JsonResponse({"error": f"weights: {expected} numbers between 0 and 1000, not all zero"}, status=400)
    context = services.answer_first(scenario, results, scoring, weights=weights, figure=False)
    return JsonResponse({
        "winners": [w["slug"] for w in context["rec"]["winners"]],
        "recommendation": render_to_string("scenarios/_recommendation.html", context, request=request),
        "methods": render_to_string("scenarios/_methods.html", context, request=request),
    })


def scenario_status(request, scenario_id):
    return JsonResponse(services.scenario_status(_scenario(request, scenario_id, results=False)))


@require_POST
def scenario_run(request, scenario_id):
    scenario = _scenario(request, scenario_id, need=Role.EDITOR)
    try:
        services.run_scenario(scenario, user=request.user)
    except InvalidScenario as exc:
        messages.error(request, f"Could not run the scenario: {exc}")
    return redirect(scenario)


@require_POST
def scenario_cancel(request, scenario_id):
    scenario = _scenario(request, scenario_id, need=Role.EDITOR)
    cancelled = services.cancel_scenario(scenario)
    messages.info(request, f"Cancelled {cancelled} run{'s' if cancelled != 1 else ''}." if cancelled
                  else "Nothing to cancel: every run had already finished.")
    return redirect(scenario)


@require_POST
def scenario_what_if(request, scenario_id):
    scenario = _scenario(request, scenario_id, need=Role.EDITOR)
    form = WhatIfForm(request.POST, scenario=scenario)
    if not form.is_valid():
        messages.error(request, "What-if not started: " + "; ".join(e for errs in form.errors.values() for e in errs))
        return redirect(scenario)
    try:
        clone = services.what_if(scenario, user=request.user, **form.edit())
        services.run_scenario(clone, user=request.user)
    except InvalidScenario as exc:
        messages.error(request, f"What-if not started: {exc}")
        return redirect(scenario)
    return redirect(f"{reverse('scenarios:compare')}?a={scenario.pk}&b={clone.pk}")


def scenario_compare(request):
    a_id, b_id = request.GET.get("a", ""), request.GET.get("b", "")
    choices = visible(Scenario.objects.only("id", "name", "change", "created_at"), request.user)[:100]
    context = {"choices": choices, "a_id": a_id, "b_id": b_id}
    if a_id and b_id:
        if not (_is_uuid(a_id) and _is_uuid(b_id)):
            context["problem"] = "Choose two scenarios from the lists."
            return render(request, "scenarios/scenario_compare.html", context, status=400)
        context.update(services.compare_scenarios(_scenario(request, a_id), _scenario(request, b_id)))
    return render(request, "scenarios/scenario_compare.html", context)
