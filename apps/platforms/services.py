"""Platform workflows: which platforms a user sees, copying a reference platform into a workspace to edit it
there, editing and deleting a workspace's copy.

The reference catalogue (platforms of no workspace) is shared and read-only (staff change it in the admin); a
workspace's copy is seen by the workspace's members and changed by its editors.  Provenance follows every value:
a copy keeps its sources exactly (they are still the seed's numbers), a changed value needs a new source.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q

from apps.accounts.models import Workspace
from apps.accounts.workspaces import Role, get_or_404, require_role, visible
from apps.core.provenance import source_errors
from apps.platforms.models import NodeType, Platform, StorageTier

__all__ = ["insert_with_free_slug", "reference_platforms", "visible_platforms", "visible_storage_tiers", "with_origins", "get_platform", "editable_copy",
           "copy_platform", "FactChange", "key_of", "InvalidEdit", "edit_platform", "delete_copy", "PlatformInUse",
           "require_platform_editor"]

#: a copy's fields that are not copied from the platform it is made from
_OWN_FIELDS = {"id", "slug", "name", "workspace", "copied_from"}
_COPY_SUFFIX = re.compile(r"-copy(-\d+)?$")
_NAME_SUFFIX = re.compile(r" \(copy( \d+)?\)$")


def reference_platforms():
    """The shared reference catalogue: the platforms of no workspace."""
    return Platform.objects.filter(workspace__isnull=True)


def visible_platforms(user):
    """The platforms ``user`` sees and may pick: the reference catalogue and the copies of the workspaces they are a
    member of.  ``None`` (the command line, a worker acting for no one) sees every platform."""
    if user is None:
        return Platform.objects.all()
    return visible(Platform.objects.all(), user)


def visible_storage_tiers(user):
    """The storage tiers of the platforms ``user`` sees."""
    return StorageTier.objects.filter(platform__in=visible_platforms(user))


def with_origins(platforms, user) -> list[Platform]:
    """The platforms, each with ``origin``: the platform it was copied from when ``user`` sees that one too (a copy
    made from another workspace's copy does not reveal it)."""
    platforms = list(platforms)
    by_pk = {p.pk: p for p in platforms}
    wanted = {p.copied_from_id for p in platforms if p.copied_from_id and p.copied_from_id not in by_pk}
    origins = {o.pk: o for o in visible_platforms(user).filter(pk__in=wanted)} if wanted else {}
    for p in platforms:
        p.origin = by_pk.get(p.copied_from_id) or origins.get(p.copied_from_id)
    return platforms


def get_platform(user, slug: str, queryset=None) -> Platform:
    """One platform ``user`` sees (404 otherwise: another workspace's copy is never revealed)."""
    return get_or_404(queryset if queryset is not None else Platform.objects.all(), user, slug=slug)


def require_platform_editor(user, platform: Platform) -> None:
    """403 unless ``user`` may change ``platform``: an editor of the copy's workspace; the reference catalogue is
    changed by staff only, in the admin."""
    if platform.is_reference:
        raise PermissionDenied("the reference catalogue is shared and read-only: copy the platform to your workspace "
                               "to edit it (catalogue maintainers edit the reference in the admin)")
    require_role(user, platform.workspace, Role.EDITOR)


def editable_copy(user, slug: str, queryset=None) -> Platform:
    """A workspace's copy that ``user`` may change: 404 when they do not see it, 403 for the reference catalogue
    and for a viewer of the copy's workspace."""
    platform = get_platform(user, slug, queryset)
    require_platform_editor(user, platform)
    return platform


def _copy_fields(source, target, skip) -> None:
    for field in type(source)._meta.concrete_fields:
        if field.name not in skip:
            setattr(target, field.attname, copy.deepcopy(getattr(source, field.attname)))


def _copy_names(platform: Platform, attempt: int) -> tuple[str, str]:
    """The slug and name of the ``attempt``-th free copy: ``magnus-copy`` "Magnus (copy)", then ``magnus-copy-2``
    "Magnus (copy 2)", ... (a copy of a copy is named after the original)."""
    base = _COPY_SUFFIX.sub("", platform.slug)[:38]
    name = _NAME_SUFFIX.sub("", platform.name)[:100]
    if attempt == 1:
        return f"{base}-copy", f"{name} (copy)"
    return f"{base}-copy-{attempt}", f"{name} (copy {attempt})"


def insert_with_free_slug(platform: Platform, names, attempts: int = 1000) -> Platform:
    """Insert the new ``platform`` under the first free ``(slug, name)`` of ``names(1)``, ``names(2)``, … — the next
    one too when another insert takes a slug meanwhile.  Call it inside a transaction."""
    for attempt in range(1, attempts + 1):
        platform.slug, platform.name = names(attempt)
        if Platform.objects.filter(slug=platform.slug).exists():
            continue
        try:
            with transaction.atomic():
                platform.save(force_insert=True)
        except IntegrityError:
            continue
        return platform
    raise ValueError(f"no free slug after {attempts} tries, the last {platform.slug!r}")


def copy_platform(platform: Platform, workspace: Workspace, user=None) -> Platform:
    """A copy of ``platform`` — every fact, node type and storage tier with its provenance unchanged — in
    ``workspace``, where its editors may change it.  ``user`` needs the editor role there (none: the command line).
    """
    if user is not None:
        require_role(user, workspace, Role.EDITOR)
    with transaction.atomic():
        platform = Platform.objects.prefetch_related("node_types", "storage_tiers").get(pk=platform.pk)
        duplicate = Platform(workspace=workspace, copied_from=platform)
        _copy_fields(platform, duplicate, _OWN_FIELDS)
        insert_with_free_slug(duplicate, lambda attempt: _copy_names(platform, attempt))
        NodeType.objects.bulk_create(_child_copy(n, duplicate) for n in platform.node_types.all())
        StorageTier.objects.bulk_create(_child_copy(t, duplicate) for t in platform.storage_tiers.all())
    return duplicate


def _child_copy(child, platform: Platform):
    duplicate = type(child)(platform=platform)
    _copy_fields(child, duplicate, {"id", "platform"})
    return duplicate


# --- editing a copy ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class FactChange:
    """A new value for one fact of a platform, a node type or a storage tier, with its source.  An empty value
    (``None`` or ``""``) clears the fact and drops its source."""

    target: Platform | NodeType | StorageTier
    name: str
    value: object
    source: dict | None = None


def key_of(obj) -> tuple[str, int]:
    """How an error names the object it is about: ``("platform" | "nodetype" | "storagetier", pk)``."""
    return obj._meta.model_name, obj.pk


class InvalidEdit(ValueError):
    """The edit was refused and nothing was saved; ``errors`` lists ``(key_of(object), field, message)``, the field
    being ``None`` for the object as a whole."""

    def __init__(self, errors: list[tuple[tuple[str, int], str | None, str]]):
        self.errors = errors
        super().__init__("; ".join(f"{field or 'platform'}: {message}" for _, field, message in errors))


def _empty(value) -> bool:
    return value is None or value == "" or value == []


def edit_platform(platform: Platform, changes: list[FactChange], *, name: str | None = None,
                  description: str | None = None, user=None) -> list[str]:
    """Apply ``changes`` (and a new name or description) to a workspace's copy in one transaction: either every
    change is saved or, with :class:`InvalidEdit` naming each problem, none.  A changed value needs a valid source
    (an assumption with its reason, a measurement with host and date, ...); the facts not changed keep theirs.
    Returns what changed, as "object · fact" labels."""
    if user is not None:
        require_platform_editor(user, platform)
    elif platform.is_reference:
        raise PermissionDenied("the reference catalogue is edited in the admin only")
    errors: list[tuple[tuple[str, int], str | None, str]] = []
    with transaction.atomic():
        fresh = Platform.objects.select_for_update().get(pk=platform.pk)
        objects = {key_of(fresh): fresh}
        objects.update({key_of(n): n for n in fresh.node_types.all()})
        objects.update({key_of(t): t for t in fresh.storage_tiers.all()})
        touched: dict[tuple[str, int], object] = {}
        changed: list[str] = []
        for change in changes:
            key = key_of(change.target)
            obj = objects.get(key)
            if obj is None:
                errors.append((key, None, f"{change.target} is not part of platform {fresh.slug!r}"))
                continue
            if change.name not in type(obj).FACT_FIELDS:
                errors.append((key, change.name, f"{change.name!r} is not a fact of {obj}"))
                continue
            provenance = dict(obj.provenance or {})
            if _empty(change.value):
                field = obj._meta.get_field(change.name)
                setattr(obj, change.name, None if field.null else "")
                provenance.pop(change.name, None)
            else:
                problems = source_errors(change.source)
                if problems:
                    errors.append((key, change.name, "a changed value needs a new source: " + "; ".join(problems)))
                    continue
                setattr(obj, change.name, change.value)
                provenance[change.name] = dict(change.source)
            obj.provenance = provenance
            touched[key] = obj
            changed.append(f"{obj} · {change.name}")
        if name is not None and name.strip() != fresh.name:
            name = name.strip()
            clash = Platform.objects.filter(Q(workspace__isnull=True) | Q(workspace=fresh.workspace_id),
                                            name=name).exclude(pk=fresh.pk)
            if not name:
                errors.append((key_of(fresh), "name", "a platform needs a name"))
            elif clash.exists():
                errors.append((key_of(fresh), "name", f"{name!r} is the name of another platform; choose another"))
            else:
                fresh.name = name
                touched[key_of(fresh)] = fresh
                changed.append(f"{fresh} · name")
        if description is not None and description.strip() != fresh.description:
            fresh.description = description.strip()
            touched[key_of(fresh)] = fresh
            changed.append(f"{fresh} · description")
        for key, obj in touched.items():
            try:
                obj.full_clean(validate_unique=False)
            except ValidationError as exc:
                for field, messages in exc.message_dict.items():
                    errors.append((key, None if field == "__all__" else field, " ".join(messages)))
        if errors:
            raise InvalidEdit(errors)
        for obj in touched.values():
            obj.save()
    return changed


class PlatformInUse(ValueError):
    """The copy is still used; the message says by what."""


def delete_copy(platform: Platform, user=None) -> None:
    """Delete a workspace's copy (never the reference catalogue).  Refused while scenarios, benchmark runs or
    calibrations use it (they would go with it); simulation runs and searches keep their results."""
    if user is not None:
        require_platform_editor(user, platform)
    elif platform.is_reference:
        raise PermissionDenied("the reference catalogue is deleted in the admin only")
    with transaction.atomic():
        platform = Platform.objects.select_for_update().get(pk=platform.pk)
        uses = [(platform.scenario_entries.count(), "scenario"), (platform.benchmark_runs.count(), "benchmark run"),
                (platform.calibrations.count(), "calibration")]
        uses = [f"{n} {what}{'s' if n != 1 else ''}" for n, what in uses if n]
        if uses:
            raise PlatformInUse(f"{platform.name} is used by {', '.join(uses)}; delete those first")
        platform.delete()
