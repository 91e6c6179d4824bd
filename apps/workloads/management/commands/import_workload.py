"""``python manage.py import_workload FILE``: load workloads from a JSON or YAML workload file, all or nothing.

The format is ``docs/workloads-format.md`` (schema ``fixtures/schemas/workload.schema.json``); a refusal names
the file, the JSON path and the field, and saves nothing.
"""

from django.core.management.base import BaseCommand, CommandError

from apps.workloads.catalogue import CatalogueError
from apps.workloads.files import import_workloads


class Command(BaseCommand):
    help = "Import workloads (a DAG of stages, each value with unit and source) from a JSON or YAML file."

    def add_arguments(self, parser):
        parser.add_argument("file", help="a .json, .yaml or .yml workload file")

    def handle(self, *args, file, **options):
        try:
            summary = import_workloads(file)
        except CatalogueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(self.style.SUCCESS(f"Imported {summary.workloads} workloads ({summary.stages} stages)"))
