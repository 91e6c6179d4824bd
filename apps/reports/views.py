"""Report pages: request an export from a scenario's results, watch it, cancel it, download it."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from apps.accounts.workspaces import Role, get_or_404
from apps.core.storage import NotInStorage, download_response
from apps.reports.models import Report
from apps.reports.services import REPORT_NOT_IN_STORAGE, InvalidReport, cancel_report, report_status, request_report
from apps.scenarios.models import Scenario


@require_POST
def report_request(request, scenario_id):
    scenario = get_or_404(Scenario.objects.all(), request.user, need=Role.EDITOR, pk=scenario_id)
    try:
        report = request_report(scenario, request.POST.get("format", ""), user=request.user)
    except InvalidReport as exc:
        messages.error(request, f"Cannot export the report: {exc}")
        return redirect(scenario)
    return redirect(report)


def _report(request, report_id, need=Role.VIEWER) -> Report:
    return get_or_404(Report.objects.select_related("scenario"), request.user, need=need,
                      field="scenario__workspace", pk=report_id)


def report_detail(request, report_id):
    report = _report(request, report_id)
    return render(request, "reports/detail.html", {"report": report, "state": report_status(report)})


def report_status_json(request, report_id):
    return JsonResponse(report_status(_report(request, report_id)))


@require_POST
def report_cancel(request, report_id):
    report = _report(request, report_id, need=Role.EDITOR)
    if cancel_report(report):
        messages.info(request, "Report cancelled.")
    else:
        messages.info(request, f"The report had already {report.status}.")
    return redirect(report)


def report_download(request, report_id):
    report = _report(request, report_id)
    if report.status != Report.Status.SUCCEEDED or not report.file:
        raise Http404("this report has no file (it is not finished, failed or was cancelled)")
    try:
        return download_response(report.file.name, report.download_name(), report.content_type)
    except NotInStorage:
        raise Http404(REPORT_NOT_IN_STORAGE) from None
