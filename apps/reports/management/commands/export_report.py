"""``python manage.py export_report <scenario> --format pdf|html|csv|xlsx|json -o FILE [--run]``.

``<scenario>`` is a scenario's id, its exact name, or ``demo`` (the paper's CHILES epoch on its three
platforms, created if missing).  With ``--run`` a scenario that has not finished is simulated first, in this
process.  Nothing is written when the export fails.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.reports.document import ReportNotReady
from apps.reports.models import FORMATS
from apps.reports.render import RenderError
from apps.reports.services import InvalidReport, export_report
from apps.scenarios.models import Scenario
from apps.scenarios.services import (
    DEMO,
    InvalidScenario,
    create_demo_scenario,
    execute_replication,
    run_scenario,
)


class Command(BaseCommand):
    help = "Export a scenario's ranked platform report as PDF, HTML, CSV (ZIP of tables), XLSX or JSON."

    def add_arguments(self, parser):
        parser.add_argument("scenario", help="scenario id, exact name, or 'demo'")
        parser.add_argument("--format", dest="fmt", choices=list(FORMATS), required=True)
        parser.add_argument("-o", "--output", required=True, help="file to write (replaced if it exists)")
        parser.add_argument("--run", action="store_true", help="simulate the scenario here first if it has not finished")
        parser.add_argument("--summary", choices=["text", "json"], default="text",
                            help="how to print what was written (json for scripts)")

    def handle(self, *args, scenario, fmt, output, run, summary, **kw):
        target = Path(output)
        if not target.parent.is_dir():
            raise CommandError(f"-o {output}: directory {target.parent} does not exist")
        sc = self._scenario(scenario)
        if run and sc.status() != "succeeded":
            self._run(sc)
        try:
            written = export_report(sc, fmt, target)
        except (ReportNotReady, InvalidReport, RenderError) as exc:
            hint = "" if run else " (add --run to simulate it here first)"
            raise CommandError(f"{exc}{hint}") from None
        if summary == "json":
            self.stdout.write(json.dumps(written))
        else:
            self.stdout.write(f"wrote {written['path']} ({written['bytes']:,} bytes, {fmt}) in {written['seconds']} s; "
                              f"recommendation: {written['recommendation']}")

    def _scenario(self, ref: str) -> Scenario:
        try:
            return Scenario.objects.get(pk=uuid.UUID(ref))
        except (ValueError, Scenario.DoesNotExist):
            pass
        if ref == "demo":
            found = Scenario.objects.filter(name=DEMO["name"], parent=None).order_by("-created_at").first()
            try:
                return found or create_demo_scenario()
            except InvalidScenario as exc:
                raise CommandError(str(exc)) from None
        matches = list(Scenario.objects.filter(name=ref)[:2])
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise CommandError(f"scenario: several are named {ref!r}; give its id")
        raise CommandError(f"scenario: no scenario has id or name {ref!r}")

    def _run(self, scenario: Scenario) -> None:
        try:
            run_scenario(scenario, dispatch=False)
        except InvalidScenario as exc:
            raise CommandError(str(exc)) from None
        for sim in scenario.runs():
            for rep in sim.replication_set.all():
                execute_replication(str(sim.id), rep.index)
        scenario.refresh_from_db()
        if scenario.status() != "succeeded":
            self.stderr.write(f"scenario finished {scenario.status()}; reporting the platforms that succeeded")
