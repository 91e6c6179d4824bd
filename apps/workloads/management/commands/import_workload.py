"""``python manage.py import_workload FILE [--workspace ID|SLUG [--user NAME]]``: load workloads from a JSON or YAML
workload file, all or nothing.

Without ``--workspace`` the workloads go to the shared reference catalogue (a workload with the same slug is
replaced); with it they go to that workspace (its workload with the file's slug is replaced, any other is created
there), and ``--user`` names who does it: refused unless they may edit that workspace.  The format is
``docs/workloads-format.md`` (schema ``fixtures/schemas/workload.schema.json``); a refusal names the file, the JSON
path and the field, and saves nothing.
"""

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.core.management.base import BaseCommand, CommandError
from django.http import Http404

from apps.accounts.models import Workspace
from apps.workloads.catalogue import CatalogueError
from apps.workloads.files import import_workloads
from apps.workloads.services import import_into_workspace


class Command(BaseCommand):
    help = "Import workloads (a DAG of stages, each value with unit and source) from a JSON or YAML file."

    def add_arguments(self, parser):
        parser.add_argument("file", help="a .json, .yaml or .yml workload file")
        parser.add_argument("--workspace", help="id or slug of the workspace to import into (default: the shared "
                                                "reference catalogue)")
        parser.add_argument("--user", help="username importing; refused unless an editor of the workspace")

    def handle(self, *args, file, workspace, user, **options):
        if user is not None and workspace is None:
            raise CommandError("--user goes with --workspace (the reference catalogue has no editors)")
        try:
            if workspace is None:
                summary = import_workloads(file)
                self.stdout.write(self.style.SUCCESS(
                    f"Imported {summary.workloads} workloads ({summary.stages} stages)"))
                return
            space = _workspace(workspace)
            loaded = import_into_workspace(file, space, _user(user))
        except CatalogueError as exc:
            raise CommandError(str(exc)) from None
        except (PermissionDenied, Http404):
            raise CommandError(f"{user} may not edit workspace {space.slug!r} (an editor's role is needed)") from None
        slugs = ", ".join(w.slug for w in loaded)
        self.stdout.write(self.style.SUCCESS(f"Imported {len(loaded)} workloads into {space.slug}: {slugs}"))


def _workspace(key: str) -> Workspace:
    found = Workspace.objects.filter(pk=int(key)) if key.isdigit() else Workspace.objects.filter(slug=key)
    if not found.exists():
        raise CommandError(f"no workspace {key!r} (give its id or slug)")
    return found.get()


def _user(name: str | None):
    if name is None:
        return None
    found = get_user_model().objects.filter(username=name).first()
    if found is None:
        raise CommandError(f"no user {name!r}")
    return found
