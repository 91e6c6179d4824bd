"""``python manage.py fit_model``: refit the model values fitted to reference observations and store them."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from apps.scenarios.validation import DEFAULT_WORKLOAD, fit_model, write_fitted_to_fixtures
from apps.workloads.models import Workload
from simulator.model.calibration import Demand


def _demand(text: str) -> Demand:
    """``NAME[:LOWER[:UPPER]]`` in base units (seconds, bytes, operations)."""
    name, *bounds = text.split(":")
    try:
        lower = float(bounds[0]) if bounds and bounds[0] else 0.0
        upper = float(bounds[1]) if len(bounds) > 1 and bounds[1] else float("inf")
    except ValueError:
        raise CommandError(f"--demand {text!r}: bounds must be numbers (NAME[:LOWER[:UPPER]])") from None
    return Demand(name, lower, upper)


class Command(BaseCommand):
    help = ("Fit a workload's demands to its observations marked for fitting and store them in the catalogue "
            "(provenance: fitted to observations ...). Without --demand: the INVERT CPU split of a CHILES workload "
            "(the CPU of its invert task's serial and parallel phases), from the observations marked fit=invert_cpu.")

    def add_arguments(self, parser):
        parser.add_argument("--workload", default=DEFAULT_WORKLOAD)
        parser.add_argument("--demand", action="append", default=[], metavar="NAME[:LOWER[:UPPER]]",
                            help="a value to fit: <stage>.<field> (cpu_seconds, overhead_s, seq_read_bytes, ...) or a "
                                 "workload parameter, bounds in base units; repeat for several")
        parser.add_argument("--write-fixtures", action="store_true",
                            help="also write the values into the catalogue's workloads.json (SKYPLAN_CATALOGUE_DIR)")

    def handle(self, *args, workload, write_fixtures, demand, **options):
        demands = [_demand(d) for d in demand]
        if demands and write_fixtures:
            raise CommandError("--write-fixtures writes the INVERT CPU split only; leave out --demand")
        try:
            fitted = fit_model(workload, demands or None)
        except Workload.DoesNotExist:
            raise CommandError(f"no workload {workload!r}; load the catalogue first (make run)") from None
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        for f in fitted:
            self.stdout.write(f"{f.name} = {f.value:.6g} {f.unit} (fitted to {', '.join(f.observations)})")
        if write_fixtures:
            path = write_fitted_to_fixtures(settings.SKYPLAN_CATALOGUE_DIR, workload, fitted)
            self.stdout.write(f"written to {path}")
