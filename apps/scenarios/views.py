"""Simulation-run pages: start, watch (progress, cancel), results; the model validation page."""

from __future__ import annotations

from django.contrib import messages
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from apps.scenarios.forms import RunForm
from apps.scenarios.models import SimulationRun
from apps.scenarios.services import InvalidScenario, cancel_run, create_run, dispatch_run, run_page
from apps.scenarios.validation import validation_report
from apps.workloads.models import Workload


def run_list(request):
    form = RunForm(request.POST or None, initial=request.GET.dict() or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            run = create_run(
                platform=data["platform"], workload=data["workload"], options=data["options"], seed=data["seed"],
                replications=data["replications"], user=request.user,
            )
        except InvalidScenario as exc:
            form.add_error("options", str(exc))
        else:
            dispatch_run(run)
            return redirect(run)
    runs = SimulationRun.objects.select_related("platform", "workload")[:50]
    return render(request, "scenarios/run_list.html", {"form": form, "runs": runs})


def run_detail(request, run_id):
    run = get_object_or_404(SimulationRun.objects.select_related("platform", "workload"), pk=run_id)
    return render(request, "scenarios/run_detail.html", run_page(run))


def run_status(request, run_id):
    run = get_object_or_404(SimulationRun, pk=run_id)
    return JsonResponse(
        {"status": run.status, "progress": round(run.progress(), 4), "error": run.error, "finished": run.is_finished}
    )


@require_POST
def run_cancel(request, run_id):
    run = get_object_or_404(SimulationRun, pk=run_id)
    if cancel_run(run):
        messages.info(request, "Run cancelled.")
    else:
        messages.info(request, f"The run had already {run.status}.")
    return redirect(run)


def validation(request):
    workload = request.GET.get("workload", "chiles-epoch1")
    if not Workload.objects.filter(slug=workload).exists():
        return render(request, "scenarios/validation.html", {"missing": workload}, status=404)
    return render(request, "scenarios/validation.html", {"report": validation_report(workload)})
