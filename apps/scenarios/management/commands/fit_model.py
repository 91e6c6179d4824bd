"""``python manage.py fit_model``: refit the model values fitted to reference observations and store them."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from apps.scenarios.validation import DEFAULT_WORKLOAD, fit_model, write_fitted_to_fixtures
from apps.workloads.models import Workload


class Command(BaseCommand):
    help = ("Fit the INVERT CPU split of a CHILES workload to the reference observations marked fit=invert_cpu and "
            "store it in the catalogue (provenance: fitted to observations ...).")

    def add_arguments(self, parser):
        parser.add_argument("--workload", default=DEFAULT_WORKLOAD)
        parser.add_argument("--write-fixtures", action="store_true",
                            help="also write the values into the catalogue's workloads.json (SKYPLAN_CATALOGUE_DIR)")

    def handle(self, *args, workload, write_fixtures, **options):
        try:
            fitted = fit_model(workload)
        except Workload.DoesNotExist:
            raise CommandError(f"no workload {workload!r}; load the catalogue first (make run)") from None
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        for f in fitted:
            self.stdout.write(f"{f.name} = {f.value:.6g} {f.unit} (fitted to {', '.join(f.observations)})")
        if write_fixtures:
            path = write_fitted_to_fixtures(settings.SKYPLAN_CATALOGUE_DIR, workload, fitted)
            self.stdout.write(f"written to {path}")
