"""Benchmark workflows: validate and dispatch to the platform's queue, execute on the worker, record measured
values with provenance, apply them to the catalogue, list the hosts online.

The web process only creates rows and sends tasks; the probes run in the worker (``execute``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict
from datetime import timedelta

from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction
from django.utils import timezone

from apps.accounts.workspaces import workspace_for
from apps.benchmarks.models import BenchmarkRun, MeasuredValue, queue_for
from apps.celery import app
from apps.core.jobs import JobCancelled, Progress, TrackedJobs
from apps.core.jobs import cancel as cancel_job
from apps.core.jobs import dispatch as dispatch_job
from apps.core.models import WorkerHeartbeat
from apps.platforms.models import Platform, StorageTier
from apps.profiles.models import ProfileImport
from apps.profiles.services import create_import, discard_upload, execute_import, store_upload

__all__ = ["InvalidBenchmark", "clean_parameters", "create_benchmark", "dispatch",
           "execute", "cancel", "apply_to_tier", "hosts_online", "live_bench_platforms", "fail_lost_runs", "DEFAULTS", "BenchmarkJobs",
           "BENCHMARK_JOBS"]

MiB = 1024 * 1024
#: parameter -> (default, minimum, maximum, kind) per benchmark kind; nothing else is accepted
DEFAULTS = {
    "storage": {"directory": ("", None, None, str), "size_mb": (256, 16, 65536, int), "runtime_s": (5, 1, 600, int),
                "max_jobs": (8, 1, 64, int)},
    "cpu": {"seconds": (2, 1, 60, int)},
    "minipipeline": {"directory": ("", None, None, str), "size_mb": (256, 32, 65536, int),
                     "n_days": (6, 1, 64, int), "n_subbands": (4, 1, 64, int), "strace": (False, None, None, bool)},
}
Status = BenchmarkRun.Status


class InvalidBenchmark(ValueError):
    """The request names an unknown kind or a parameter out of range; the message says which."""




def clean_parameters(kind: str, raw: dict) -> dict:
    if kind not in DEFAULTS:
        raise InvalidBenchmark(f"kind: {kind!r} is not one of {', '.join(DEFAULTS)}")
    spec = DEFAULTS[kind]
    unknown = set(raw) - set(spec)
    if unknown:
        raise InvalidBenchmark(f"parameters: unknown {', '.join(sorted(unknown))} (known: {', '.join(spec)})")
    out = {}
    for name, (default, low, high, typ) in spec.items():
        value = raw.get(name, default)
        if value in (None, ""):
            value = default
        if typ is bool:
            if not isinstance(value, bool):
                raise InvalidBenchmark(f"parameters.{name}: must be true or false")
        elif typ is int:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or int(value) != value:
                raise InvalidBenchmark(f"parameters.{name}: must be a whole number")
            value = int(value)
            if not low <= value <= high:
                raise InvalidBenchmark(f"parameters.{name}: must be between {low} and {high} (got {value})")
        elif name == "directory" and value and not os.path.isabs(str(value)):
            raise InvalidBenchmark("parameters.directory: must be an absolute path on the worker host (or empty "
                                   "for the worker's temporary directory)")
        out[name] = value
    if kind == "minipipeline" and out["n_days"] == out["n_subbands"]:
        raise InvalidBenchmark("parameters.n_subbands: must differ from n_days (every INVERT reads every day)")
    return out


def create_benchmark(*, platform: Platform, kind: str, parameters: dict | None = None, user=None,
                     workspace=None) -> BenchmarkRun:
    """A queued benchmark of ``platform``'s host, in ``workspace`` (by default the user's personal one)."""
    params = clean_parameters(kind, parameters or {})
    return BenchmarkRun.objects.create(platform=platform, kind=kind, parameters=params, queue=queue_for(platform.slug),
                                       created_by=user, workspace=workspace_for(user, workspace))


class BenchmarkJobs(TrackedJobs):
    """Benchmark runs as the job lifecycle sees them (registered in apps.benchmarks.apps)."""

    label = "benchmark"
    model = BenchmarkRun
    task_name = "benchmarks.run"

    def task_queue(self, run) -> str:
        return run.queue

    def describe(self, run) -> str:
        return "the benchmark"


BENCHMARK_JOBS = BenchmarkJobs()


def dispatch(run: BenchmarkRun) -> None:
    """Send the benchmark's task to its platform's queue."""
    dispatch_job(BENCHMARK_JOBS, run)


def cancel(run: BenchmarkRun) -> bool:
    """Cancel a queued or running benchmark; a running one stops at its next progress report (within about half a
    second while a probe reports) or is terminated."""
    return cancel_job(run)


# --- on the worker ----------------------------------------------------------------------------------------

def _progress(run_pk, start: float = 0.0, span: float = 1.0):
    return Progress(BenchmarkRun, run_pk, start=start, span=span)


def _scratch(parameters: dict, need_bytes: int) -> str:
    from apps.benchmarks.probes.hostinfo import free_bytes

    base = parameters.get("directory") or tempfile.gettempdir()
    if not os.path.isdir(base):
        raise RuntimeError(f"directory {base!r} does not exist on this host")
    if not os.access(base, os.W_OK):
        raise RuntimeError(f"directory {base!r} is not writable by the worker")
    free = free_bytes(base)
    if free < need_bytes * 1.2:
        raise RuntimeError(f"directory {base!r} has {free / 1e9:.1f} GB free; this benchmark needs "
                           f"{need_bytes * 1.2 / 1e9:.1f} GB (its data plus 20%)")
    return tempfile.mkdtemp(prefix="skyplan-bench-", dir=base)


def _need_bytes(kind: str, p: dict) -> int:
    if kind == "storage":
        return p["size_mb"] * MiB * p["max_jobs"]
    if kind == "minipipeline":
        from apps.benchmarks.probes.memory import drain_limit

        # source, work copy, sub-band files, cubes, and the file that holds free memory at rest (probes.memory)
        return p["size_mb"] * MiB * 4 + drain_limit()
    return 0


def execute(run_id: str, worker: str = "", task_id: str | None = None) -> str:
    """Run the benchmark on this host; idempotent, always ends succeeded, failed or cancelled (a database error
    propagates, for the task to retry); does nothing for a task ``task_id`` the run no longer names.  ``worker`` is
    the Celery node running it (``name@host``), recorded so a lost worker can be noticed (:func:`fail_lost_runs`)."""
    from apps.benchmarks.probes.hostinfo import host_info

    with transaction.atomic():
        run = BenchmarkRun.objects.select_for_update().get(pk=run_id)
        if not BENCHMARK_JOBS.start(run, worker, task_id, attempts=run.attempts + 1,
                                    host={**host_info(), "worker": worker}):
            return run.status
    scratch = None
    try:
        scratch = _scratch(run.parameters, _need_bytes(run.kind, run.parameters)) if run.kind != "cpu" else None
        result = _PROBES[run.kind](run, scratch)
    except JobCancelled:
        return BenchmarkRun.objects.values_list("status", flat=True).get(pk=run.pk)
    except (OperationalError, InterfaceError):
        raise  # the database went away while progress was written: the task retries once it is back
    except Exception as exc:  # noqa: BLE001 - the run must end failed with the reason, never stuck
        BenchmarkRun.objects.filter(pk=run.pk).exclude(status__in=BenchmarkRun.FINISHED).update(
            status=Status.FAILED, error=f"{type(exc).__name__}: {exc}", finished_at=timezone.now())
        return Status.FAILED
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    with transaction.atomic():
        saved = BenchmarkRun.objects.filter(pk=run.pk, status=Status.RUNNING).update(
            status=Status.SUCCEEDED, progress=1.0, result=result, finished_at=timezone.now())
        if saved:
            run = BenchmarkRun.objects.get(pk=run.pk)
            _record_values(run)
            imports = _create_profile_imports(run)
    if not saved:  # cancelled, or failed meanwhile (e.g. declared lost): the first final status stands
        _discard_profile_files(result)
        return BenchmarkRun.objects.get(pk=run.pk).status
    _run_profile_imports(imports)
    return Status.SUCCEEDED


def _keep_profile_file(path: str, filename: str, fmt: str) -> dict:
    """Move a profile the benchmark wrote (sampler CSV, strace trace) out of the scratch folder into the store every
    host reaches (the web host serves it from there)."""
    rel, size = store_upload(path, filename, move=True)
    return {"path": rel, "filename": filename, "format": fmt, "size_bytes": size}


def _discard_profile_files(result: dict) -> None:
    for upload in result.get("profile_files", []):
        discard_upload(upload["path"])


def _create_profile_imports(run: BenchmarkRun) -> list:
    """One profile import per file the benchmark kept, in the run's workspace and for its platform (called in the
    transaction that marks the run succeeded, so the imports exist exactly once)."""
    imports = [create_import(upload_path=f["path"], filename=f["filename"], size_bytes=f["size_bytes"],
                             fmt=f["format"], user=run.created_by, platform=run.platform, workspace=run.workspace)
               for f in (run.result or {}).get("profile_files", [])]
    if imports:
        run.result["profile_imports"] = [str(job.pk) for job in imports]
        BenchmarkRun.objects.filter(pk=run.pk).update(result=run.result)
    return imports


def profile_imports(run: BenchmarkRun) -> list:
    """The profile imports (and their profiles) made from the run's files, in the order they were kept."""
    ids = (run.result or {}).get("profile_imports", [])
    jobs = {str(j.pk): j for j in ProfileImport.objects.filter(pk__in=ids).select_related("profile")}
    return [jobs[i] for i in ids if i in jobs]


def _run_profile_imports(imports: list) -> None:
    """Parse and analyse the benchmark's profiles here, on the worker that made them.  (They have no task of their
    own, so the lost-task sweep leaves them alone: an import left queued by a crash stays queued.)"""
    for job in imports:
        execute_import(job.pk)


def fail_lost_runs(run: BenchmarkRun | None = None, *, min_interval_s: float = 0.0) -> int:
    """Fail, naming the worker, every running benchmark (``run``, or all) whose worker node no longer answers
    (:meth:`apps.core.jobs.TrackedJobs.fail_lost_workers`); its scratch directory may remain on that host.  Returns
    how many were failed."""
    within = {"pk": run.pk} if run is not None else {}
    return BENCHMARK_JOBS.fail_lost_workers(min_interval_s=min_interval_s, **within)


def _storage(run: BenchmarkRun, scratch: str) -> dict:
    from apps.benchmarks.probes.storage import storage_probe

    p = run.parameters
    levels = [n for n in (1, 2, 4, 8, 16, 32, 64) if n <= p["max_jobs"]]
    return storage_probe(scratch, concurrency=levels, size_bytes=p["size_mb"] * MiB, runtime_s=p["runtime_s"],
                         progress=_progress(run.pk))


def _cpu(run: BenchmarkRun, scratch: str | None) -> dict:
    from apps.benchmarks.probes.cpu import cpu_probe

    _progress(run.pk)(0, 1)
    return cpu_probe(seconds=run.parameters["seconds"])


def _minipipeline(run: BenchmarkRun, scratch: str) -> dict:
    from apps.benchmarks.comparison import compare, prediction_inputs
    from apps.benchmarks.probes.minipipeline import layout_for, run_minipipeline

    p = run.parameters
    lay = layout_for(p["size_mb"] * MiB, n_days=p["n_days"], n_subbands=p["n_subbands"])
    # inputs of the prediction, measured separately from the timed run: page-cache I/O and kernel rates
    inputs = prediction_inputs(os.path.join(scratch, "probe"), lay, progress=_progress(run.pk, 0.0, 0.15))
    shutil.rmtree(os.path.join(scratch, "probe"), ignore_errors=True)
    _progress(run.pk, 0.2, 0.0)(0, 1)
    samples = os.path.join(scratch, "samples.csv")
    measured = run_minipipeline(os.path.join(scratch, "pipeline"), lay, sample_path=samples,
                                progress=_progress(run.pk, 0.2, 0.75))
    with open(samples) as fh:
        sample_csv = fh.read()
    comparison = compare(run.platform.slug, run.host or {}, inputs, measured, lay)
    trace = None
    if p.get("strace"):
        _progress(run.pk, 0.95, 0.0)(0, 1)
        trace = _traced_run(scratch, lay)
    # kept only once nothing more can fail here (a failed run leaves nothing under the uploads)
    files = [_keep_profile_file(samples, f"minipipeline-{run.pk}-samples.csv", "chiles_csv")]
    if trace:
        files.append(_keep_profile_file(trace, f"minipipeline-{run.pk}.strace", "strace"))
    return {"measured": measured, **comparison, **inputs, "samples_csv": sample_csv, "profile_files": files,
            "traced": bool(p.get("strace"))}


#: the longest a traced (untimed) run of the mini-pipeline may take (seconds)
TRACE_TIMEOUT_S = 900


def _traced_run(scratch: str, lay) -> str:
    """Run the mini-pipeline once more, untimed, in a child process under ``strace -f -tt -T`` (the timed run stays
    free of ptrace's overhead); returns the trace file."""
    strace = shutil.which("strace")
    if not strace:
        raise RuntimeError("strace is not installed on this worker host (asked for a traced run)")
    trace = os.path.join(scratch, "minipipeline.strace")
    folder = os.path.join(scratch, "traced")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    done = subprocess.run(
        [strace, "-f", "-tt", "-T", "-o", trace, sys.executable, "-m", "apps.benchmarks.probes.minipipeline",
         folder, json.dumps(asdict(lay))],
        cwd=root, capture_output=True, text=True, timeout=TRACE_TIMEOUT_S, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the traced run failed (exit {done.returncode}): {done.stderr.strip()[-500:]}")
    shutil.rmtree(folder, ignore_errors=True)
    return trace


_PROBES = {"storage": _storage, "cpu": _cpu, "minipipeline": _minipipeline}


def _source(run: BenchmarkRun, note: str) -> dict:
    host = (run.host or {}).get("hostname", "unknown host")
    return {"kind": "measurement", "host": host, "date": (run.finished_at or timezone.now()).date().isoformat(),
            "note": f"{note}; Skyplan benchmark {run.id} ({run.kind})"}


def _record_values(run: BenchmarkRun) -> None:
    values = []
    r = run.result or {}
    if run.kind == "storage":
        tool = "fio" if r.get("tool") == "fio" else "built-in probe (fio not installed)"
        where = f"{tool}, {'O_DIRECT' if r.get('direct_io') else 'buffered'} I/O in {r.get('directory')}"
        for pattern, name, label, field in (
            ("seq_read", "read_bw", "sequential read, one stream", "bytes_per_s"),
            ("seq_write", "write_bw", "sequential write, one stream", "bytes_per_s"),
            ("rand_read", "iops", "random 4 KiB read IOPS, one stream", "iops"),
        ):
            points = [p for p in r.get("points", []) if p["pattern"] == pattern]
            if not points:
                continue
            single = min(points, key=lambda p: p["jobs"])
            best = max(points, key=lambda p: p[field])
            dim = "bandwidth" if field == "bytes_per_s" else "rate"
            values.append((f"{name}_per_client", label, single[field], dim, f"{where}, 1 job"))
            values.append((name, label.replace("one stream", f"best of 1–{max(p['jobs'] for p in points)} streams"),
                           best[field], dim, f"{where}, {best['jobs']} jobs"))
    elif run.kind == "cpu":
        for key, label in (("grid_vis_per_s", "gridded visibilities per second, one core"),
                           ("fft_cells_per_s", "2-D FFT cells per second, one core"),
                           ("regrid_values_per_s", "FFT-regridded values per second, one core")):
            values.append((key, label, r[key], "rate", "numpy kernels of the mini-pipeline"))
    elif run.kind == "minipipeline":
        values.append(("minipipeline_measured_s", "mini-pipeline run time, measured", r["measured"]["makespan_s"],
                       "time", "timed run on real files"))
        values.append(("minipipeline_predicted_s", "mini-pipeline run time, simulated",
                       r["predicted"]["sequential_s"], "time", "simulator with this host's measured rates"))
    MeasuredValue.objects.bulk_create(
        (MeasuredValue(run=run, name=n, label=label, value=float(v), dimension=dim, source=_source(run, note))
         for n, label, v, dim, note in values),
        ignore_conflicts=True,  # written once per run: a repeated write changes nothing
    )


TIER_FACTS = ("read_bw", "write_bw", "iops", "read_bw_per_client", "write_bw_per_client", "iops_per_client")


def apply_to_tier(run: BenchmarkRun, tier: StorageTier) -> list[str]:
    """Set the tier's bandwidth and IOPS facts from a storage benchmark, each with its measurement provenance."""
    if run.kind != "storage" or run.status != Status.SUCCEEDED:
        raise InvalidBenchmark("only a succeeded storage benchmark can be applied to a storage tier")
    if tier.platform_id != run.platform_id:
        raise InvalidBenchmark(f"tier {tier.name!r} is not on platform {run.platform.slug!r}")
    changed = []
    with transaction.atomic():
        for mv in run.measured_values.filter(name__in=TIER_FACTS):
            setattr(tier, mv.name, mv.value)
            tier.provenance = {**(tier.provenance or {}), mv.name: mv.source}
            changed.append(mv.name)
        tier.full_clean()
        tier.save()
        run.measured_values.filter(name__in=changed).update(applied_to=f"{tier.platform.slug} / {tier.name}")
    return changed


def live_bench_platforms() -> set[str]:
    """The platforms (slugs) whose benchmark queue is consumed by a worker that beat within the last three heartbeat
    intervals: a request for any other platform waits, queued, until a worker starts on one of its hosts."""
    recent = timezone.now() - timedelta(seconds=3 * settings.SKYPLAN_HEARTBEAT_INTERVAL_S)
    prefix = queue_for("")
    live: set[str] = set()
    for queues in WorkerHeartbeat.objects.filter(seen_at__gte=recent).values_list("queues", flat=True):
        live |= {q[len(prefix):] for q in queues.split(",") if q.startswith(prefix) and len(q) > len(prefix)}
    return live


def hosts_online(timeout: float = 1.0) -> list[dict]:
    """Workers answering right now, their queues, and what their hosts said about themselves."""
    try:
        active = app.control.inspect(timeout=timeout).active_queues() or {}
    except Exception:  # noqa: BLE001 - a broker hiccup shows as "no workers", not an error page
        active = {}
    out = []
    for worker, queues in sorted(active.items()):
        hostname = worker.split("@", 1)[-1]
        beat = WorkerHeartbeat.objects.filter(hostname=hostname).order_by("-seen_at").first()
        names = sorted(q["name"] for q in queues)
        out.append({"worker": worker, "hostname": hostname, "queues": names,
                    "platforms": [q.split(".", 1)[1] for q in names if q.startswith("bench.")],
                    "cores": beat.cores if beat else None, "memory_bytes": beat.memory_bytes if beat else None,
                    "os": beat.os if beat else ""})
    return out
