"""Import a profile file from the command line: parse, analyse, save; print a summary and its classification."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from apps.platforms.models import Platform
from apps.profiles.analysis import BOUND_LABELS
from apps.profiles.parsers import FORMATS
from apps.profiles.services import import_file
from apps.workloads.models import WorkloadStage


class Command(BaseCommand):
    help = ("Import a profiling file (strace, pidstat, Skyplan or CHILES CSV, fio JSON, Darshan log) "
            "and print what it shows.")

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--format", default="auto", choices=("auto", *FORMATS))
        parser.add_argument("--platform", help="slug of the platform the run was on")
        parser.add_argument("--stage", help="workload stage it profiles: NAME, or WORKLOAD/NAME when ambiguous")
        parser.add_argument("--format-output", choices=("text", "json"), default="text")

    def handle(self, *args, **opts):
        platform = stage = None
        if opts["platform"]:
            platform = Platform.objects.filter(slug=opts["platform"]).first()
            if platform is None:
                raise CommandError(f"--platform: no platform {opts['platform']!r} "
                                   f"(known: {', '.join(Platform.objects.values_list('slug', flat=True))})")
        if opts["stage"]:
            stage = self._stage(opts["stage"])
        try:
            open(opts["file"], "rb").close()
        except OSError as exc:
            raise CommandError(f"{opts['file']}: {exc.strerror}") from None
        job = import_file(opts["file"], fmt=opts["format"], platform=platform, stage=stage)
        if job.status != "succeeded":
            raise CommandError(job.error or f"import {job.status}")
        p = job.profile
        if opts["format_output"] == "json":
            self.stdout.write(json.dumps({"profile": p.pk, "name": p.name, "format": p.format, "kind": p.kind,
                                          "summary": p.summary, "phases": p.phases}, indent=2, default=float))
            return
        s = p.summary
        self.stdout.write(f"profile {p.pk}: {p.name} ({p.format}), {_or_not(s.get('duration_s'), '{:.2f} s')}")
        for warning in (p.analysis.get("meta") or {}).get("warnings") or []:
            self.stdout.write(f"  warning: {warning}")
        if p.kind == "strace":
            for cls, n in s["ops"].items():
                self.stdout.write(f"  {cls:<10} {n:>10} requests {s['bytes'][cls] / 1e6:>12.1f} MB")
            self.stdout.write(f"  classification: {s['classification']} ({s['io_character']})")
        elif p.kind == "samples":
            self.stdout.write(f"  CPU {_or_not(s.get('cpu_seconds'), '{:.2f} core-s')} "
                              f"(p90 {_or_not(s.get('cpu_pct_p90'), '{:.0f}% of a core')}), "
                              f"peak RSS {_or_not(s.get('peak_memory_bytes'), '{:.1f} MB', 1e-6)}, "
                              f"read {_or_not(s.get('read_bytes'), '{:.1f} MB', 1e-6)}, "
                              f"written {_or_not(s.get('write_bytes'), '{:.1f} MB', 1e-6)}")
            self.stdout.write(f"  I/O: {s['io_character']}")
        elif p.kind == "darshan":
            m = p.analysis.get("meta") or {}
            self.stdout.write(f"  {m.get('executable') or 'executable not recorded'}: {m.get('nprocs')} processes, "
                              f"job {m.get('jobid')}, modules {', '.join(m.get('modules') or [])}")
            for cls, n in s["ops"].items():
                self.stdout.write(f"  {cls:<10} {n:>10} requests {s['bytes'][cls] / 1e6:>12.1f} MB (bytes estimated)")
            lo_hi = s.get("io_range_bytes_per_s") or [0.0, 0.0]
            self.stdout.write(f"  read {s['read_bytes'] / 1e6:.1f} MB, written {s['write_bytes'] / 1e6:.1f} MB, "
                              f"{lo_hi[0] / 1e6:.1f} ~ {lo_hi[1] / 1e6:.1f} MB/s")
            self.stdout.write(f"  classification: {s['classification']} ({s['io_character']})")
        else:
            t = s["tier"]
            self.stdout.write(f"  fio: read {_or_not(t['read_bw'], '{:.1f} MB/s', 1e-6)}, "
                              f"write {_or_not(t['write_bw'], '{:.1f} MB/s', 1e-6)}, "
                              f"{_or_not(t['iops'], '{:.0f} IOPS')}, latency {_or_not(t.get('latency'), '{:.3f} ms', 1e3)}")
            for note in s.get("grouping") or []:
                self.stdout.write(f"  {note}")
            for f in s.get("failed_jobs") or []:
                self.stdout.write(f"  job {f['job']} failed (fio error {f['error']}: {f['message']}): not used as a measurement")
        for ph in p.phases:
            self.stdout.write(f"  phase {ph['start_s']:8.1f} – {ph['end_s']:8.1f} s  {BOUND_LABELS[ph['bound']]}")

    def _stage(self, text: str):
        if "/" in text:
            workload, name = text.split("/", 1)
            found = WorkloadStage.objects.filter(workload__slug=workload, name=name)
        else:
            found = WorkloadStage.objects.filter(name=text)
        if found.count() != 1:
            raise CommandError(f"--stage {text!r}: {'no such stage' if not found.exists() else 'ambiguous'}; "
                               "use WORKLOAD/NAME, e.g. chiles-epoch1/split")
        return found.get()


def _or_not(value, fmt: str, scale: float = 1.0) -> str:
    """A figure in ``fmt`` (after ``scale``), or "not recorded" where the file lacks it (never a 0)."""
    return "not recorded" if value is None else fmt.format(float(value) * scale)
