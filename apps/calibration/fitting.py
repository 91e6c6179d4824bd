"""Calibration jobs: a fit of a workload's demands to the workspace's observed runs, run by a Celery task with the
one job lifecycle (progress, cancel that stops the fit at its next simulation, lost-worker sweep)."""

from __future__ import annotations

import logging
import math
import socket

from django.db import InterfaceError, OperationalError, transaction
from django.utils import timezone

from apps.accounts.models import Workspace
from apps.calibration.models import CalibrationJob, Observation
from apps.calibration.services import InvalidObservation, usable
from apps.core.fields import clean_quantity
from apps.core.jobs import JobCancelled, TrackedJobs
from apps.core.jobs import cancel as cancel_job
from apps.core.jobs import dispatch as dispatch_job
from apps.core.models import JobStatus
from apps.scenarios.adapters import platform_spec, workload_spec
from apps.scenarios.validation import default_scenario, store_fitted
from apps.workloads.models import Workload
from simulator.model.calibration import FITTABLE_STAGE_FIELDS, Demand, demand_value, fit_demands, scenario_predictor
from simulator.model.catalogue import Observation as ObservedValue

__all__ = ["CALIBRATION_JOBS", "MAX_DEMANDS", "MAX_OBSERVATIONS", "create_calibration", "execute_calibration",
           "cancel_calibration"]

log = logging.getLogger(__name__)

#: values one calibration may fit at most (each costs up to MAX_EVALUATIONS_PER_VALUE simulations of every marked run)
MAX_DEMANDS = 4
#: observations one calibration may use at most
MAX_OBSERVATIONS = 50
_DIMENSION = {"s": "time", "B": "bytes", "ops": "scalar"}


class CalibrationJobs(TrackedJobs):
    """Calibrations as the job lifecycle sees them (registered in apps.calibration.apps)."""

    label = "calibration"
    model = CalibrationJob
    task_name = "calibration.fit"

    def describe(self, job) -> str:
        return f"the calibration of {job.workload.slug}"


CALIBRATION_JOBS = CalibrationJobs()


def _bound(value, demand: str, which: str, dimension: str | None, errors: list[str]) -> float | None:
    if isinstance(value, bool):
        value = None
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    if isinstance(value, str) and dimension:
        try:
            return clean_quantity(value, dimension=dimension, minimum=0.0)
        except ValueError as exc:
            errors.append(f"{demand}: {which}: {exc}")
            return None
    errors.append(f"{demand}: {which}: a number in base units" + (f" or a value with a unit (dimension {dimension})"
                                                                   if dimension else ""))
    return None


def _observations(workspace: Workspace, workload: Workload):
    return list(Observation.objects.filter(workspace=workspace, workload=workload).select_related("platform")
                .order_by("created_at", "pk"))


def create_calibration(workspace: Workspace, workload_slug: str, demands: object, *, apply: bool = False,
                       user=None) -> CalibrationJob:
    """Check a calibration request and save it queued (nothing saved when refused: InvalidObservation naming the
    fields).  ``demands``: a list of ``{name, lower, upper}``, ``name`` a stage's per-task demand
    ``<stage>.<field>`` or a numeric workload parameter, bounds as numbers in base units or (for a stage's demand)
    values with a unit."""
    errors: dict[str, list[str]] = {}
    workload = usable(Workload.objects.prefetch_related("stages"), "workload", workload_slug, workspace, user, errors)
    if workload is None:
        raise InvalidObservation(errors)
    spec = workload_spec(workload)
    clean: list[dict] = []
    problems: list[str] = []
    if not isinstance(demands, list) or not demands:
        problems.append("a list of {name, lower, upper}: at least one value to fit")
    elif len(demands) > MAX_DEMANDS:
        problems.append(f"at most {MAX_DEMANDS} values in one calibration")
    else:
        for i, d in enumerate(demands):
            if not isinstance(d, dict) or not isinstance(d.get("name"), str) or set(d) - {"name", "lower", "upper"}:
                problems.append(f"[{i}]: an object {{name, lower, upper}}")
                continue
            name = d["name"][:120]
            field = name.split(".", 1)[1] if "." in name else ""
            dimension = _DIMENSION.get(FITTABLE_STAGE_FIELDS.get(field, ""))
            lower = _bound(d.get("lower", 0.0), name, "lower", dimension, problems)
            upper = _bound(d.get("upper"), name, "upper", dimension, problems)
            try:
                demand_value(spec, Demand(name))
            except ValueError as exc:
                problems.append(str(exc).removeprefix("demands: "))
                continue
            if lower is not None and upper is not None:
                if not 0 <= lower < upper:
                    problems.append(f"{name}: the lower bound must be at least 0 and below the upper bound")
                clean.append({"name": name, "lower": lower, "upper": upper})
        if len({d["name"] for d in clean}) != len(clean):
            problems.append("each value once")
    if problems:
        errors["demands"] = problems
    observed = _observations(workspace, workload)
    marked = [o for o in observed if o.use_for_fitting]
    if len(observed) > MAX_OBSERVATIONS:
        errors["workload"] = [f"at most {MAX_OBSERVATIONS} observations of a workload in one calibration; this "
                              f"workspace has {len(observed)}"]
    elif not problems and len(marked) < len(clean):
        errors["workload"] = [f"fitting {len(clean)} value(s) needs at least as many observations of "
                              f"{workload.slug!r} marked for fitting in this workspace; found {len(marked)}"]
    if apply and workload.workspace_id != workspace.pk:
        errors["apply"] = [f"{workload.slug!r} is the reference catalogue's: copy it into this workspace to store "
                           "fitted values in it (the result stays on the calibration either way)"]
    if errors:
        raise InvalidObservation(errors)
    return CalibrationJob.objects.create(workspace=workspace, workload=workload, demands=clean, apply=bool(apply),
                                         created_by=user)


def dispatch_calibration(job: CalibrationJob) -> None:
    dispatch_job(CALIBRATION_JOBS, job)


def cancel_calibration(job: CalibrationJob) -> bool:
    """Cancel a queued or running calibration: the fit stops at its next progress report (between simulations)."""
    return cancel_job(job)


def _result(fit, observed: dict[str, Observation]) -> dict:
    return {
        "fitted": [{"name": f.name, "value": f.value, "unit": f.unit, "method": f.method, "sources": f.sources}
                   for f in fit.fitted],
        "predictions": [{"observation": int(p.key), "label": observed[p.key].label, "quantity": p.quantity,
                         "platform": p.platform, "observed_s": p.observed, "predicted_s": p.predicted,
                         "error_pct": p.error_pct, "in_sample": p.in_sample, "error": p.error}
                        for p in fit.predictions],
        "evaluations": fit.evaluations, "cost": fit.cost, "at_bound": list(fit.at_bound),
    }


def execute_calibration(job_id, worker: str = "", task_id: str | None = None) -> str:
    """Run one calibration; returns its final status.  Safe to call twice; a task ``job_id`` no longer names does
    nothing.  A fit the observations cannot make ends failed with the reason; a cancel stops it (the fitter's
    progress callback raises between simulations)."""
    with transaction.atomic():
        job = CalibrationJob.objects.select_for_update().get(pk=job_id)
        if not CALIBRATION_JOBS.start(job, worker or socket.gethostname(), task_id):
            return job.status
    try:
        workload = Workload.objects.prefetch_related("stages").get(pk=job.workload_id)
        rows = _observations(job.workspace, workload)
        by_key = {str(o.pk): o for o in rows}
        platforms = {o.platform.slug: platform_spec(o.platform) for o in rows}
        runs = [ObservedValue(key=str(o.pk), quantity=o.quantity + (f":{o.stage}" if o.stage else ""),
                              platform=o.platform.slug, value=o.value, unit="s", workload=workload.slug,
                              where=o.label, fit="fit" if o.use_for_fitting else "") for o in rows]
        scenarios = {slug: (lambda w, p=p: default_scenario(p, w)) for slug, p in platforms.items()}
        demands = [Demand(d["name"], d["lower"], d["upper"]) for d in job.demands]
        fit = fit_demands(workload_spec(workload), demands, runs, scenario_predictor(scenarios),
                          progress=CALIBRATION_JOBS.progress(job))
        result = _result(fit, by_key)
        with transaction.atomic():
            job = CalibrationJob.objects.select_for_update().get(pk=job.pk)
            if job.status != JobStatus.RUNNING:  # cancelled (or ended by a sweep) as the fit finished: keep that
                return job.status
            if job.apply:
                store_fitted(Workload.objects.select_for_update().prefetch_related("stages").get(pk=workload.pk),
                             fit.fitted)
                job.applied = True
            job.result, job.status, job.progress, job.finished_at = result, JobStatus.SUCCEEDED, 1.0, timezone.now()
            job.save(update_fields=["result", "status", "progress", "finished_at", "applied"])
        return JobStatus.SUCCEEDED
    except JobCancelled:
        log.warning("calibration %s stopped during the fit: it no longer runs (%s)", job.pk,
                    CalibrationJob.objects.values_list("status", flat=True).get(pk=job.pk))
    except ValueError as exc:
        _finish(job, error=str(exc))
    except (OperationalError, InterfaceError):
        raise
    except Exception as exc:  # a simulator bug must not leave the job running forever
        log.exception("calibration %s failed", job.pk)
        _finish(job, error=f"the fit could not be made (an internal error, logged as {type(exc).__name__})")
    return CalibrationJob.objects.values_list("status", flat=True).get(pk=job.pk)


def _finish(job: CalibrationJob, *, error: str) -> None:
    CalibrationJob.objects.filter(pk=job.pk, status=JobStatus.RUNNING).update(
        status=JobStatus.FAILED, error=error[:2000], finished_at=timezone.now())
