"""Simulation-run and scenario workflows.

Runs: create (validating inputs), dispatch, execute a replication, finalise, cancel.
Celery tasks call these; each owns its transaction.  Replications write their own
rows idempotently, and whichever finishes last computes the run's summary.

Scenarios: create (validating every platform's inputs), run (one run per platform),
cancel, what-if clones, and the results page's data, computed once when every run has
finished and kept on the scenario so that reopening it is instant.
"""

from __future__ import annotations

import gc
import logging
import math
import socket
import time
from collections.abc import Callable
from dataclasses import asdict, is_dataclass, replace

import orjson
import pandas as pd
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, transaction
from django.db.models import JSONField
from django.db.models.expressions import RawSQL
from django.utils import timezone

from apps.accounts.workspaces import workspace_for
from apps.core.currency import amount_in, amounts_in, shown_currency
from apps.core.jobs import PROGRESS_INTERVAL_S, JobCancelled, PartJobs, dispatch_together, out_of_memory
from apps.core.jobs import cancel as cancel_job
from apps.core.models import exchange_rates
from apps.platforms.services import reference_platforms
from apps.scenarios import describe, summary
from apps.scenarios.adapters import (
    apply_platform_overrides,
    apply_workload_overrides,
    platform_dict,
    scenario_from_inputs,
    workload_dict,
)
from apps.scenarios.models import (
    FINISHED,
    Replication,
    Scenario,
    ScenarioPlatform,
    SimulationRun,
    Status,
    combined_status,
)
from apps.workloads.models import Workload
from apps.workloads.schemas import TEMPLATES
from simulator.contract import (
    AdmissionLimits,
    ContractError,
    FieldError,
    RunRequest,
    ScenarioRequest,
    admit,
    parse,
)
from simulator.model.simulate import prepare, replication_seed, summarise
from simulator.units import CURRENCY

__all__ = [
    "InvalidScenario", "run_inputs", "check_workload_workspace", "create_run", "dispatch_run", "execute_replication", "cancel_run",
    "run_page", "InvalidEntry", "DEMO", "create_scenario", "create_demo_scenario", "run_scenario", "cancel_scenario",
    "scenario_status", "scenario_results", "prepare_finished_scenarios", "prepare_results", "what_if", "scenario_inputs",
    "compare_scenarios", "answer_first", "RESULT_SECTIONS", "result_sections", "fail_lost_replications",
    "ReplicationJobs", "REPLICATION_JOBS", "admission_limits",
]

#: at most this many replications per Celery task: enough that a task's own cost (broker round trips, transactions)
#: is small against its simulations, few enough that a big run is spread over every worker process
MAX_BATCH = 25
#: a run is cut into at least this many tasks (so small runs keep one task per replication)
MIN_TASKS = 8


class InvalidScenario(ContractError):
    """The request does not make a runnable scenario; ``errors`` name each field (by its path in the scenario
    contract, :mod:`simulator.contract`) and why."""


class InvalidEntry(InvalidScenario):
    """One platform's options or overrides do not make a runnable scenario (paths under ``platforms[i]``)."""

    def __init__(self, platform_slug: str, errors, index: int | None = None):
        errors = [errors] if isinstance(errors, FieldError) else list(errors)
        prefix = f"platforms[{index}]" if index is not None else ""
        super().__init__([FieldError(_under(prefix, e.path), e.message) for e in errors])
        self.platform_slug = platform_slug
        self.detail = "; ".join(str(e) for e in errors)


def _under(prefix: str, path: str) -> str:
    """A platform's error path in a scenario; workload overrides are the scenario's, not the platform's."""
    if not prefix or path.startswith("workload_overrides") or path in ("workload", "replications"):
        return path
    return f"{prefix}.{path}" if path else prefix


def admission_limits(workspace=None) -> AdmissionLimits:
    """The bounds on the work one request may queue in ``workspace``: the workspace's own line of
    ``SKYPLAN_ADMISSION_BY_WORKSPACE`` where it has one, the ``SKYPLAN_MAX_…`` settings otherwise."""
    own = settings.SKYPLAN_ADMISSION_BY_WORKSPACE.get(workspace.slug, {}) if workspace is not None else {}
    return AdmissionLimits(
        max_tasks_per_replication=own.get("tasks_per_replication", settings.SKYPLAN_MAX_TASKS_PER_REPLICATION),
        max_memory_bytes_per_replication=own.get("memory_mb", settings.SKYPLAN_MAX_REPLICATION_MEMORY_MB) * 1e6,
        max_tasks_per_request=own.get("tasks_per_request", settings.SKYPLAN_MAX_TASKS_PER_REQUEST),
    )


def _checked(*, platform, workload, options, seed, workload_overrides, platform_overrides):
    """(input snapshot, simulator scenario) of one platform; raises ContractError naming the field."""
    try:
        inputs = {
            "platform": apply_platform_overrides(platform_dict(platform), platform_overrides),
            "workload": apply_workload_overrides(workload_dict(workload), workload_overrides),
            "options": options or {},
        }
        return inputs, scenario_from_inputs(inputs, seed)
    except ContractError:
        raise
    except KeyError as exc:  # the catalogue lacks something the model needs; str(KeyError) quotes its message
        raise ContractError.at("", str(exc.args[0]) if exc.args else "missing value") from None
    except (ValueError, TypeError) as exc:
        raise ContractError.at("", str(exc)) from None


def run_inputs(*, platform, workload, options=None, seed=0, workload_overrides=None, platform_overrides=None) -> dict:
    """The input snapshot of a run, checked to build a simulator scenario; raises InvalidScenario naming the field."""
    try:
        return _checked(platform=platform, workload=workload, options=options, seed=seed,
                        workload_overrides=workload_overrides, platform_overrides=platform_overrides)[0]
    except ContractError as exc:
        raise InvalidScenario(exc.errors) from None


def check_platform_workspace(platform, workspace, index: int | None = None) -> None:
    """A workspace's own platform (a copy, or one made from a benchmarked host) is used only in that workspace:
    elsewhere its members could not see it, and those of the other workspace would see its name."""
    if platform.workspace_id is not None and platform.workspace_id != (workspace.pk if workspace else None):
        raise InvalidEntry(platform.slug, FieldError("platform", f"platform {platform.slug!r} belongs to another "
                                                                 "workspace: copy it into this one to use it here"),
                           index)


def check_workload_workspace(workload, workspace) -> None:
    """A workspace's own workload is used only in that workspace, as its own platforms are."""
    if workload.workspace_id is not None and workload.workspace_id != (workspace.pk if workspace else None):
        raise InvalidScenario([FieldError("workload", f"workload {workload.slug!r} belongs to another workspace: "
                                                      "copy it into this one to use it here")])


def create_run(*, platform, workload, options=None, seed=0, replications=1, user=None, label="",
               workload_overrides=None, platform_overrides=None, workspace=None) -> SimulationRun:
    """Check the request against the scenario contract and the admission limits, snapshot the inputs, and save a
    queued run with its replications (in ``workspace``, by default the user's personal one)."""
    try:
        parse(RunRequest, {"workload": workload.slug, "platform": platform.slug, "options": options or {},
                           "replications": replications, "seed": seed, "label": label or ""})
    except ContractError as exc:
        raise InvalidScenario(exc.errors) from None
    workspace = workspace_for(user, workspace)
    check_workload_workspace(workload, workspace)
    try:
        check_platform_workspace(platform, workspace)
        inputs, spec = _checked(platform=platform, workload=workload, options=options, seed=seed,
                                workload_overrides=workload_overrides, platform_overrides=platform_overrides)
        admit(spec, replications, admission_limits(workspace), overrides=workload_overrides or {})
    except ContractError as exc:
        raise InvalidScenario(exc.errors) from None
    with transaction.atomic():
        run = SimulationRun.objects.create(
            platform=platform, workload=workload, options=options or {}, seed=seed, replications=replications,
            inputs=inputs, created_by=user, workspace=workspace, label=label or f"{workload.name} on {platform.name}",
        )
        Replication.objects.bulk_create(
            Replication(run=run, index=i, seed=replication_seed(seed, i)) for i in range(replications)
        )
    return run


class ReplicationJobs(PartJobs):
    """Replications, the parts of a run, as the job lifecycle sees them (registered in apps.scenarios.apps)."""

    label = "simulation replication"
    model = Replication
    parent = "run"
    task_name = "scenarios.run_replication"

    def describe(self, rep) -> str:
        return f"replication {rep.index}"


REPLICATION_JOBS = ReplicationJobs()


def batch_size(replications: int) -> int:
    """Replications per Celery task for a run of ``replications``: one each up to :data:`MIN_TASKS`, then more per
    task, at most :data:`MAX_BATCH`."""
    return max(1, min(MAX_BATCH, math.ceil(replications / MIN_TASKS)))


def dispatch_run(run: SimulationRun) -> None:
    """Send the replications to Celery: one task per replication for small runs, batches of up to
    :data:`MAX_BATCH` for big ones (more workers finish sooner).  Every replication of a batch names the batch's
    task; the lost-task sweep sends one again on its own (:class:`ReplicationJobs`), and the batch then skips it."""
    reps = list(run.replication_set.all())
    size = batch_size(len(reps))
    if size == 1:
        REPLICATION_JOBS.dispatch_all(run)
        return
    for start in range(0, len(reps), size):
        batch = reps[start:start + size]
        dispatch_together(REPLICATION_JOBS, batch, "scenarios.run_replications", [str(run.pk), [r.index for r in batch]])


#: memory a batch of replications holds back for reporting a MemoryError (see execute_replications)
MEMORY_RESERVE_BYTES = 16 * 1024 * 1024
#: the model of the last run this process executed replications of (run id -> model): a run's inputs never change.
#: Kept only up to this many tasks, so that a worker does not hold a big graph (memory a later job may need)
KEEP_MODEL_TASKS = 20_000
_models: dict = {}


def execute_replication(run_id: str, index: int, worker: str = "", task_id: str | None = None) -> str:
    """Run one replication; returns its final status (:func:`execute_replications` of one)."""
    return execute_replications(run_id, [index], worker, task_id)[index]


def execute_replications(run_id: str, indexes: list[int], worker: str = "", task_id: str | None = None) -> dict:
    """Run replications ``indexes`` of a run, one after another; returns index -> final status.  Safe to call twice
    (idempotent), and skips a replication whose task is no longer ``task_id`` (it was sent again on its own).
    ``worker`` is the Celery node running them (``name@host``), recorded so a lost worker can be noticed
    (:func:`fail_lost_replications`).  Each stops within about half a second when the run is cancelled.  Results are
    written together, every :data:`PROGRESS_INTERVAL_S` and at the end.  A database error propagates (the task
    retries it) rather than failing a replication."""
    with transaction.atomic():
        run = SimulationRun.objects.select_for_update().get(pk=run_id)
        rows = list(run.replication_set.select_for_update().filter(index__in=indexes))
        statuses = {r.index: r.status for r in rows}
        if run.is_finished:
            return statuses
        todo = REPLICATION_JOBS.start_all(rows, worker or socket.gethostname(), task_id)
        if todo and run.status == Status.QUEUED:
            run.status, run.started_at = Status.RUNNING, todo[0].started_at
            run.save(update_fields=["status", "started_at"])

    done: list = []
    saved_at = time.monotonic()
    # the scenario's model, built once for the run in this process (the next batch of the run reuses it; its
    # replications differ by seed), inside the try: a refusal fails the replication
    model = _models.get(run.pk) if todo else None
    scenario = scenario_from_inputs(run.inputs, run.seed) if todo and model is None else None
    reports = _BatchProgress()
    # address space held back while the replications run, given back at a MemoryError so that unwinding it and
    # writing the failure have room (under the job's memory limit, both could themselves fail and the task be lost)
    reserve = bytearray(MEMORY_RESERVE_BYTES) if todo else None
    for k, rep in enumerate(todo):
        try:  # the full detail (every task, utilisation over time): see records_detail
            if model is None:
                model = prepare(scenario)
                _models.clear()  # one run's model at a time, and only a small one (a few MB at most)
                if model.built is None or len(model.built.graph.tasks) <= KEEP_MODEL_TASKS:
                    _models[run.pk] = model
            detailed = records_detail(run.replications, model)
            result = model.simulate(rep.seed, progress=reports.of(rep), record_utilisation=detailed,
                                    task_bars=detailed)
        except JobCancelled:  # the run was cancelled (or failed): its replications were ended with it
            _save_results(done, statuses)
            statuses.update(dict(Replication.objects.filter(pk__in=[r.pk for r in todo[k:]])
                                 .values_list("index", "status")))
            return statuses
        except (OperationalError, InterfaceError):
            raise  # the database went away while progress was written: the task retries once it is back
        except MemoryError as exc:
            reserve = None
            exc.__traceback__ = exc.__context__ = exc.__cause__ = None
            failure = (True, "")
        except Exception as exc:  # noqa: BLE001 - the run must end 'failed' with a reason, never stuck
            reserve = None
            failure = (False, f"{type(exc).__name__}: {exc}")
            # the traceback's frames still hold what the build or run had allocated: let it go before writing the
            # failure (a MemoryError left them holding the memory the write needs, and the task was lost)
            exc.__traceback__ = exc.__context__ = exc.__cause__ = None
        else:
            failure = None
        if failure is not None:
            model = None
            _models.clear()
            gc.collect()
            _save_results(done, statuses)
            _fail(run.pk, rep.pk, out_of_memory(f"replication {rep.index}") if failure[0] else failure[1])
            statuses[rep.index] = Status.FAILED
            rest = [r.pk for r in todo[k + 1:]]
            Replication.objects.filter(pk__in=rest, status=Status.RUNNING).update(
                status=Status.CANCELLED, finished_at=timezone.now())  # moot: the run has failed
            statuses.update({r.index: Status.CANCELLED for r in todo[k + 1:]})
            return statuses
        done.append((rep, result, detailed))
        if time.monotonic() - saved_at >= PROGRESS_INTERVAL_S:
            _save_results(done, statuses)
            saved_at = time.monotonic()
    del reserve
    _save_results(done, statuses)
    if todo:
        _finalise_if_complete(run.pk)
    return statuses


class _BatchProgress:
    """The progress callbacks of a batch's replications, throttled together: a write (which also notices a cancel)
    at most every :data:`PROGRESS_INTERVAL_S` over the whole batch, not a first and a last one for every replication
    (a replication of a few milliseconds then writes none; its row is written when its result is saved)."""

    def __init__(self) -> None:
        self.last = time.monotonic()

    def of(self, rep: Replication) -> Callable[[int, int], None]:
        write = REPLICATION_JOBS.progress(rep)

        def report(done: int, total: int) -> None:
            now = time.monotonic()
            if now - self.last >= PROGRESS_INTERVAL_S:
                self.last = now
                write.last = -math.inf  # this callback's own throttle is the batch's
                write(done, total)

        return report


def records_detail(replications: int, model) -> bool:
    """Does every replication of a run of ``replications`` on ``model`` keep its full detail from the start?  Yes for
    a small run of a small model (at most :data:`MIN_TASKS` replications, one task each, and at most
    :data:`KEEP_MODEL_TASKS` tasks): detail costs such a replication little (AWS CHILES, 1,433 tasks: 0.06 s against
    0.05 s), and the run's end then keeps that of the shown replications instead of simulating them again, one
    after another, while the user waits.  Otherwise only the shown ones get it, simulated again at the end."""
    return (replications <= MIN_TASKS and model.built is not None
            and len(model.built.graph.tasks) <= KEEP_MODEL_TASKS)


#: the columns a finished replication writes
_SAVED = ["status", "progress", "result", "makespan_s", "cost_aud", "queue_wait_s", "detailed", "finished_at"]


def _save_results(done: list, statuses: dict) -> None:
    """Write the finished replications ``done`` (``(replication, result, detailed)``, emptied) in one transaction: one statement
    (run for each row in one batch) writes those still running; one cancelled (or failed) meanwhile keeps that
    status, which is read back only when a row was left unwritten.  (Django's ``bulk_update`` builds a CASE
    expression per row and field, which cost as much as one query per row.)"""
    if not done:
        return
    now = timezone.now()
    fields = [Replication._meta.get_field(name) for name in _SAVED]
    pk = Replication._meta.pk
    rows = [[f.get_db_prep_save(v, connection) for f, v in zip(fields, (
                Status.SUCCEEDED, 1.0, result_json(result, detailed=detailed), result.makespan_s,
                result.total_cost_aud, result.queue_wait_s, detailed, now), strict=True)]
            + [pk.get_db_prep_value(rep.pk, connection), Status.RUNNING] for rep, result, detailed in done]
    quote = connection.ops.quote_name
    sets = ", ".join(f"{quote(f.column)} = %s" for f in fields)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.executemany(f"UPDATE {quote(Replication._meta.db_table)} SET {sets} "
                           f"WHERE {quote(pk.column)} = %s AND {quote(Replication._meta.get_field('status').column)} "
                           f"= %s", rows)
        written = cursor.rowcount
    if written == len(done):
        statuses.update({rep.index: Status.SUCCEEDED for rep, _, _ in done})
    else:  # some were cancelled or failed meanwhile: each keeps the status it has now
        statuses.update(Replication.objects.filter(pk__in=[rep.pk for rep, _, _ in done]).values_list("index",
                                                                                                      "status"))
    done.clear()


def fail_lost_replications(run: SimulationRun | None = None, *, min_interval_s: float = 0.0) -> int:
    """Fail, naming the worker, every running replication (of ``run``, or all) whose worker node no longer answers,
    and its run (:meth:`apps.core.jobs.TrackedJobs.fail_lost_workers`).  Returns how many were failed."""
    within = {"run": run} if run is not None else {}
    return REPLICATION_JOBS.fail_lost_workers(min_interval_s=min_interval_s, **within)


#: what a replication's stored result holds only when a page shows that replication (see Replication.detailed)
DETAIL_FIELDS = ("tasks", "utilisation_series")


def result_json(result, *, detailed: bool) -> dict:
    """The simulator's result as JSON data (through orjson: about 8x faster than ``dataclasses.asdict``); without
    :data:`DETAIL_FIELDS` unless ``detailed``."""
    if is_dataclass(result):
        if not detailed:
            result = replace(result, **{f: type(getattr(result, f))() for f in DETAIL_FIELDS})
        data = orjson.loads(orjson.dumps(result))
    else:
        data = result.to_dict()
    if not detailed:
        for f in DETAIL_FIELDS:
            data.pop(f, None)
    return data


def shown_indexes(rows: list[tuple[int, float]]) -> list[int]:
    """The replications pages show, from ``(index, makespan_s)`` rows: those at P10, P50 and P90 of the makespan
    (nearest rank; the P50 one is the median the run, scenario and report pages use)."""
    ranked = [index for index, _ in sorted(rows, key=lambda r: r[1])]  # stable: ties keep index order
    if not ranked:
        return []
    last = len(ranked) - 1
    return sorted({ranked[round(0.1 * last)], ranked[last // 2], ranked[round(0.9 * last)]})


def _fail(run_pk, rep_pk, reason: str) -> None:
    with transaction.atomic():
        Replication.objects.filter(pk=rep_pk).update(status=Status.FAILED, error=reason, finished_at=timezone.now())
        SimulationRun.objects.filter(pk=run_pk).exclude(status__in=FINISHED).update(
            status=Status.FAILED, error=reason, finished_at=timezone.now()
        )


def _finalise_if_complete(run_pk) -> None:
    """Compute and store the run's summary when every replication has succeeded.  Every batch asks when it ends: a
    plain read answers "not yet" for all but the last ones, without a transaction locking the run; the answer is
    taken again under the lock (the replications that finish last may both see every row done)."""
    if Replication.objects.filter(run_id=run_pk).exclude(status=Status.SUCCEEDED).exists():
        return
    with transaction.atomic():
        run = SimulationRun.objects.select_for_update().get(pk=run_pk)
        if run.is_finished:
            return
        if run.replication_set.exclude(status=Status.SUCCEEDED).exists():
            return
        rows = list(run.replication_set.values_list("index", "seed", "makespan_s", "cost_aud"))
        run.results = asdict(summarise([{"makespan_s": m, "total_cost_aud": c} for _, _, m, c in rows]))
        try:
            _store_details(run, {index: seed for index, seed, _, _ in rows},
                           shown_indexes([(index, m) for index, _, m, _ in rows]))
        except MemoryError:  # the run must end with a reason, not stay running with every replication done
            run.status, run.finished_at = Status.FAILED, timezone.now()
            run.error = out_of_memory("simulating the shown replications again in detail")
            run.save(update_fields=["results", "status", "error", "finished_at"])
            return
        run.status, run.finished_at = Status.SUCCEEDED, timezone.now()
        run.save(update_fields=["results", "status", "finished_at"])
    prepare_finished_scenarios(run_pk)


def _store_details(run: SimulationRun, seeds: dict[int, int], indexes: list[int]) -> None:
    """Give the replications ``indexes`` of ``run`` their full results (every task and the utilisation over time)
    and the others none.  Those that kept their detail from the start (:func:`records_detail`) have it already; the
    others are simulated again (runs are deterministic for a seed: the outcome is the one already stored; the model
    is the one this process's last batch of the run used, else built once for them, as for a batch)."""
    kept = set(run.replication_set.filter(detailed=True).values_list("index", flat=True))
    again = [index for index in indexes if index not in kept]
    model = (_models.get(run.pk) or prepare(scenario_from_inputs(run.inputs, run.seed))) if again else None
    for index in again:
        result = model.simulate(seeds[index])
        Replication.objects.filter(run=run, index=index).update(result=result_json(result, detailed=True),
                                                                detailed=True)
    if kept - set(indexes):  # not shown: only the summary stays (DETAIL_FIELDS removed in the database)
        Replication.objects.filter(run=run, index__in=kept - set(indexes)).update(
            detailed=False, result=RawSQL("result" + " - %s::text" * len(DETAIL_FIELDS), DETAIL_FIELDS,
                                          output_field=JSONField()))


def cancel_run(run: SimulationRun) -> bool:
    """Cancel a queued or running run and its replications; returns False when it had already finished.  A running
    replication stops within about half a second (or is terminated: :mod:`apps.core.jobs`)."""
    return cancel_job(run, run.replication_set.all())


def run_page(run: SimulationRun) -> dict:
    """What the run page shows: the run, its replications, and the median replication's details and charts."""
    from apps.scenarios.charts import timeline_figure, utilisation_figure

    if not run.is_finished and fail_lost_replications(run, min_interval_s=10.0):
        run.refresh_from_db()
    reps = list(run.replication_set.defer("result"))  # only the median's result is read
    done = [r for r in reps if r.status == Status.SUCCEEDED and r.makespan_s is not None]
    context = {"run": run, "replications": reps, "result": None}
    if not done:
        return context
    done.sort(key=lambda r: r.makespan_s)
    median = done[(len(done) - 1) // 2]
    result = median.result  # every task and the utilisation once the run has finished (Replication.detailed)
    timeline, bars = timeline_figure(result)
    context.update(
        result=result, median=median, timeline=timeline, bars_shown=bars,
        bars_total=sum(1 for t in result.get("tasks", []) if t.get("pool")),
        utilisation=utilisation_figure(result),
    )
    return context


# --- scenarios -----------------------------------------------------------------------------------------

log = logging.getLogger(__name__)

#: the one-click demo: the paper's CHILES epoch on its three platforms, with the paper's placements
DEMO = {
    "name": "Demo: the CHILES epoch on the three platforms",
    "workload": "chiles-epoch1",
    "platforms": ("pleiades", "magnus", "aws-sydney"),
    "replications": 5,
    "seed": 0,
}
#: scenarios of this workload on these platforms with no options are the paper's (validation applies)
PAPER_WORKLOAD = "chiles-epoch1"


def create_scenario(*, name, workload, entries, workload_overrides=None, replications=5, seed=0, tco_years=5.0,
                    epochs_per_year=1.0, user=None, parent=None, change="", workspace=None,
                    currency=CURRENCY) -> Scenario:
    """Check every platform's inputs build a simulator scenario, then save the scenario (not yet run).

    ``entries`` is a list of ``(platform, options, platform_overrides)``.  Raises
    :class:`InvalidEntry` naming the platform, or :class:`InvalidScenario` for the rest."""
    try:
        parse(ScenarioRequest, {
            "name": name, "workload": workload.slug, "workload_overrides": workload_overrides or {},
            "platforms": [{"platform": p.slug, "options": o or {}, "platform_overrides": ov or {}}
                          for p, o, ov in entries],
            "replications": replications, "seed": seed, "tco_years": tco_years, "epochs_per_year": epochs_per_year,
            "currency": currency,
        })
        if currency != CURRENCY and currency not in exchange_rates():
            raise ContractError.at("currency", f"the catalogue has no {currency} exchange rate: choose "
                                               f"{', '.join([CURRENCY, *sorted(exchange_rates())])}")
        if workload_overrides:
            apply_workload_overrides(workload_dict(workload), workload_overrides)
    except ContractError as exc:
        raise InvalidScenario(exc.errors) from None
    workspace = workspace_for(user, workspace)
    check_workload_workspace(workload, workspace)
    limits = admission_limits(workspace)
    for i, (platform, options, overrides) in enumerate(entries):
        check_platform_workspace(platform, workspace, i)
        try:
            _, spec = _checked(platform=platform, workload=workload, options=options, seed=seed,
                               workload_overrides=workload_overrides, platform_overrides=overrides)
            admit(spec, replications, limits, overrides=workload_overrides or {}, platforms=len(entries))
        except ContractError as exc:
            raise InvalidEntry(platform.slug, exc.errors, i) from None
    with transaction.atomic():
        scenario = Scenario.objects.create(
            name=name, workload=workload, workload_overrides=workload_overrides or {}, replications=replications,
            seed=seed, tco_years=tco_years, epochs_per_year=epochs_per_year, created_by=user, parent=parent,
            change=change, workspace=workspace, currency=currency,
        )
        ScenarioPlatform.objects.bulk_create(
            ScenarioPlatform(scenario=scenario, platform=platform, position=i, options=options or {},
                             platform_overrides=overrides or {})
            for i, (platform, options, overrides) in enumerate(entries)
        )
    return scenario


def create_demo_scenario(user=None, workspace=None) -> Scenario:
    """The demo scenario, saved (the caller runs it)."""
    try:
        workload = Workload.objects.get(slug=DEMO["workload"])
        platforms = {p.slug: p for p in reference_platforms().filter(slug__in=DEMO["platforms"])}
        entries = [(platforms[slug], {}, {}) for slug in DEMO["platforms"]]
    except (Workload.DoesNotExist, KeyError):
        raise InvalidScenario(
            "the demo needs the reference catalogue (chiles-epoch1 on pleiades, magnus and aws-sydney); "
            "load it with 'manage.py load_catalogue'"
        ) from None
    return create_scenario(name=DEMO["name"], workload=workload, entries=entries, replications=DEMO["replications"],
                           seed=DEMO["seed"], user=user, workspace=workspace)


def run_scenario(scenario: Scenario, user=None, *, dispatch: bool = True) -> Scenario:
    """Create and dispatch one run per platform (replacing earlier runs of this scenario).  With
    ``dispatch=False`` the runs are only created; the caller executes them (the command line does, in-process)."""
    with transaction.atomic():
        scenario = Scenario.objects.select_for_update().get(pk=scenario.pk)
        if scenario.status() == "running":
            raise InvalidScenario("the scenario is already running; cancel it first")
        entries = list(scenario.entries.select_related("platform"))
        runs = []
        for entry in entries:
            try:
                entry.run = create_run(
                    platform=entry.platform, workload=scenario.workload, options=entry.options, seed=scenario.seed,
                    replications=scenario.replications, user=user, label=f"{scenario.name}: {entry.platform.name}",
                    workload_overrides=scenario.workload_overrides, platform_overrides=entry.platform_overrides,
                    workspace=scenario.workspace,
                )
            except InvalidScenario as exc:  # the catalogue changed since the scenario was saved
                raise InvalidEntry(entry.platform.slug, exc.errors, entry.position) from None
            entry.save(update_fields=["run"])
            runs.append(entry.run)
        scenario.results_cache = None
        scenario.save(update_fields=["results_cache"])
        if dispatch:
            transaction.on_commit(lambda: [dispatch_run(r) for r in runs])
    return scenario


def cancel_scenario(scenario: Scenario) -> int:
    """Cancel every unfinished run of the scenario; returns how many were cancelled."""
    return sum(1 for run in scenario.runs() if cancel_run(run))


def _failure_in_plain_words(entry: ScenarioPlatform) -> str:
    run = entry.run
    if run is None or run.status != Status.FAILED:
        return ""
    reason = run.error.split(": ", 1)[-1] if run.error else "no reason was recorded"
    return f"The simulation on {entry.platform.name} stopped with an error: {reason}"


def scenario_status(scenario: Scenario) -> dict:
    """Combined and per-platform status and progress, JSON-safe (polled by the scenario page)."""
    platforms = []
    entries = list(scenario.entries.select_related("platform", "run"))
    for entry in entries:
        if entry.run is not None and not entry.run.is_finished and fail_lost_replications(entry.run,
                                                                                         min_interval_s=10.0):
            entry.run.refresh_from_db()
        run = entry.run
        platforms.append({
            "platform": entry.platform.slug, "name": entry.platform.name,
            "status": run.status if run else "draft", "progress": round(run.progress(), 4) if run else 0.0,
            "error": _failure_in_plain_words(entry), "run_url": run.get_absolute_url() if run else "",
        })
    status = combined_status([None if p["status"] == "draft" else p["status"] for p in platforms])  # one snapshot
    progress = sum(p["progress"] for p in platforms) / len(platforms) if platforms else 0.0
    finished = status in ("succeeded", "failed", "cancelled")
    return {"status": status, "progress": round(progress, 4), "platforms": platforms, "finished": finished,
            **(_results_state(scenario, entries) if finished else {"ready": False, "pending": []})}


#: how long after its last run finished a scenario's results page waits for the worker to prepare its results before
#: computing them itself (the worker was lost in between)
PREPARE_WAIT_S = 60.0


def _results_state(scenario: Scenario, entries) -> dict:
    """Of a scenario whose runs have all finished: ``ready``, the results page has its ranked results to show (the
    worker saved them, :func:`prepare_results`, or it will not: a run failed or was cancelled, or it has been
    :data:`PREPARE_WAIT_S` since the last run finished; the page then computes them), and ``pending``, the parts
    the worker is still preparing.  With ``results_cache`` deferred (the polled status), reads two keys of the saved
    bundle, not the bundle."""
    if "results_cache" in scenario.get_deferred_fields():
        key, pending = Scenario.objects.filter(pk=scenario.pk).values_list("results_cache__key",
                                                                           "results_cache__pending").get()
    else:
        key, pending = (scenario.results_cache or {}).get("key"), (scenario.results_cache or {}).get("pending")
    if key == _cache_key(entries):
        return {"ready": True, "pending": pending or []}
    ended = max((e.run.finished_at for e in entries if e.run and e.run.finished_at), default=None)
    waited = ended is None or (timezone.now() - ended).total_seconds() > PREPARE_WAIT_S
    return {"ready": waited or any(e.run is None or e.run.status != Status.SUCCEEDED for e in entries), "pending": []}


def is_papers_scenario(scenario: Scenario, entries) -> bool:
    """The paper's CHILES epoch with the paper's placements and no overrides (so its validation applies)."""
    return (scenario.workload.slug == PAPER_WORKLOAD and not scenario.workload_overrides
            and all(not e.options and not e.platform_overrides for e in entries))


#: bumped when the cached figures or tables change shape, so scenarios computed before are computed again
RESULTS_VERSION = 5


def _cache_key(entries) -> list:
    return [RESULTS_VERSION, *([str(e.run_id), e.run.status if e.run else None] for e in entries)]


#: what the results page shows below the ranked results, prepared on the worker after them, in this order; each is
#: saved (and the page shows it) as soon as it is ready
LATER_PARTS = ("figures", "validation")


def scenario_results(scenario: Scenario, *, partial: bool = False) -> dict | None:
    """The results page's tables and figures (JSON), from the cache when the runs have not changed since, else
    computed here whole.  ``partial``: a bundle the worker is still preparing will do (its ``pending`` names the
    parts still to come: :func:`prepare_results`); the results page takes one and fetches the rest as it arrives,
    reports and the API never do."""
    entries = list(scenario.entries.select_related("platform", "run"))
    if any(e.run is None or not e.run.is_finished for e in entries):
        return None
    key = _cache_key(entries)
    cached = scenario.results_cache
    if cached and cached.get("key") == key and (partial or not cached.get("pending")):
        return cached
    bundle = _build_results(scenario, entries)
    bundle["key"] = key
    Scenario.objects.filter(pk=scenario.pk).update(results_cache=bundle)
    scenario.results_cache = bundle
    return bundle


def prepare_finished_scenarios(run_pk) -> None:
    """Called when a run finishes: compute the results of the scenarios it completes, on the worker."""
    for scenario in Scenario.objects.filter(entries__run_id=run_pk).select_related("workload"):
        try:
            prepare_results(scenario)
        except Exception:  # noqa: BLE001 - the page computes them on first view instead
            log.exception("could not prepare the results of scenario %s", scenario.pk)


def prepare_results(scenario: Scenario) -> None:
    """Compute and save the results of a scenario whose runs have all finished, the ranked results first: the
    per-platform summary and every section (scoring: radar, ranks, cost of ownership) are saved at once, with
    ``pending`` naming the :data:`LATER_PARTS` still to come; then each of those, saved as it is ready.  A part is
    saved only while the bundle is still the one of these runs (a rerun meanwhile drops it)."""
    entries = list(scenario.entries.select_related("platform", "run"))
    if any(e.run is None or not e.run.is_finished for e in entries):
        return
    key = _cache_key(entries)
    if scenario.results_cache and scenario.results_cache.get("key") == key:
        return  # prepared already (by another worker, or by a page that asked first)
    started = time.perf_counter()
    bundle, medians, rep_rows = _results_summary(entries)
    bundle["key"] = key
    bundle["pending"] = [part for part in LATER_PARTS if _part_applies(part, scenario, entries, medians)]
    Scenario.objects.filter(pk=scenario.pk).update(results_cache=bundle)
    scenario.results_cache = bundle
    result_sections(scenario, bundle)  # the scoring section saves itself into the bundle
    log.info("scenario %s: ranked results saved in %.3f s", scenario.pk, time.perf_counter() - started)
    for part in list(bundle["pending"]):
        started = time.perf_counter()
        _add_part(part, bundle, scenario, entries, medians, rep_rows)
        bundle["pending"].remove(part)
        if not Scenario.objects.filter(pk=scenario.pk, results_cache__key=key).update(results_cache=bundle):
            return
        log.info("scenario %s: %s saved in %.3f s", scenario.pk, part, time.perf_counter() - started)


def _part_applies(part: str, scenario: Scenario, entries, medians: dict) -> bool:
    if part == "figures":
        return bool(medians)
    return bool(medians) and is_papers_scenario(scenario, entries)


def _build_results(scenario: Scenario, entries) -> dict:
    """The whole results bundle, every part at once."""
    bundle, medians, rep_rows = _results_summary(entries)
    for part in LATER_PARTS:
        if _part_applies(part, scenario, entries, medians):
            _add_part(part, bundle, scenario, entries, medians, rep_rows)
    return bundle


def _results_summary(entries) -> tuple[dict, dict, list]:
    """(the bundle with the per-platform summary and nothing else, platform name -> index of its median
    replication (succeeded runs), every succeeded replication's row)."""
    rep_rows, medians, summary = [], {}, []
    for e in entries:
        run = e.run
        rows = list(run.replication_set.filter(status=Status.SUCCEEDED).values_list(
            "index", "makespan_s", "cost_aud", "queue_wait_s"))
        rows.sort(key=lambda r: r[1])
        for index, makespan, cost, queue in rows:
            rep_rows.append({"platform": e.platform.name, "index": index, "makespan_s": makespan, "cost_aud": cost,
                             "queue_wait_s": queue})
        median = rows[(len(rows) - 1) // 2] if rows and run.status == Status.SUCCEEDED else None
        if median is not None:
            medians[e.platform.name] = (run, median[0])
        summary.append({
            "platform": e.platform.slug, "name": e.platform.name, "status": run.status, "run_url": run.get_absolute_url(),
            "results": run.results, "error": _failure_in_plain_words(e),
            "queue_wait_s": median[3] if median is not None else None,  # the median replication's own
        })
    return {"summary": summary, "figures": {}, "bounds": [], "validation": None}, medians, rep_rows


def _add_part(part: str, bundle: dict, scenario: Scenario, entries, medians: dict, rep_rows: list) -> None:
    """Compute one of :data:`LATER_PARTS` into ``bundle``."""
    from apps.scenarios import adapters, charts

    if part == "validation":
        bundle["validation"] = _validation_summary(scenario, {e.platform.slug for e in entries})
        return
    results = {name: run.replication_set.get(index=index).result for name, (run, index) in medians.items()}
    stages = adapters.stage_frame(results)
    replications = adapters.replication_frame([r for r in rep_rows if r["platform"] in medians])
    bundle["figures"] = {
        "gantt": charts.stage_gantt_figure(stages).to_json(),
        "utilisation": charts.utilisation_over_time_figure(adapters.utilisation_frame(results)).to_json(),
        "costs": charts.cost_breakdown_figure(adapters.cost_frame(results)).to_json(),
        "makespan": charts.distribution_figure(replications, "makespan_h", "time to result (hours)").to_json(),
        "cost": charts.distribution_figure(replications, "cost_aud", "cost of a run (AUD)").to_json(),
    }
    # what the money figures are drawn from, so a page in another currency draws them again (see money_figures)
    bundle["money"] = {"replications": replications[["platform", "cost_aud"]].to_dict("records"),
                       "bills": adapters.cost_frame(results).to_dict("records")}
    bundle["bounds"] = _bound_table(stages)


def money_figures(results: dict, currency: dict) -> dict[str, str]:
    """The results' money figures (cost of a run over the replications, the median bill by category) with their
    amounts and axes in ``currency`` (a :func:`apps.core.currency.shown_currency`); the cached ones are in AUD."""
    from apps.scenarios import charts

    money = results.get("money")
    if not money or currency["code"] == CURRENCY:
        return {}
    code, rate = currency["code"], currency["base_per_unit"]
    replications = pd.DataFrame(money["replications"], columns=["platform", "cost_aud"])
    replications["cost"] = amount_in(replications["cost_aud"].astype(float), rate)
    bills = pd.DataFrame(money["bills"], columns=["platform", "category", "aud"])
    bills["aud"] = amount_in(bills["aud"].astype(float), rate)
    return {"costs": charts.cost_breakdown_figure(bills, code).to_json(),
            "cost": charts.distribution_figure(replications, "cost", f"cost of a run ({code})").to_json()}


def _bound_table(stages) -> list[dict]:
    """Rows: stage; columns: per platform the resource that bounded it and its share of task time."""
    rows: dict[str, dict] = {}
    for st in stages.itertuples():
        if st.stage == "queue wait":
            continue
        rows.setdefault(st.stage, {"stage": st.stage, "cells": {}})["cells"][st.platform] = {
            "bound_by": st.bound_by, "share": st.bound_share, "hours": st.end_h - st.start_h}
    return list(rows.values())


def _validation_summary(scenario: Scenario, slugs: set[str]) -> dict:
    from apps.scenarios.validation import pass_rates, validation_report

    report = validation_report(scenario.workload.slug, seed=scenario.seed)
    rows = [r for r in report["rows"] + report["qualitative"] if r["platform"] in slugs]
    return {"rows": rows, **pass_rates(rows)}


# --- what-if and compare ----------------------------------------------------------------------------

def what_if(scenario: Scenario, *, change: str, user=None, workload_overrides=None, entry_changes=None) -> Scenario:
    """A copy of ``scenario`` with one edit, saved with ``parent`` and a description of the change.

    ``entry_changes`` maps a platform slug to ``{"options": ..., "platform_overrides": ...}`` replacing
    that platform's values; ``workload_overrides`` are merged into the scenario's."""
    entry_changes = entry_changes or {}
    entries = []
    for e in scenario.entries.select_related("platform"):
        changed = entry_changes.get(e.platform.slug, {})
        entries.append((e.platform, changed.get("options", e.options), changed.get("platform_overrides",
                                                                                      e.platform_overrides)))
    overrides = {**scenario.workload_overrides, **(workload_overrides or {})}
    return create_scenario(
        name=f"{scenario.name} — what if: {change}"[:200], workload=scenario.workload, entries=entries,
        workload_overrides=overrides, replications=scenario.replications, seed=scenario.seed,
        tco_years=scenario.tco_years, epochs_per_year=scenario.epochs_per_year, user=user, parent=scenario,
        currency=scenario.currency,
        change=change[:300], workspace=scenario.workspace,
    )


def scenario_inputs(scenario: Scenario) -> dict[str, str]:
    """A scenario's inputs as ``label -> text`` with units, for the input diff (see :mod:`apps.scenarios.describe`)."""
    return describe.scenario_inputs_in_words(scenario)


#: the outcomes the comparison sets side by side: (label, key in the platform's outcome or cost story, kind)
COMPARED = [("Time to result (P50)", "makespan_p50_s", "hours"), ("Time to result (P90)", "makespan_p90_s", "hours"),
            ("Cost per run", "per_run_aud", "aud"), ("Cost per year", "per_year_aud", "aud"),
            ("Cost of ownership", "tco_aud", "aud"), ("Chance of first", "p_first_near", "share")]


#: the smallest difference the comparison shows as a change (below it the shown values are equal)
SHOWN_CHANGE = {"hours": 1.0, "aud": 0.5, "share": 0.005}


def _compared_values(row: dict | None) -> dict:
    if row is None:
        return {}
    cost = row.get("cost") or {}
    per_run = cost.get("all_in_per_run_aud") if row.get("owned") else cost.get("per_run_aud")
    return {"makespan_p50_s": row.get("makespan_p50_s"), "makespan_p90_s": row.get("makespan_p90_s"),
            "per_run_aud": per_run, "per_year_aud": cost.get("per_year_aud"), "tco_aud": cost.get("tco_aud"),
            "p_first_near": row.get("p_first_near")}


def compare_scenarios(a: Scenario, b: Scenario) -> dict:
    """What changed in the inputs (labels and units, the catalogue's value where only one side overrides it), in
    the outcomes per platform (time, cost per run, per year, of ownership, chance of first) and in the winner."""
    ia, ib = scenario_inputs(a), scenario_inputs(b)
    defaults = {**describe.catalogue_values(a), **describe.catalogue_values(b)}

    def side(values, key):
        if key in values:
            return values[key]
        return f"{defaults[key]} (catalogue)" if key in defaults else "—"

    inputs = [{"key": k, "a": side(ia, k), "b": side(ib, k)} for k in [*ia, *(k for k in ib if k not in ia)]
              if ia.get(k) != ib.get(k)]
    ra, rb = scenario_results(a), scenario_results(b)
    currency = compared_currency(a, b)
    reca = answer_first(a, ra, result_sections(a, ra).get("scoring"), figure=False,
                        currency=currency)["rec"] if ra else None
    recb = answer_first(b, rb, result_sections(b, rb).get("scoring"), figure=False,
                        currency=currency)["rec"] if rb else None
    rows_a = {r["slug"]: r for r in (reca or {}).get("rows", [])}
    rows_b = {r["slug"]: r for r in (recb or {}).get("rows", [])}
    names = {s["platform"]: s["name"] for s in [*(ra or {}).get("summary", []), *(rb or {}).get("summary", [])]}
    outcomes = []
    for slug in names:
        va, vb = _compared_values(rows_a.get(slug)), _compared_values(rows_b.get(slug))
        row = {"platform": slug, "name": names[slug], "metrics": []}
        for label, key, kind in COMPARED:
            av, bv = va.get(key), vb.get(key)
            delta = bv - av if av is not None and bv is not None else None
            pct = 100.0 * delta / av if delta is not None and av and kind != "share" else None
            row["metrics"].append({"label": label, "kind": kind, "a": av, "b": bv, "delta": delta, "pct": pct,
                                   "changed": delta is not None and abs(delta) >= SHOWN_CHANGE[kind]})
        outcomes.append(row)
    winner = None
    if reca and recb:
        wa, wb = reca["winner_names"], recb["winner_names"]
        winner = {"a": wa, "b": wb, "changed": wa != wb, "tie_a": reca["tie"], "tie_b": recb["tie"]}
    return {"a": a, "b": b, "inputs": inputs, "outcomes": outcomes, "winner": winner,
            "ready": ra is not None and rb is not None, "currency": currency}


def compared_currency(a: Scenario, b: Scenario) -> dict:
    """The currency a comparison shows its amounts in: the scenarios' own when they share one (a what-if keeps its
    parent's), else AUD (the base both are computed in), saying so."""
    if a.currency == b.currency:
        return shown_currency(a.currency)
    base = shown_currency(None)
    return {**base, "text": f"A shows its amounts in {a.currency} and B in {b.currency}: this comparison shows both "
                            f"in {base['code']}, the catalogue's currency they are computed in."}


#: sections that apps downstream of this one add to a finished scenario's results: name -> function(scenario,
#: results) returning the section (or None).  The scoring app adds "scoring" (apps.scoring.apps), so the data flows
#: one way: scenarios produce results, scoring ranks them.
RESULT_SECTIONS: dict[str, Callable[[Scenario, dict | None], dict | None]] = {}


def result_sections(scenario: Scenario, results: dict | None) -> dict:
    """Every registered section of the scenario's results page (see RESULT_SECTIONS), by name."""
    return {name: section(scenario, results) for name, section in RESULT_SECTIONS.items()}


def scenario_page(scenario: Scenario) -> dict:
    """What the scenario page shows: inputs, combined status, results (cached) and their sections (scoring), and its
    what-ifs."""
    entries = list(scenario.entries.select_related("platform", "run"))
    state = scenario_status(scenario)
    # while the worker prepares them (state "ready" false) the page waits for them rather than compute them itself
    results = scenario_results(scenario, partial=True) if state["ready"] else None
    sections = result_sections(scenario, results)
    context = {"currency": shown_currency(scenario.currency),
        "scenario": scenario, "entries": entries, "state": state, "results": results,
        **sections, **answer_first(scenario, results, sections.get("scoring"), entries),
        "what_ifs": list(scenario.what_ifs.all()[:20]), **_inputs_in_words(scenario, entries),
    }
    if results:
        names = {e.platform.slug: e.platform.name for e in entries}
        context["names"] = names
        figures = {**(results.get("figures") or {}), **money_figures(results, context["currency"])}
        if context.get("cost_figure"):
            figures["costs"] = context["cost_figure"]
        context["figures"] = figures
        context["validation_rows"] = [
            {**r, "label": summary.validation_label(r["quantity"], names), "platform_name": names.get(r["platform"],
                                                                                               r["platform"])}
            for r in (results.get("validation") or {}).get("rows", [])]
    return context


def _inputs_in_words(scenario: Scenario, entries) -> dict:
    params = {p.name: p for p in TEMPLATES.get(scenario.workload.template, ())}
    changes = [f"{params[k].label if k in params else k.replace('_', ' ')} = "
               f"{describe.value_text(v, params[k].dimension if k in params else None)}"
               for k, v in sorted((scenario.workload_overrides or {}).items())]
    return {"workload_changes": changes,
            "setups": [{"name": e.platform.name, "url": e.platform.get_absolute_url(),
                        "lines": describe.setup_lines(e.options, e.platform_overrides)} for e in entries]}


def answer_first(scenario: Scenario, results: dict | None, scoring: dict | None, entries=None,
                 weights: list[float] | None = None, *, figure: bool = True, currency: dict | None = None) -> dict:
    """The recommendation for ``weights`` (the saved ones by default) and the one cost story per platform, their
    amounts in ``currency`` (the scenario's own by default; a :func:`apps.core.currency.shown_currency`)."""
    from apps.scenarios import charts

    currency = currency or shown_currency(scenario.currency)
    if results is None or not scoring or scoring.get("error") or scoring["report"].get("error"):
        return {"rec": None, "outcomes": None, "currency": currency}
    entries = entries if entries is not None else list(scenario.entries.select_related("platform", "run"))
    rate = currency["base_per_unit"]
    rec = amounts_in(summary.recommendation(results, scoring, weights, papers=is_papers_scenario(scenario, entries)),
                     rate)
    outcomes = amounts_in(summary.platform_outcomes(results, scoring), rate)
    context = {"rec": rec, "outcomes": list(outcomes.values()), "currency": currency}
    if figure:
        context["cost_figure"] = charts.cost_per_year_figure(summary.cost_frame(outcomes), currency["code"]).to_json()
    return context
