"""``python manage.py load_catalogue [DIR]``: load the reference catalogue, all or nothing."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from apps.workloads.catalogue import CatalogueError, load_catalogue


class Command(BaseCommand):
    help = "Load the reference catalogue (platforms, workloads, reference observations) from JSON fixtures."

    def add_arguments(self, parser):
        parser.add_argument("directory", nargs="?", default=str(settings.SKYPLAN_CATALOGUE_DIR))

    def handle(self, *args, directory, **options):
        try:
            summary = load_catalogue(directory)
        except CatalogueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(self.style.SUCCESS(f"Loaded {summary}"))
