"""``python manage.py validate_model --format json``: published vs simulated for the reference workload.

JSON: a list of rows, each with ``seed``, ``quantity``, ``platform``, ``published``, ``simulated``, ``unit``,
``in_sample`` (from the fits actually run) and ``target_pct`` (null for a qualitative check)."""

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
        rows = report["rows"] + report["qualitative"]
        if format == "json":
            keys = ("seed", "quantity", "platform", "published", "simulated", "unit", "in_sample", "target_pct")
            extra = ("error_pct", "met", "target", "observation", "where")
            self.stdout.write(json.dumps([{k: r[k] for k in keys + extra} for r in rows], indent=2))
            return
        for r in rows:
            err = "—" if r["error_pct"] is None else f"{r['error_pct']:+.1f}%"
            pub = "—" if r["published"] is None else f"{r['published']:,.4g}"
            self.stdout.write(
                f"{'met ' if r['met'] else 'MISS'} {r['seed'] or '—':<3} {r['quantity']:<24} {r['platform']:<11} "
                f"published {pub:>9} simulated {r['simulated']:>9,.4g} {r['unit']:<6} {err:>8} target {r['target']}"
                f"{'  [in sample]' if r['in_sample'] else ''}"
            )
        for sm in report["seeds"][1:]:
            self.stdout.write(_summary_line(sm))
        self.stdout.write(f"{report['met']}/{report['total']} out-of-sample targets met "
                          f"({report['in_sample']} in-sample rows not counted); "
                          f"qualitative checks: {report['qualitative_met']}/{report['qualitative_total']} met"
                          + (f" ({report['qualitative_in_sample']} more in sample: an input chosen for it or read off its "
                             f"published figure, not counted)"
                             if report.get("qualitative_in_sample") else "") + "; "
                          f"{_summary_line(report['seeds'][0]).split(': ', 1)[1]}")


def _summary_line(sm: dict) -> str:
    med = "—" if sm["median_abs_error_pct"] is None else f"{sm['median_abs_error_pct']:.1f}%"
    return (f"seed {sm['seed']}: {sm['rows']} out-of-sample rows, median |error| {med}, {sm['within_25']} within 25%, "
            f"{sm['beyond_50']} beyond 50%; {sm['in_sample']} in sample; qualitative {sm['qualitative_met']}/"
            f"{sm['qualitative']}" + (f" (+{sm['qualitative_in_sample']} in sample)" if sm.get("qualitative_in_sample")
                                      else ""))
