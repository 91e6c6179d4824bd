"""``python manage.py simulate <workload> --platform <slug> [--replications N] [--seed S] --format json``.

Creates a persisted simulation run and executes its replications in this process
(the browser and the API send them to Celery workers instead).
"""

import json

from django.core.management.base import BaseCommand, CommandError

from apps.platforms.models import Platform
from apps.scenarios.models import SimulationRun
from apps.scenarios.services import InvalidScenario, create_run, execute_replication
from apps.workloads.models import Workload


class Command(BaseCommand):
    help = "Simulate a workload on a platform and print the results."

    def add_arguments(self, parser):
        parser.add_argument("workload", help="workload slug, e.g. chiles-epoch1")
        parser.add_argument("--platform", required=True, help="platform slug, e.g. magnus")
        parser.add_argument("--replications", type=int, default=1)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--options", default="{}", help="scenario options as JSON (placements, flags)")
        parser.add_argument("--format", choices=["json", "text"], default="text")

    def handle(self, *args, workload, platform, replications, seed, options, format, **kw):
        try:
            wl = Workload.objects.get(slug=workload)
            pl = Platform.objects.get(slug=platform)
        except (Workload.DoesNotExist, Platform.DoesNotExist) as exc:
            raise CommandError(f"{exc}; slugs: {_slugs()}") from None
        try:
            opts = json.loads(options)
        except json.JSONDecodeError as exc:
            raise CommandError(f"--options is not JSON: {exc}") from None
        try:
            run = create_run(platform=pl, workload=wl, options=opts, seed=seed, replications=replications)
        except InvalidScenario as exc:
            raise CommandError(str(exc)) from None
        for rep in run.replication_set.all():
            execute_replication(str(run.id), rep.index)
        run = SimulationRun.objects.get(pk=run.pk)
        if run.status != SimulationRun.Status.SUCCEEDED:
            raise CommandError(f"simulation {run.status}: {run.error}")
        results = [r.result for r in run.replication_set.all()]
        if format == "json":
            self.stdout.write(json.dumps({"run": str(run.id), "summary": run.results, "replications": results}))
            return
        s = run.results
        self.stdout.write(f"{run.label}: run {run.id}")
        self.stdout.write(
            f"makespan P10/P50/P90: {s['makespan_p10_s'] / 3600:.1f} / {s['makespan_p50_s'] / 3600:.1f} / "
            f"{s['makespan_p90_s'] / 3600:.1f} h; cost P50 AUD {s['cost_p50_aud']:,.0f}"
        )


def _slugs() -> str:
    return (
        f"workloads {', '.join(Workload.objects.values_list('slug', flat=True))}; "
        f"platforms {', '.join(Platform.objects.values_list('slug', flat=True))}"
    )
