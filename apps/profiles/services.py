"""Profile workflows: import (parse + analyse + save, all or nothing), calibrate a stage, apply fio to a tier.

Each function owns its transaction.  An import writes its progress while parsing and stops
at the next chunk when cancelled; only a complete parse and analysis creates a Profile, in
one transaction, so a failed or cancelled import leaves nothing behind but its error.
"""

from __future__ import annotations

import logging
import socket
from datetime import date
from pathlib import Path

from django.db import InterfaceError, OperationalError, transaction
from django.utils import timezone

from apps.core.jobs import JobCancelled, TrackedJobs, out_of_memory
from apps.core.jobs import cancel as cancel_job
from apps.core.jobs import dispatch as dispatch_job
from apps.core.labels import readable
from apps.core.storage import NotInStorage, StoreError, delete_file, local_copy, save_file
from apps.profiles import adapters
from apps.profiles.analysis import analyse
from apps.profiles.calibration import DEMAND_FACTS, derive_demands, fit_overhead, tier_facts_from_fio
from apps.profiles.checks import check_analysis, check_parsed
from apps.profiles.models import Calibration, Profile, ProfileImport, Status, TierMeasurement
from apps.profiles.parsers import FORMATS, Cancelled, ParseError, parse
from apps.profiles.uploads import StoredUpload, upload_name

__all__ = [
    "InvalidRequest", "store_upload", "discard_upload", "UPLOAD_NOT_FOUND", "PROFILE_FILE_NOT_IN_STORAGE", "create_import", "dispatch_import", "execute_import", "cancel_import",
    "import_file", "calibrate", "later_phases", "apply_calibration", "measure_tier", "apply_tier_measurement",
    "ImportJobs", "IMPORT_JOBS",
]

log = logging.getLogger(__name__)


class InvalidRequest(ValueError):
    """The request cannot be carried out; the message says why."""


#: what an import whose stored upload has gone says (no host's path: the store is shared by every host)
UPLOAD_NOT_FOUND = "upload not found in storage"
#: a profile whose kept file has gone from the store
PROFILE_FILE_NOT_IN_STORAGE = ("the profile's file is not in storage: it was removed, or the web server and the "
                               "worker that imported it use different stores (README: Several hosts)")


def store_upload(source, filename: str, *, move: bool = False) -> tuple[str, int]:
    """Keep an upload in the store every host reaches; returns its storage name and size.  An upload streamed into
    the store as the request arrived (:class:`StoredUpload`) is already there and is kept as it is; another file
    (a local path, ``move`` removing it once stored, or a file object) is copied in, named by ``upload_name()``."""
    if isinstance(source, StoredUpload):
        return source.claim()
    return save_file(upload_name(filename), source, move=move)


def create_import(*, upload_path: str, filename: str, size_bytes: int, fmt: str = "auto", user=None,
                  platform=None, stage=None, workspace=None) -> ProfileImport:
    if fmt != "auto" and fmt not in FORMATS:
        raise InvalidRequest(f"format: one of auto, {', '.join(FORMATS)}")
    return ProfileImport.objects.create(filename=filename, format=fmt, upload_path=upload_path, size_bytes=size_bytes,
                                        platform=platform, stage=stage, created_by=user, workspace=workspace)


class ImportJobs(TrackedJobs):
    """Profile imports as the job lifecycle sees them (registered in apps.profiles.apps)."""

    label = "profile import"
    model = ProfileImport
    task_name = "profiles.import_profile"

    def describe(self, job) -> str:
        return f"the import of {job.filename}"


IMPORT_JOBS = ImportJobs()


def dispatch_import(job: ProfileImport) -> None:
    dispatch_job(IMPORT_JOBS, job)


def _finish(job: ProfileImport, status: str, **fields) -> None:
    ProfileImport.objects.filter(pk=job.pk, status=Status.RUNNING).update(status=status, finished_at=timezone.now(),
                                                                          **fields)


def discard_upload(name: str) -> None:
    """Remove a stored upload (best effort: a store that is briefly unreachable leaves it, and it is logged)."""
    try:
        delete_file(name)
    except Exception:  # noqa: BLE001 - the job's own outcome stands; the file is named in the log
        log.warning("could not remove the stored upload %s", name, exc_info=True)


def _discard_upload(job: ProfileImport) -> None:
    discard_upload(job.upload_path)


def execute_import(job_id, worker: str = "", task_id: str | None = None) -> str:
    """Parse, analyse and save one import; returns its final status.  Safe to call twice; does nothing for a task
    ``task_id`` the import no longer names.  ``worker`` is the Celery node running it.  Stops within about half a
    second when cancelled.  A database error propagates (the task retries it)."""
    with transaction.atomic():
        job = ProfileImport.objects.select_for_update().get(pk=job_id)
        if not IMPORT_JOBS.start(job, worker or socket.gethostname(), task_id):
            return job.status
    try:
        # parsing is ~95 % of the work; analysis and saving the rest
        progress = IMPORT_JOBS.progress(job, span=0.95)
        with local_copy(job.upload_path) as path:
            parsed = parse(path, job.format, filename=job.filename, progress=progress)
            check_parsed(parsed, path, job.filename)
        progress.check()
        analysis = analyse(parsed, adapters.host_capacity(job.platform))
        check_analysis(analysis, job.filename)
        analysis["name"] = job.filename
        with transaction.atomic():
            job = ProfileImport.objects.select_for_update().get(pk=job.pk)
            if job.status != Status.RUNNING:  # cancelled, or finished meanwhile (another delivery): keep that
                raise JobCancelled()
            profile = Profile.objects.create(
                name=job.filename, format=parsed.format, kind=parsed.kind, size_bytes=job.size_bytes,
                file=job.upload_path, host=str(parsed.meta.get("host") or ""), duration_s=analysis["summary"].get("duration_s"),
                summary=analysis["summary"], analysis=analysis, platform=job.platform, stage=job.stage,
                created_by=job.created_by, workspace=job.workspace,
            )
            job.profile = profile
            job.status, job.progress, job.finished_at = Status.SUCCEEDED, 1.0, timezone.now()
            job.save(update_fields=["profile", "status", "progress", "finished_at"])
        return Status.SUCCEEDED
    except ParseError as exc:
        _finish(job, Status.FAILED, error=str(exc), error_line=exc.line)
    except NotInStorage:
        _finish(job, Status.FAILED, error=f"{job.filename}: {UPLOAD_NOT_FOUND}")
    except StoreError as exc:  # the store failed, not the file: say so
        log.warning("profile import %s: %s", job.pk, exc)
        _finish(job, Status.FAILED, error=f"{job.filename}: the upload could not be read from storage ({exc}); "
                                          "nothing is known to be wrong with the file: upload it again once the "
                                          "store is reachable")
    except (JobCancelled, Cancelled):
        pass
    except (OperationalError, InterfaceError):
        raise  # the database went away: the task retries once it is back
    except MemoryError:
        _finish(job, Status.FAILED, error=f"{job.filename}: {out_of_memory('analysing this file')}; nothing of this "
                                          "file was saved")
    except Exception as exc:  # a parser bug must not leave the job running forever
        log.exception("profile import %s failed", job.pk)
        # the exception's text can hold SQL or server paths: it goes to the log, the user gets the file's name
        _finish(job, Status.FAILED, error=f"{job.filename}: could not be analysed (an internal error, logged as "
                                          f"{type(exc).__name__}; nothing of this file was saved)")
    status = ProfileImport.objects.values_list("status", flat=True).get(pk=job.pk)
    if status != Status.SUCCEEDED:
        _discard_upload(job)
    return status


def cancel_import(job: ProfileImport) -> bool:
    """Cancel a queued or running import (a running one stops within about half a second, or is terminated); False
    when it had already finished.  Its upload is discarded now: a queued task will not start, and a terminated one
    cannot clean up (a parser reading it keeps its open copy until it stops)."""
    if not cancel_job(job, cancel_requested=True):
        return False
    _discard_upload(job)
    return True


def import_file(path: Path | str, *, fmt: str = "auto", user=None, platform=None, stage=None,
                filename: str | None = None, workspace=None) -> ProfileImport:
    """Import a local file now, in this process (the command line's path); returns the finished job."""
    filename = filename or Path(path).name
    rel, size = store_upload(path, filename)
    job = create_import(upload_path=rel, filename=filename, size_bytes=size, fmt=fmt, user=user, platform=platform,
                        stage=stage, workspace=workspace)
    execute_import(job.pk)
    job.refresh_from_db()
    return job


# --- calibration -------------------------------------------------------------------------------------

def later_phases(stage) -> list[str]:
    """The stages of ``stage``'s workload that continue its task (``dependency`` ``continues``), in chain order."""
    rows = {st.name: st for st in stage.workload.stages.all()}
    out, at = [], stage.name
    while True:
        nxt = next((st.name for st in rows.values() if st.dependency == "continues" and list(st.depends_on) == [at]
                    and st.name not in out), None)
        if nxt is None:
            return out
        out.append(nxt)
        at = nxt


def calibrate(*, profiles: list[Profile], stage, platform, node_type: str | None = None, tier: str | None = None,
              user=None) -> Calibration:
    """Derive the stage's demands from ``profiles`` (one run), fit the overhead on ``platform``, save the result."""
    if not profiles:
        raise InvalidRequest("choose at least one profile")
    kinds = [p.kind for p in profiles]
    if any(k == Profile.Kind.FIO for k in kinds):
        raise InvalidRequest("a fio profile measures a storage tier, not a stage: apply it to a tier instead")
    if len(set(kinds)) != len(kinds):
        raise InvalidRequest("profiles of one run: at most one strace and one per-second samples file")
    phases = later_phases(stage)
    if phases:
        raise InvalidRequest(f"stage {stage.name!r} runs as one task with the phases {', '.join(phases)} after it; a "
                             f"profile of the whole task cannot say which phase each demand belongs to: calibrate a "
                             f"stage that is its task's only phase")
    default_nt, default_tier = adapters.default_node_and_tier(platform)
    node_type = node_type or default_nt
    tier = tier or default_tier
    if node_type is None:
        raise InvalidRequest(f"{platform.name} has no node type to run the task on")
    spec = adapters.platform_spec(platform)
    try:
        spec.node_type(node_type)
        if tier is not None:
            spec.storage_tier(tier)
    except KeyError as exc:
        raise InvalidRequest(str(exc).strip("'\"")) from None
    analyses = [dict(p.analysis, name=p.name) for p in profiles]
    try:
        derived = derive_demands(analyses)
    except ValueError as exc:
        raise InvalidRequest(str(exc)) from None
    before = adapters.stage_facts(stage)
    facts = {**before, **derived.facts}
    facts.pop("overhead", None)

    def sim(overhead: float) -> float:
        return adapters.simulate_stage_task(spec, stage.name, {**facts, "overhead": overhead}, node_type=node_type,
                                            tier=tier)

    overhead, _without, after = fit_overhead(derived.measured_s, sim)
    facts["overhead"] = overhead
    notes = dict(derived.notes)
    notes["overhead"] = (f"fitted: measured {derived.measured_s:.3f} s minus the simulated task without overhead "
                         f"({_without:.3f} s) on {platform.name}, {readable(node_type)}, {tier or 'no storage tier'}")
    sim_before = adapters.simulate_stage_task(spec, stage.name, before, node_type=node_type, tier=tier)
    ids = ", ".join(f"{p.pk} ({p.name})" for p in profiles)
    method = (f"fitted from profile {ids}: demands measured in the profile, overhead fitted so one task on "
              f"{platform.name} ({readable(node_type)}, {tier or 'no storage tier'}) takes the measured {derived.measured_s:.3f} s")
    with transaction.atomic():
        cal = Calibration.objects.create(
            stage=stage, platform=platform, node_type=node_type, storage_tier=tier or "", demands=facts, notes=notes,
            before=before, measured_s=derived.measured_s, simulated_before_s=sim_before, simulated_after_s=after,
            method=method, created_by=user, workspace=profiles[0].workspace,
        )
        cal.profiles.set(profiles)
    return cal


def apply_calibration(cal: Calibration) -> None:
    """Write the calibration's demands onto its workload stage, each with provenance "fitted from profile P"."""
    with transaction.atomic():
        stage = type(cal.stage).objects.select_for_update().get(pk=cal.stage_id)
        prov = dict(stage.provenance or {})
        for name in DEMAND_FACTS:
            if name not in cal.demands:
                continue
            setattr(stage, name, cal.demands[name])
            prov[name] = {"kind": "fitted", "method": f"{cal.method}; {name}: {cal.notes.get(name, '')}".strip()}
        stage.provenance = prov
        stage.full_clean()
        stage.save()
        cal.applied_at = timezone.now()
        cal.save(update_fields=["applied_at"])


def measure_tier(profile: Profile, tier, *, host: str | None = None, when: date | None = None,
                 user=None) -> TierMeasurement:
    """What a fio profile measured for ``tier`` (not applied yet)."""
    if profile.kind != Profile.Kind.FIO:
        raise InvalidRequest("only a fio profile measures a storage tier")
    values = tier_facts_from_fio(profile.analysis, tier.scope)
    if not values:
        raise InvalidRequest("the fio run measured no bandwidth or IOPS")
    when = when or _fio_date(profile) or profile.created_at.date()
    host = (host or profile.host or "").strip()
    if not host:
        raise InvalidRequest("host: name the host fio ran on")
    before = {k: getattr(tier, k) for k in values}
    return TierMeasurement.objects.create(profile=profile, tier=tier, host=host, date=when, values=values,
                                          before=before, created_by=user)


def _fio_date(profile: Profile) -> date | None:
    stamp = (profile.analysis.get("meta") or {}).get("timestamp")
    if isinstance(stamp, (int, float)):
        return timezone.datetime.fromtimestamp(stamp, tz=timezone.get_current_timezone()).date()
    return None


def apply_tier_measurement(m: TierMeasurement) -> None:
    """Write fio's figures onto the tier with provenance "measured on host H at date D with fio"."""
    with transaction.atomic():
        tier = type(m.tier).objects.select_for_update().get(pk=m.tier_id)
        prov = dict(tier.provenance or {})
        for name, value in m.values.items():
            setattr(tier, name, value)
            prov[name] = {"kind": "measurement", "host": m.host, "date": m.date.isoformat(),
                          "note": f"with fio (profile {m.profile_id}, {m.profile.name})"}
        tier.provenance = prov
        tier.full_clean()
        tier.save()
        m.applied_at = timezone.now()
        m.save(update_fields=["applied_at"])
