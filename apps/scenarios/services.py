"""Simulation-run workflows: create (validating inputs), dispatch, execute a replication, finalise, cancel.

Celery tasks call these; each owns its transaction.  Replications write their own
rows idempotently, and whichever finishes last computes the run's summary.
"""

from __future__ import annotations

import socket
import time
from dataclasses import asdict

from django.db import transaction
from django.utils import timezone

from apps.scenarios.adapters import platform_dict, scenario_from_inputs, workload_dict
from apps.scenarios.models import FINISHED, Replication, SimulationRun, Status
from simulator.model.simulate import replication_seed, simulate, summarise

__all__ = [
    "InvalidScenario", "RunCancelled", "create_run", "dispatch_run", "execute_replication", "cancel_run", "run_page",
]

#: how often a running replication writes its progress and looks for a cancel (seconds)
PROGRESS_INTERVAL_S = 0.5


class InvalidScenario(ValueError):
    """The options do not make a runnable scenario; the message says which field and why."""


class RunCancelled(Exception):
    """Raised inside a replication when its run was cancelled."""


def create_run(*, platform, workload, options=None, seed=0, replications=1, user=None, label="") -> SimulationRun:
    """Snapshot the inputs, check they build a scenario, and save a queued run with its replications."""
    if replications < 1 or replications > 1000:
        raise InvalidScenario("replications: must be between 1 and 1000")
    inputs = {"platform": platform_dict(platform), "workload": workload_dict(workload), "options": options or {}}
    try:
        scenario_from_inputs(inputs, seed)
    except (KeyError, ValueError, TypeError) as exc:
        raise InvalidScenario(str(exc).strip("'\"")) from None
    with transaction.atomic():
        run = SimulationRun.objects.create(
            platform=platform, workload=workload, options=options or {}, seed=seed, replications=replications,
            inputs=inputs, created_by=user, label=label or f"{workload.name} on {platform.name}",
        )
        Replication.objects.bulk_create(
            Replication(run=run, index=i, seed=replication_seed(seed, i)) for i in range(replications)
        )
    return run


def dispatch_run(run: SimulationRun) -> None:
    """Send one Celery task per replication (more workers finish sooner)."""
    from apps.scenarios.tasks import run_replication

    for rep in run.replication_set.all():
        result = run_replication.delay(str(run.id), rep.index)
        Replication.objects.filter(pk=rep.pk).update(task_id=result.id)


def execute_replication(run_id: str, index: int) -> str:
    """Run one replication; returns its final status.  Safe to call twice (idempotent)."""
    with transaction.atomic():
        run = SimulationRun.objects.select_for_update().get(pk=run_id)
        rep = run.replication_set.select_for_update().get(index=index)
        if run.is_finished or rep.status in FINISHED:
            return rep.status
        now = timezone.now()
        if run.status == Status.QUEUED:
            run.status, run.started_at = Status.RUNNING, now
            run.save(update_fields=["status", "started_at"])
        rep.status, rep.started_at, rep.worker = Status.RUNNING, now, socket.gethostname()
        rep.save(update_fields=["status", "started_at", "worker"])

    scenario = scenario_from_inputs(run.inputs, rep.seed)
    try:
        result = simulate(scenario, seed=rep.seed, progress=_progress_writer(run.pk, rep.pk))
    except RunCancelled:
        Replication.objects.filter(pk=rep.pk).update(status=Status.CANCELLED, finished_at=timezone.now())
        return Status.CANCELLED
    except Exception as exc:  # noqa: BLE001 - the run must end 'failed' with a reason, never stuck
        _fail(run.pk, rep.pk, f"{type(exc).__name__}: {exc}")
        return Status.FAILED
    saved = Replication.objects.filter(pk=rep.pk, status=Status.RUNNING).update(
        status=Status.SUCCEEDED, progress=1.0, result=_jsonable(result), finished_at=timezone.now()
    )
    if not saved:  # cancelled while the last step ran
        Replication.objects.filter(pk=rep.pk).update(finished_at=timezone.now())
        return Status.CANCELLED
    _finalise_if_complete(run.pk)
    return Status.SUCCEEDED


def _progress_writer(run_pk, rep_pk):
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] < PROGRESS_INTERVAL_S:
            return
        last[0] = now
        fraction = min(done / total, 0.99) if total else 0.0
        Replication.objects.filter(pk=rep_pk).update(progress=fraction)
        if SimulationRun.objects.filter(pk=run_pk, status=Status.CANCELLED).exists():
            raise RunCancelled()

    return progress


def _jsonable(result) -> dict:
    return result.to_dict() if hasattr(result, "to_dict") else asdict(result)


def _fail(run_pk, rep_pk, reason: str) -> None:
    with transaction.atomic():
        Replication.objects.filter(pk=rep_pk).update(status=Status.FAILED, error=reason, finished_at=timezone.now())
        SimulationRun.objects.filter(pk=run_pk).exclude(status__in=FINISHED).update(
            status=Status.FAILED, error=reason, finished_at=timezone.now()
        )


def _finalise_if_complete(run_pk) -> None:
    with transaction.atomic():
        run = SimulationRun.objects.select_for_update().get(pk=run_pk)
        if run.is_finished:
            return
        reps = list(run.replication_set.all())
        if any(r.status != Status.SUCCEEDED for r in reps):
            return
        run.results = asdict(summarise([r.result for r in reps]))
        run.status, run.finished_at = Status.SUCCEEDED, timezone.now()
        run.save(update_fields=["results", "status", "finished_at"])


def cancel_run(run: SimulationRun) -> bool:
    """Cancel a queued or running run; returns False when it had already finished."""
    from apps.celery import app

    with transaction.atomic():
        locked = SimulationRun.objects.select_for_update().get(pk=run.pk)
        if locked.is_finished:
            return False
        locked.status, locked.finished_at = Status.CANCELLED, timezone.now()
        locked.save(update_fields=["status", "finished_at"])
        task_ids = list(locked.replication_set.exclude(task_id="").values_list("task_id", flat=True))
        locked.replication_set.exclude(status__in=FINISHED).update(status=Status.CANCELLED)
    for task_id in task_ids:
        app.control.revoke(task_id)
    return True


def run_page(run: SimulationRun) -> dict:
    """What the run page shows: the run, its replications, and the median replication's details and charts."""
    from apps.scenarios.charts import timeline_figure, utilisation_figure

    reps = list(run.replication_set.all())
    done = [r for r in reps if r.status == Status.SUCCEEDED and r.result]
    context = {"run": run, "replications": reps, "result": None}
    if not done:
        return context
    done.sort(key=lambda r: r.result["makespan_s"])
    median = done[(len(done) - 1) // 2]
    result = median.result
    timeline, bars = timeline_figure(result)
    context.update(
        result=result, median=median, timeline=timeline, bars_shown=bars,
        bars_total=sum(1 for t in result.get("tasks", []) if t.get("pool")),
        utilisation=utilisation_figure(result),
    )
    return context
