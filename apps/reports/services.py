"""Report workflows: request an export (queued for a worker), generate it with progress, cancel, export
directly (the command line).  Each owns its transaction; a report's file is saved only when it is whole."""

from __future__ import annotations

import socket
import time
from pathlib import Path

from django.core.files.base import ContentFile
from django.db import InterfaceError, OperationalError, transaction
from django.utils import timezone

from apps.core.jobs import JobCancelled, Progress, TrackedJobs
from apps.core.jobs import cancel as cancel_job
from apps.core.jobs import dispatch as dispatch_job
from apps.core.models import JOB_FINISHED
from apps.reports.document import ReportNotReady, build_document
from apps.reports.models import FORMATS, Report
from apps.reports.render import RenderError, render

__all__ = ["InvalidReport", "REPORT_NOT_IN_STORAGE", "request_report", "generate_report", "cancel_report", "export_report", "report_status",
           "ReportJobs", "REPORT_JOBS"]

Status = Report.Status


#: a succeeded report whose file is not in the store the web server reads: removed since, or the web server and the
#: worker that wrote it are set up with different stores (asking again cannot help until that is fixed)
REPORT_NOT_IN_STORAGE = ("the report's file is not in storage: it was removed since it was made, or the web server "
                         "and the worker that made it use different stores (README: Several hosts), which an "
                         "administrator must fix before a new report can be downloaded")


class InvalidReport(ValueError):
    """The report cannot be requested; the message names the field and why."""


def _check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise InvalidReport(f"format: {fmt!r} is not one of {', '.join(FORMATS)}")
    return fmt


def request_report(scenario, fmt: str, user=None) -> Report:
    """Queue the export of ``scenario`` as ``fmt`` on a worker; refuses a scenario with nothing to report yet."""
    _check_format(fmt)
    state = scenario.status()
    if state in ("draft", "running"):
        raise InvalidReport(f"scenario: it is {state}; run it to the end before exporting a report")
    with transaction.atomic():
        report = Report.objects.create(scenario=scenario, format=fmt, created_by=user)
        transaction.on_commit(lambda: _dispatch(report))
    return report


def _dispatch(report: Report) -> None:
    dispatch_job(REPORT_JOBS, report)


class ReportJobs(TrackedJobs):
    """Reports as the job lifecycle sees them (registered in apps.reports.apps)."""

    label = "report"
    model = Report
    task_name = "reports.generate"

    def describe(self, report) -> str:
        return f"the {report.get_format_display()} report"

    def fail(self, report, reason: str) -> bool:
        return bool(Report.objects.filter(pk=report.pk, status=report.status, task_id=report.task_id).update(
            status=Status.FAILED, error=reason, stage="", finished_at=timezone.now()))


REPORT_JOBS = ReportJobs()


def generate_report(report_id, worker: str = "", task_id: str | None = None) -> str:
    """Build the document, render it and save the file on worker node ``worker``; returns the final status.
    Idempotent: a report that already finished is left as it is, and a task ``task_id`` the report no longer names
    does nothing.  A database error propagates (the task retries it)."""
    with transaction.atomic():
        report = Report.objects.select_for_update().select_related("scenario").get(pk=report_id)
        if not REPORT_JOBS.start(report, worker or socket.gethostname(), task_id, stage="collecting results"):
            return report.status
    progress = Progress(Report, report.pk, interval_s=0.0, extra=lambda done, total: {"stage": stages[done]})
    stages = {1: "collecting results, scores and provenance", 4: f"rendering {report.get_format_display()}",
              9: "saving"}
    try:
        progress(1, 10)
        doc = build_document(report.scenario)
        progress(4, 10)
        content = render(doc, report.format)
        progress(9, 10)
    except JobCancelled:
        return Report.objects.values_list("status", flat=True).get(pk=report.pk)
    except (ReportNotReady, RenderError) as exc:
        return _fail(report.pk, str(exc))
    except (OperationalError, InterfaceError):
        raise  # the database went away: the task retries once it is back
    except Exception as exc:  # noqa: BLE001 - the report must end failed with a reason, never stuck
        return _fail(report.pk, f"{type(exc).__name__}: {exc}")
    with transaction.atomic():
        locked = Report.objects.select_for_update().get(pk=report.pk)
        if locked.status != Status.RUNNING:
            return locked.status
        locked.file.save(locked.download_name(), ContentFile(content), save=False)
        locked.size_bytes = len(content)
        locked.status, locked.progress, locked.stage, locked.finished_at = Status.SUCCEEDED, 1.0, "", timezone.now()
        locked.save(update_fields=["file", "size_bytes", "status", "progress", "stage", "finished_at"])
    return Status.SUCCEEDED


def _fail(report_pk, reason: str) -> str:
    Report.objects.filter(pk=report_pk).exclude(status__in=JOB_FINISHED).update(
        status=Status.FAILED, error=reason, stage="", finished_at=timezone.now())
    return Status.FAILED


def cancel_report(report: Report) -> bool:
    """Cancel a queued or running report; returns False when it had already finished."""
    return cancel_job(report, stage="")


def report_status(report: Report) -> dict:
    """JSON-safe status for polling."""
    return {"id": str(report.pk), "format": report.format, "status": report.status,
            "progress": round(report.progress, 4), "stage": report.stage, "error": report.error,
            "finished": report.is_finished, "size_bytes": report.size_bytes,
            "download_url": f"{report.get_absolute_url()}download/" if report.status == Status.SUCCEEDED else ""}


def export_report(scenario, fmt: str, path: Path) -> dict:
    """Write the report straight to ``path`` (the command line; no worker).  Returns what was written.
    Nothing is written when it fails."""
    _check_format(fmt)
    started = time.monotonic()
    doc = build_document(scenario)
    content = render(doc, fmt)
    path = Path(path)
    tmp = path.with_name(path.name + ".part")
    tmp.write_bytes(content)
    tmp.replace(path)
    return {"scenario": str(scenario.pk), "format": fmt, "path": str(path), "bytes": len(content),
            "recommendation": doc["recommendation"]["platform"], "seconds": round(time.monotonic() - started, 3)}
