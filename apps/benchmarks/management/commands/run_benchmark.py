"""``python manage.py run_benchmark --platform SLUG --kind storage|cpu|minipipeline [--param k=v ...]``.

Sends the benchmark to a worker consuming ``bench.<platform>`` and waits for it (``--no-wait`` to return at
once); ``--format json`` prints the stored result and measured values.
"""

import json
import time

from django.core.management.base import BaseCommand, CommandError

from apps.benchmarks import services
from apps.benchmarks.models import BenchmarkRun
from apps.platforms.models import Platform


def _value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


class Command(BaseCommand):
    help = "Run a predefined benchmark on a worker of the platform's queue (bench.<platform>)."

    def add_arguments(self, parser):
        parser.add_argument("--platform", required=True)
        parser.add_argument("--kind", required=True, choices=list(services.DEFAULTS))
        parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
        parser.add_argument("--timeout", type=float, default=3600)
        parser.add_argument("--no-wait", action="store_true")
        parser.add_argument("--format", choices=["json", "text"], default="text")

    def handle(self, *args, platform, kind, param, timeout, no_wait, format, **kw):
        try:
            pl = Platform.objects.get(slug=platform)
        except Platform.DoesNotExist:
            raise CommandError(f"no platform {platform!r}; known: "
                               f"{', '.join(Platform.objects.values_list('slug', flat=True))}") from None
        params = {}
        for item in param:
            name, sep, value = item.partition("=")
            if not sep:
                raise CommandError(f"--param {item!r}: expected NAME=VALUE")
            params[name] = _value(value)
        try:
            run = services.create_benchmark(platform=pl, kind=kind, parameters=params)
        except services.InvalidBenchmark as exc:
            raise CommandError(str(exc)) from None
        services.dispatch(run)
        self.stderr.write(f"benchmark {run.id} sent to queue {run.queue}")
        if no_wait:
            self.stdout.write(json.dumps({"run": str(run.id), "status": run.status}) if format == "json" else str(run.id))
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            run.refresh_from_db()
            if run.is_finished or services.fail_lost_runs(run, min_interval_s=10.0):
                run.refresh_from_db()
                break
            time.sleep(0.5)
        else:
            raise CommandError(f"benchmark {run.id} still {run.status} after {timeout:.0f} s: is a worker "
                               f"consuming {run.queue}?")
        if run.status != BenchmarkRun.Status.SUCCEEDED:
            raise CommandError(f"benchmark {run.status}: {run.error}")
        values = [{"name": v.name, "label": v.label, "value": v.value, "dimension": v.dimension, "source": v.source}
                  for v in run.measured_values.all()]
        if format == "json":
            result = dict(run.result or {})
            result.pop("samples_csv", None)
            self.stdout.write(json.dumps({"run": str(run.id), "host": run.host, "result": result,
                                          "measured_values": values}))
            return
        for v in values:
            self.stdout.write(f"{v['label']}: {v['value']:.6g} ({v['dimension']})")
