"""Pages: the active workspace's observed runs and calibrations, and one calibration's result."""

from __future__ import annotations

from django.shortcuts import render

from apps.accounts.workspaces import active_workspace, get_or_404
from apps.calibration.models import CalibrationJob, Observation
from apps.core.provenance import describe_source

__all__ = ["calibration_list", "calibration_detail"]


def calibration_list(request):
    workspace = active_workspace(request)
    observations = list(Observation.objects.filter(workspace=workspace).select_related("workload", "platform")[:500])
    for o in observations:
        o.source_text = describe_source(o.source)
    return render(request, "calibration/list.html", {
        "workspace": workspace,
        "observations": observations,
        "calibrations": CalibrationJob.objects.filter(workspace=workspace).select_related("workload")[:50],
    })


def calibration_detail(request, calibration_id):
    job = get_or_404(CalibrationJob.objects.select_related("workload", "workspace"), request.user, pk=calibration_id)
    return render(request, "calibration/detail.html", {"job": job, "result": job.result or {}})
