"""``python manage.py simulate <workload> --platform <slug> [--workspace ID] [--user NAME] [--replications N]
[--seed S] --format json``.

Creates a persisted simulation run and executes its replications in this process
(the browser and the API send them to Celery workers instead).  A workspace's own
platform (a copy) runs in that workspace (``--workspace``, its id or slug); with
``--user`` the run is made as that user, who must be an editor there (a workspace
they cannot see is refused as not found).
"""

import json

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.core.management.base import BaseCommand, CommandError
from django.http import Http404

from apps.accounts.models import Role, Workspace
from apps.accounts.workspaces import require_role
from apps.platforms.models import Platform
from apps.scenarios.models import SimulationRun
from apps.scenarios.services import InvalidScenario, create_run, execute_replication
from apps.workloads.models import Workload


class Command(BaseCommand):
    help = "Simulate a workload on a platform and print the results."

    def add_arguments(self, parser):
        parser.add_argument("workload", help="workload slug, e.g. chiles-epoch1")
        parser.add_argument("--platform", required=True, help="platform slug, e.g. magnus")
        parser.add_argument("--workspace", help="id or slug of the workspace the run belongs to (needed for a "
                                                "workspace's own platform)")
        parser.add_argument("--user", help="username to act as: the run is theirs, and they must be an editor of "
                                           "the workspace")
        parser.add_argument("--replications", type=int, default=1)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--options", default="{}", help="scenario options as JSON (placements, flags)")
        parser.add_argument("--format", choices=["json", "text"], default="text")

    def handle(self, *args, workload, platform, workspace, user, replications, seed, options, format, **kw):
        actor = _user(user)
        ws = _workspace(workspace, actor)
        try:
            wl = Workload.objects.get(slug=workload)
            pl = Platform.objects.get(slug=platform)
        except (Workload.DoesNotExist, Platform.DoesNotExist) as exc:
            raise CommandError(f"{exc}; slugs: {_slugs()}") from None
        if pl.workspace_id is not None and ws is None:
            raise CommandError(f"platform {pl.slug!r} belongs to a workspace: pass --workspace with that workspace's "
                               f"id or slug")
        try:
            opts = json.loads(options)
        except json.JSONDecodeError as exc:
            raise CommandError(f"--options is not JSON: {exc}") from None
        try:
            run = create_run(platform=pl, workload=wl, options=opts, seed=seed, replications=replications,
                             user=actor, workspace=ws)
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


def _user(username: str | None):
    if username is None:
        return None
    try:
        return get_user_model().objects.get(username=username)
    except get_user_model().DoesNotExist:
        raise CommandError(f"--user: no user {username!r}") from None


def _workspace(key: str | None, actor) -> Workspace | None:
    """The workspace named by id or slug; refused as not found for a user who is not a member of it."""
    if key is None:
        return None
    ws = Workspace.objects.filter(pk=int(key)).first() if key.isdigit() else None
    ws = ws or Workspace.objects.filter(slug=key).first()
    if ws is None:
        raise CommandError(f"--workspace: no workspace {key!r}")
    if actor is not None:
        try:
            require_role(actor, ws, Role.EDITOR)
        except Http404:
            raise CommandError(f"--workspace: no workspace {key!r} that {actor.username} can see") from None
        except PermissionDenied as exc:
            raise CommandError(f"--workspace: {exc}") from None
    return ws


def _slugs() -> str:
    return (
        f"workloads {', '.join(Workload.objects.values_list('slug', flat=True))}; "
        f"platforms {', '.join(Platform.objects.values_list('slug', flat=True))}"
    )
