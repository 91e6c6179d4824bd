"""Workload workflows: which workloads a user sees, creating, changing, copying and deleting a workspace's own.

The reference catalogue (workloads of no workspace) is shared and read-only (staff load it from
``fixtures/catalogue``); a workspace's workloads are seen by its members and changed by its editors.  Every
change goes through the catalogue loader's checks (:func:`apps.workloads.catalogue.load_workload`), so a user's
workload meets the rules the reference catalogue does, every value with its unit and its source.
"""

from __future__ import annotations

import re
from pathlib import Path

from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction

from apps.accounts.models import Workspace
from apps.accounts.workspaces import Role, get_or_404, require_role, visible
from apps.workloads.catalogue import (
    NUL_MESSAGE,
    SLUG_BASE_CHARS,
    CatalogueError,
    InvalidEntry,
    load_workload,
    merge_changes,
    nul_at,
    wanted_slug,
)
from apps.workloads.files import check_schema, file_entries, workload_entry
from apps.workloads.models import Workload

__all__ = ["InvalidWorkload", "WorkloadInUse", "visible_workloads", "get_workload", "require_workload_editor",
           "editable_workload", "create_workload", "update_workload", "copy_workload", "delete_workload",
           "merge_entry", "import_into_workspace"]

_COPY_SUFFIX = re.compile(r"-copy(-\d+)?$")
_NAME_SUFFIX = re.compile(r" \(copy( \d+)?\)$")


class InvalidWorkload(InvalidEntry):
    """The workload was refused and nothing was saved; ``path`` names the value (``stages[1].facts.cpu_seconds``,
    ``""`` for the workload as a whole)."""

    what = "workload"


class WorkloadInUse(ValueError):
    """The workload is still used; the message says by what."""


def visible_workloads(user):
    """The workloads ``user`` sees and may pick: the reference catalogue and their workspaces' own.  ``None`` (the
    command line, a worker acting for no one) sees every workload."""
    if user is None:
        return Workload.objects.all()
    return visible(Workload.objects.all(), user)


def get_workload(user, slug: str, queryset=None) -> Workload:
    """One workload ``user`` sees (404 otherwise: another workspace's workload is never revealed)."""
    return get_or_404(queryset if queryset is not None else Workload.objects.all(), user, slug=slug)


def require_workload_editor(user, workload: Workload) -> None:
    """403 unless ``user`` may change ``workload``: an editor of its workspace; the reference catalogue is read-only
    (copy it to change it)."""
    if workload.is_reference:
        raise PermissionDenied("the reference catalogue is shared and read-only: copy the workload to your "
                               "workspace to change it")
    require_role(user, workload.workspace, Role.EDITOR)


def editable_workload(user, slug: str, queryset=None) -> Workload:
    """A workspace's workload ``user`` may change: 404 when they do not see it, 403 for the reference catalogue and
    for a viewer of its workspace."""
    workload = get_workload(user, slug, queryset)
    require_workload_editor(user, workload)
    return workload


def _load(entry, workload: Workload) -> Workload:
    try:
        check_schema("workload", {**entry, "slug": workload.slug} if isinstance(entry, dict) else entry)
        return load_workload(entry, workload)
    except CatalogueError as exc:
        raise InvalidWorkload.of(exc) from None


def _insert(workload: Workload, names, entry=None) -> Workload:
    """Save the new ``workload`` under the first free ``(slug, name)`` of ``names(1)``, ``names(2)``, … (then its
    stages from ``entry``).  Call it inside a transaction."""
    for attempt in range(1, 1000):
        workload.slug, name = names(attempt)
        if name is not None:
            workload.name = name
        if Workload.objects.filter(slug=workload.slug).exists():
            continue
        try:
            with transaction.atomic():
                if entry is None:
                    workload.save(force_insert=True)
                else:
                    _load(entry, workload)
        except IntegrityError:
            workload.pk = None
            continue
        return workload
    raise ValueError(f"no free slug after 999 tries, the last {workload.slug!r}")


def create_workload(entry: object, workspace: Workspace, user=None) -> Workload:
    """A new workload of ``workspace`` from its catalogue-format ``entry`` (``slug`` optional: else from the name;
    a taken slug gets ``-2``, ``-3``, …).  ``user`` needs the editor role there (none: the command line)."""
    if user is not None:
        require_role(user, workspace, Role.EDITOR)
    if not isinstance(entry, dict):
        raise InvalidWorkload("", "expected an object with name, template, parameters and stages")
    if nul_at(entry):
        raise InvalidWorkload(nul_at(entry), NUL_MESSAGE)
    base = wanted_slug(entry, "workload")
    body = {k: v for k, v in entry.items() if k != "slug"}
    with transaction.atomic():
        workload = Workload(workspace=workspace)
        return _insert(workload, lambda n: (base if n == 1 else f"{base}-{n}", None), body)


def update_workload(workload: Workload, entry: object, user=None) -> Workload:
    """Replace ``workload`` (a workspace's own) by its catalogue-format ``entry``: all or nothing."""
    if user is not None:
        require_workload_editor(user, workload)
    elif workload.is_reference:
        raise PermissionDenied("the reference catalogue is changed by loading fixtures/catalogue only")
    if nul_at(entry):
        raise InvalidWorkload(nul_at(entry), NUL_MESSAGE)
    if isinstance(entry, dict) and "slug" in entry and entry["slug"] != workload.slug:
        raise InvalidWorkload("slug", "a workload's slug does not change; copy it to get another")
    body = {k: v for k, v in entry.items() if k != "slug"} if isinstance(entry, dict) else entry
    with transaction.atomic():
        fresh = Workload.objects.select_for_update().get(pk=workload.pk)
        return _load(body, fresh)


def import_into_workspace(path: Path, workspace: Workspace, user=None) -> list[Workload]:
    """Load the workloads of the workload file at ``path`` into ``workspace``: one of that workspace with the file's
    slug is replaced, any other is created there (a slug taken elsewhere gets ``-2``, ``-3``, …).  All or nothing;
    ``user`` needs the editor role there (none: the command line).  A refusal is a
    :class:`~apps.workloads.catalogue.CatalogueError` naming the file and the JSON path in it."""
    if user is not None:
        require_role(user, workspace, Role.EDITOR)
    name = Path(path).name
    loaded = []
    with transaction.atomic():
        for where, entry in file_entries(path):
            own = Workload.objects.filter(workspace=workspace, slug=entry.get("slug")).first()
            try:
                loaded.append(update_workload(own, entry) if own else create_workload(entry, workspace))
            except InvalidWorkload as exc:
                raise CatalogueError(name, f"{where}.{exc.path}" if exc.path else where, exc.message) from None
    return loaded


def merge_entry(workload: Workload, changes: object) -> dict:
    """``workload``'s catalogue entry with ``changes`` applied (a partial update): ``name``, ``description`` and
    ``template`` replace; ``parameters`` are merged by name (``null`` removes one); ``stages`` replace the list."""
    if not isinstance(changes, dict):
        raise InvalidWorkload("", "expected an object with the fields to change")
    entry = workload_entry(workload)
    entry.pop("slug", None)
    return merge_changes(entry, changes, "parameters")


def _copy_names(workload: Workload, attempt: int) -> tuple[str, str]:
    base = _COPY_SUFFIX.sub("", workload.slug)[:SLUG_BASE_CHARS]
    name = _NAME_SUFFIX.sub("", workload.name)[:140]
    if attempt == 1:
        return f"{base}-copy", f"{name} (copy)"
    return f"{base}-copy-{attempt}", f"{name} (copy {attempt})"


def copy_workload(workload: Workload, workspace: Workspace, user=None) -> Workload:
    """A copy of ``workload`` — parameters and stages with their sources unchanged — in ``workspace``, where its
    editors may change it.  ``user`` needs the editor role there (none: the command line)."""
    if user is not None:
        require_role(user, workspace, Role.EDITOR)
    with transaction.atomic():
        entry = workload_entry(Workload.objects.prefetch_related("stages").get(pk=workload.pk))
        entry.pop("slug", None)
        duplicate = Workload(workspace=workspace, copied_from=workload)

        def names(attempt: int):
            slug, name = _copy_names(workload, attempt)
            entry["name"] = name
            return slug, name

        return _insert(duplicate, names, entry)


def delete_workload(workload: Workload, user=None) -> None:
    """Delete a workspace's workload (never the reference catalogue); refused while scenarios use it (simulation
    runs keep their results)."""
    if user is not None:
        require_workload_editor(user, workload)
    elif workload.is_reference:
        raise PermissionDenied("the reference catalogue is changed by loading fixtures/catalogue only")
    with transaction.atomic():
        workload = Workload.objects.select_for_update().get(pk=workload.pk)
        n = workload.scenarios.count()
        if n:
            raise WorkloadInUse(f"{workload.name} is used by {n} scenario{'s' if n != 1 else ''}; delete "
                                f"{'them' if n != 1 else 'it'} first")
        workload.delete()
