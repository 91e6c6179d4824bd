"""Profile pages: upload (browser and JSON), import progress and cancel, a profile's analysis, calibration."""

from __future__ import annotations

import json

from django.contrib import messages
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import filesizeformat
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_POST

from apps.accounts.workspaces import Role, editable_workspace, get_or_404, require_catalogue_maintainer, visible
from apps.core.storage import NotInStorage, download_response
from apps.platforms.services import require_platform_editor, visible_platforms
from apps.profiles import charts, services
from apps.profiles.analysis import BOUND_LABELS
from apps.profiles.forms import CalibrateForm, TierForm, UploadForm
from apps.profiles.models import Calibration, Profile, ProfileImport, TierMeasurement
from apps.profiles.uploads import max_upload_bytes, store_uploads


def _wants_json(request) -> bool:
    return "application/json" in request.headers.get("Accept", "")


@csrf_exempt
def profile_list(request):
    """The profile list and the upload form; uploads stream into the store as they arrive, through the size limit
    (what the form then refuses is removed from the store)."""
    if request.method != "POST":
        return _profile_list(request)
    with store_uploads(request):
        return _profile_list(request)


@csrf_protect
def _profile_list(request):
    workspace = editable_workspace(request) if request.method == "POST" else None
    form = UploadForm(request.POST or None, request.FILES or None, user=request.user)
    too_large = getattr(request, "too_large", [])
    if request.method == "POST":
        jobs, errors = [], [f"{name}: larger than the {filesizeformat(max_upload_bytes())} limit" for name in too_large]
        if form.is_valid():
            for f in form.cleaned_data["files"]:
                jobs.append(_start_import(request, f, form.cleaned_data, workspace))
        elif not too_large:
            errors += [f"{k}: {' '.join(v)}" for k, v in form.errors.items()]
        if _wants_json(request):
            return JsonResponse({"imports": [{"id": str(j.pk), "filename": j.filename, "url": j.get_absolute_url()}
                                             for j in jobs], "errors": errors}, status=202 if jobs else 400)
        for e in errors:
            messages.error(request, e)
        if len(jobs) == 1 and not errors:
            return redirect(jobs[0])
        if jobs:
            messages.info(request, f"{len(jobs)} files are being imported.")
            return redirect("profiles:list")
    context = {
        "form": form,
        "profiles": visible(Profile.objects.select_related("platform", "stage__workload"), request.user)[:100],
        "imports": visible(ProfileImport.objects.exclude(status="succeeded"), request.user)[:20],
        "max_bytes": max_upload_bytes(),
    }
    return render(request, "profiles/list.html", context, status=400 if request.method == "POST" else 200)


def _start_import(request, uploaded, data, workspace) -> ProfileImport:
    rel, size = services.store_upload(uploaded, uploaded.name)
    job = services.create_import(upload_path=rel, filename=uploaded.name, size_bytes=size, fmt=data["format"],
                                 user=request.user, platform=data.get("platform"), stage=data.get("stage"),
                                 workspace=workspace)
    services.dispatch_import(job)
    return job


def _job(request, job_id, need=Role.VIEWER) -> ProfileImport:
    return get_or_404(ProfileImport.objects.all(), request.user, need=need, pk=job_id)


def _profile(request, profile_id, need=Role.VIEWER) -> Profile:
    return get_or_404(Profile.objects.select_related("platform", "stage__workload"), request.user, need=need,
                      pk=profile_id)


def import_detail(request, job_id):
    job = _job(request, job_id)
    if job.profile_id and job.status == "succeeded" and not _wants_json(request):
        return redirect(job.profile)
    return render(request, "profiles/import.html", {"job": job})


def import_status(request, job_id):
    job = _job(request, job_id)
    return JsonResponse({"status": job.status, "progress": round(job.progress, 4), "error": job.error,
                         "error_line": job.error_line, "finished": job.is_finished,
                         "profile_url": job.profile.get_absolute_url() if job.profile_id else None})


@require_POST
def import_cancel(request, job_id):
    job = _job(request, job_id, need=Role.EDITOR)
    if services.cancel_import(job):
        messages.info(request, f"Import of {job.filename} cancelled.")
    else:
        messages.info(request, f"The import had already {job.status}.")
    return redirect(job)


def profile_detail(request, profile_id):
    profile = _profile(request, profile_id)
    figures = {name: json.loads(fig) for name, fig in charts.profile_figures(profile.analysis).items()}
    context = {
        "profile": profile, "a": profile.analysis, "s": profile.summary, "figures": figures,
        "bound_labels": BOUND_LABELS, "class_labels": charts.CLASS_LABELS,
        "calibrate_form": (CalibrateForm(profile=profile, user=request.user)
                           if profile.kind != Profile.Kind.FIO else None),
        "tier_form": (TierForm(initial={"host": profile.host}, user=request.user)
                      if profile.kind == Profile.Kind.FIO else None),
        "calibrations": visible(profile.calibrations.select_related("stage__workload", "platform"), request.user),
        "measurements": profile.tier_measurements.filter(tier__platform__in=visible_platforms(request.user))
        .select_related("tier__platform"),
    }
    return render(request, "profiles/detail.html", context)


def profile_file(request, profile_id):
    """The profile's file as it was uploaded (or kept by a benchmark), streamed from the store."""
    profile = _profile(request, profile_id)
    if not profile.file:
        raise Http404("this profile keeps no file")
    try:
        return download_response(profile.file, profile.name)
    except NotInStorage:
        raise Http404(services.PROFILE_FILE_NOT_IN_STORAGE) from None


@require_POST
def profile_calibrate(request, profile_id):
    profile = _profile(request, profile_id, need=Role.EDITOR)
    form = CalibrateForm(request.POST, profile=profile, user=request.user)
    if form.is_valid():
        d = form.cleaned_data
        companion = d.get("companion")
        if companion is not None:  # the companion must be one the user may use too
            companion = _profile(request, companion.pk, need=Role.EDITOR)
        chosen = [profile] + ([companion] if companion else [])
        try:
            cal = services.calibrate(profiles=chosen, stage=d["stage"], platform=d["platform"],
                                     node_type=d["node_type"] or None, tier=d["storage_tier"] or None, user=request.user)
        except services.InvalidRequest as exc:
            messages.error(request, f"Calibration: {exc}")
        else:
            return redirect(cal)
    else:
        messages.error(request, "Calibration: " + "; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items()))
    return redirect(profile)


def calibration_detail(request, cal_id):
    cal = get_or_404(Calibration.objects.select_related("stage__workload", "platform"), request.user, pk=cal_id)
    rows = [{"name": k, "before": cal.before.get(k), "after": cal.demands.get(k), "note": cal.notes.get(k, "")}
            for k in cal.demands]
    figure = json.loads(charts.calibration_figure(cal.measured_s, cal.simulated_before_s, cal.simulated_after_s))
    return render(request, "profiles/calibration.html", {"cal": cal, "rows": rows, "figure": figure,
                                                         "profiles": cal.profiles.all()})


@require_POST
def calibration_apply(request, cal_id):
    cal = get_or_404(Calibration.objects.all(), request.user, pk=cal_id)
    require_catalogue_maintainer(request.user)
    services.apply_calibration(cal)
    messages.info(request, f"Applied the derived demands to {cal.stage}.")
    return redirect(cal)


@require_POST
def profile_measure_tier(request, profile_id):
    profile = _profile(request, profile_id)
    form = TierForm(request.POST, user=request.user)
    tier = form.cleaned_data["tier"] if form.is_valid() else None
    if tier is None or tier.platform.is_reference:
        require_catalogue_maintainer(request.user)
    else:  # a tier of a workspace's copy: its editors
        require_platform_editor(request.user, tier.platform)
    if not form.is_valid():
        messages.error(request, "; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items()))
        return redirect(profile)
    try:
        m = services.measure_tier(profile, form.cleaned_data["tier"], host=form.cleaned_data["host"], user=request.user)
        services.apply_tier_measurement(m)
    except services.InvalidRequest as exc:
        messages.error(request, str(exc))
        return redirect(profile)
    messages.info(request, f"{m.tier}: " + ", ".join(f"{k} = {v:.4g}" for k, v in m.values.items())
                  + f" (measured on host {m.host} at {m.date} with fio).")
    for warning in m.warnings():
        messages.warning(request, f"{m.tier}: {warning}")
    return redirect(profile)


def measurement_list(request):
    rows = visible(TierMeasurement.objects.filter(tier__platform__in=visible_platforms(request.user))
                   .select_related("tier__platform", "profile"), request.user, field="profile__workspace")[:100]
    return render(request, "profiles/measurements.html", {"rows": rows})
