"""A whole platform in the catalogue format, for the API: create one from scratch in a workspace, replace or change
a workspace's platform — add, remove or rename node types and storage tiers, change a tier's kind — every value with
its unit and source.

It sits beside the catalogue loader (which loads the reference platforms too) so that a user's platform passes the
loader's own checks; the permission rules are :mod:`apps.platforms.services`'.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.db.models import Q

from apps.accounts.models import Workspace
from apps.accounts.workspaces import Role, require_role
from apps.platforms.models import Platform
from apps.platforms.services import require_platform_editor
from apps.workloads.catalogue import (
    NUL_MESSAGE,
    CatalogueError,
    InvalidEntry,
    load_platform,
    merge_changes,
    nul_at,
    wanted_slug,
)
from apps.workloads.files import fact_entries

__all__ = ["InvalidPlatform", "platform_entry", "merge_platform_entry", "create_platform", "replace_platform"]


class InvalidPlatform(InvalidEntry):
    """The platform was refused and nothing was saved; ``path`` names the value (``node_types[0].facts.cores``,
    ``""`` for the platform as a whole)."""

    what = "platform"


def platform_entry(platform: Platform) -> dict:
    """``platform`` in the catalogue format: every fact in base units with its source, its node types and storage
    tiers (what :func:`apps.workloads.catalogue.load_platform` takes back)."""
    return {
        "name": platform.name, "kind": platform.kind, "description": platform.description,
        "facts": fact_entries(platform),
        "node_types": [{"name": n.name, "facts": fact_entries(n)} for n in platform.node_types.all()],
        "storage_tiers": [{"name": t.name, "kind": t.kind, "facts": fact_entries(t)}
                          for t in platform.storage_tiers.all()],
    }


def merge_platform_entry(platform: Platform, changes: object) -> dict:
    """``platform``'s entry with ``changes`` applied (a partial update): ``name``, ``kind`` and ``description``
    replace, ``facts`` merge by name (``null`` clears one), ``node_types`` and ``storage_tiers`` replace the lists
    (add, remove, rename or change a tier's kind by sending the list as it should be)."""
    if not isinstance(changes, dict):
        raise InvalidPlatform("", "expected an object with the fields to change")
    return merge_changes(platform_entry(platform), changes, "facts")


def _load_platform(entry, platform: Platform) -> Platform:
    try:
        return load_platform(entry, platform)
    except CatalogueError as exc:
        raise InvalidPlatform.of(exc) from None


def create_platform(entry: object, workspace: Workspace, user=None) -> Platform:
    """A new platform of ``workspace`` from scratch, from its catalogue-format ``entry`` (``slug`` optional: else from
    the name; a taken slug gets ``-2``, ``-3``, ...).  ``user`` needs the editor role there."""
    if user is not None:
        require_role(user, workspace, Role.EDITOR)
    if not isinstance(entry, dict):
        raise InvalidPlatform("", "expected an object with name, kind, facts, node_types and storage_tiers")
    if nul_at(entry):
        raise InvalidPlatform(nul_at(entry), NUL_MESSAGE)
    base = wanted_slug(entry, "platform")
    body = {k: v for k, v in entry.items() if k != "slug"}
    name = body.get("name")
    if isinstance(name, str) and Platform.objects.filter(Q(workspace__isnull=True) | Q(workspace=workspace),
                                                         name=name.strip()).exists():
        raise InvalidPlatform("name", f"{name.strip()!r} is the name of another platform; choose another")
    with transaction.atomic():
        for attempt in range(1, 1000):
            slug = base if attempt == 1 else f"{base}-{attempt}"
            if Platform.objects.filter(slug=slug).exists():
                continue
            platform = Platform(slug=slug, workspace=workspace)
            try:
                with transaction.atomic():
                    return _load_platform(body, platform)
            except IntegrityError:
                continue
    raise InvalidPlatform("slug", "no free slug; choose another")


def replace_platform(platform: Platform, entry: object, user=None) -> Platform:
    """Replace a workspace's platform by its catalogue-format ``entry`` (node types and tiers not named are removed):
    all or nothing."""
    if user is not None:
        require_platform_editor(user, platform)
    elif platform.is_reference:
        raise PermissionDenied("the reference catalogue is edited in the admin only")
    if nul_at(entry):
        raise InvalidPlatform(nul_at(entry), NUL_MESSAGE)
    if isinstance(entry, dict) and "slug" in entry and entry["slug"] != platform.slug:
        raise InvalidPlatform("slug", "a platform's slug does not change; copy it to get another")
    body = {k: v for k, v in entry.items() if k != "slug"} if isinstance(entry, dict) else entry
    name = body.get("name") if isinstance(body, dict) else None
    if isinstance(name, str) and Platform.objects.filter(
            Q(workspace__isnull=True) | Q(workspace=platform.workspace_id), name=name.strip()).exclude(
            pk=platform.pk).exists():
        raise InvalidPlatform("name", f"{name.strip()!r} is the name of another platform; choose another")
    with transaction.atomic():
        fresh = Platform.objects.select_for_update().get(pk=platform.pk)
        return _load_platform(body, fresh)
