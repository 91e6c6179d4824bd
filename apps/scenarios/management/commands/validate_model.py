"""``python manage.py validate_model --format json``: published vs simulated for the reference workload."""

import json

from django.core.management.base import BaseCommand, CommandError

from apps.scenarios.validation import DEFAULT_WORKLOAD, validation_report
from apps.workloads.models import Workload


class Command(BaseCommand):
    help = "Compare the simulator with every published quantity in the reference observations."

    def add_arguments(self, parser):
        parser.add_argument("--workload", default=DEFAULT_WORKLOAD)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--format", choices=["json", "text"], default="text")

    def handle(self, *args, workload, seed, format, **options):
        try:
            report = validation_report(workload, seed)
        except Workload.DoesNotExist:
            raise CommandError(f"no workload {workload!r}; load the catalogue first (make run)") from None
        if format == "json":
            self.stdout.write(json.dumps(report, indent=2))
            return
        for r in report["rows"]:
            err = "—" if r["error_pct"] is None else f"{r['error_pct']:+.1f}%"
            pub = "—" if r["published"] is None else f"{r['published']:,.4g}"
            self.stdout.write(
                f"{'met ' if r['met'] else 'MISS'} {r['quantity']:<24} {r['platform']:<11} published {pub:>9} "
                f"simulated {r['simulated']:>9,.4g} {r['unit']:<6} {err:>8} target {r['target']}"
            )
        self.stdout.write(f"{report['met']}/{report['total']} targets met")
