"""``python manage.py export_workload SLUG [--format json|yaml] [-o FILE]``: a workload as a workload file.

What it writes, ``import_workload`` reads back: values in base units, each with its source.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.workloads.files import dump, workload_entry
from apps.workloads.models import Workload


class Command(BaseCommand):
    help = "Export a workload (its parameters and stages, each value with unit and source) as JSON or YAML."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--format", choices=["json", "yaml"], help="default: from -o's extension, else json")
        parser.add_argument("-o", "--output", help="file to write (default: standard output)")

    def handle(self, *args, slug, format, output, **options):
        workload = Workload.objects.filter(slug=slug).first()
        if workload is None:
            known = ", ".join(Workload.objects.values_list("slug", flat=True)) or "none"
            raise CommandError(f"no workload {slug!r}; known: {known}")
        if format is None:
            format = "yaml" if output and Path(output).suffix.lower() in (".yaml", ".yml") else "json"
        text = dump(workload_entry(workload), format)
        if output:
            Path(output).write_text(text, encoding="utf-8")
            self.stdout.write(self.style.SUCCESS(f"Wrote {workload.slug} to {output}"))
        else:
            self.stdout.write(text, ending="")
