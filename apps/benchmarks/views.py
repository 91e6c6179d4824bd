"""Benchmark pages: request (to a worker on the platform's queue), watch, cancel, apply results."""

from __future__ import annotations

from django.contrib import messages
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from apps.accounts.workspaces import Role, editable_workspace, get_or_404, require_catalogue_maintainer, visible
from apps.benchmarks import charts, services
from apps.benchmarks.comparison import input_rows, stage_rows
from apps.benchmarks.forms import ApplyForm, BenchmarkForm
from apps.benchmarks.hostplatform import platform_from_host
from apps.benchmarks.models import BenchmarkRun
from apps.platforms.models import Platform
from apps.platforms.services import require_platform_editor


def run_list(request):
    form = BenchmarkForm(request.POST or None, initial=request.GET.dict() or None, user=request.user)
    workspace = editable_workspace(request) if request.method == "POST" else None
    if request.method == "POST" and form.is_valid():
        try:
            run = services.create_benchmark(platform=form.cleaned_data["platform"], kind=form.cleaned_data["kind"],
                                            parameters=form.parameters(), user=request.user,
                                            workspace=workspace)
        except services.InvalidBenchmark as exc:
            field, _, message = str(exc).partition(": ")
            name = field.split(".")[-1]
            form.add_error(name if name in form.fields else None, message or str(exc))
        else:
            services.dispatch(run)
            if run.platform.slug not in services.live_bench_platforms():
                messages.warning(request, _no_host(run))
            return redirect(run)
    services.fail_lost_runs(min_interval_s=10.0)
    runs = visible(BenchmarkRun.objects.select_related("platform"), request.user)[:50]
    return render(request, "benchmarks/list.html",
                  {"form": form, "runs": runs, "hosts": services.hosts_online(),
                   "live": Platform.objects.filter(slug__in=services.live_bench_platforms()).order_by("name")})


def _no_host(run: BenchmarkRun) -> str:
    return (f"No live worker serves {run.platform.name} (queue {run.queue}): the benchmark stays queued until a worker "
            f"starts on one of its hosts.")


def _parameters(run: BenchmarkRun) -> list[tuple[str, object]]:
    """The run's parameters under the request form's labels, in the form's order."""
    fields = BenchmarkForm.base_fields
    return [(fields[k].label or k.replace("_", " ").capitalize() if k in fields else k, v)
            for k, v in sorted(run.parameters.items(), key=lambda kv: list(fields).index(kv[0])
                               if kv[0] in fields else len(fields))]


def _run(request, run_id, need=Role.VIEWER) -> BenchmarkRun:
    return get_or_404(BenchmarkRun.objects.select_related("platform"), request.user, need=need, pk=run_id)


def run_detail(request, run_id):
    run = _run(request, run_id)
    if not run.is_finished and services.fail_lost_runs(run, min_interval_s=10.0):
        run.refresh_from_db()
    return render(request, "benchmarks/detail.html", {
        "run": run, "parameters": _parameters(run),
        "no_host": _no_host(run) if run.status == "queued" and run.platform.slug not in services.live_bench_platforms()
        else "", "values": run.measured_values.all(), "apply_form": ApplyForm(platform=run.platform),
        "figure": charts.figure_for(run),
        "comparison_rows": stage_rows(run.result) if run.kind == "minipipeline" and run.result else [],
        "input_rows": input_rows(run.result) if run.kind == "minipipeline" and run.result else [],
        "profile_imports": services.profile_imports(run),
    })


def run_status(request, run_id):
    run = _run(request, run_id)
    if not run.is_finished and services.fail_lost_runs(run, min_interval_s=10.0):
        run.refresh_from_db()
    return JsonResponse({"status": run.status, "progress": round(1.0 if run.status == "succeeded" else run.progress, 4),
                         "error": run.error, "finished": run.is_finished})


@require_POST
def run_cancel(request, run_id):
    run = _run(request, run_id, need=Role.EDITOR)
    messages.info(request, "Benchmark cancelled." if services.cancel(run) else f"The benchmark had already {run.status}.")
    return redirect(run)


@require_POST
def run_apply(request, run_id):
    run = _run(request, run_id)
    if run.platform.is_reference:
        require_catalogue_maintainer(request.user)
    else:  # a workspace's copy: its editors
        require_platform_editor(request.user, run.platform)
    form = ApplyForm(request.POST, platform=run.platform)
    if not form.is_valid():
        messages.error(request, "Choose one of this platform's storage tiers.")
        return redirect(run)
    try:
        changed = services.apply_to_tier(run, form.cleaned_data["tier"])
    except services.InvalidBenchmark as exc:
        messages.error(request, str(exc))
    else:
        messages.info(request, f"Set {', '.join(changed)} of {form.cleaned_data['tier'].name} from this benchmark.")
    return redirect(run)


@require_POST
def run_new_platform(request, run_id):
    """A new platform, in the active workspace, from the run's host and measured storage."""
    run = _run(request, run_id)
    workspace = editable_workspace(request)
    try:
        platform = platform_from_host(run, workspace, request.user)
    except ValueError as exc:
        messages.error(request, str(exc))
        return redirect(run)
    messages.success(request, f"Platform {platform.name} created in {workspace.name} from this host's measurements.")
    return redirect(platform)
