"""Workspace scoping: which workspace a request works in, and lookups that never reveal another workspace.

Every view and API endpoint that reads or changes workspace-owned data goes through :func:`visible` (lists)
or :func:`get_or_404` (one object): an object of a workspace the user is not a member of is a 404, never its
content; a member whose role is too low for the action gets a 403 saying which role it needs.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.http import Http404
from django.utils.text import slugify

from apps.accounts.models import ROLE_RANK, Invitation, Membership, Role, Workspace

__all__ = ["Role", "personal_workspace", "workspaces_of", "active_workspace", "set_active_workspace", "visible",
           "get_or_404", "require_role", "require_catalogue_maintainer", "editable_workspace", "workspace_for", "role_allows", "add_member", "invite_member", "invite_reply", "pending_invitations", "own_invitation",
           "accept_invitation", "decline_invitation", "InvalidMember",
           "SESSION_KEY"]

SESSION_KEY = "skyplan_workspace"


class InvalidMember(ValueError):
    """A membership change that cannot be made; the message names the field."""


def personal_workspace(user) -> Workspace:
    """The user's own workspace (created on first use), where they are admin."""
    try:
        return user.personal_workspace
    except Workspace.DoesNotExist:
        pass
    base = slugify(user.get_username())[:40] or f"user-{user.pk}"
    for attempt in range(100):
        slug = base if attempt == 0 else f"{base}-{attempt}"
        try:
            with transaction.atomic():
                workspace = Workspace.objects.create(name=f"{user.get_username()}'s workspace", slug=slug,
                                                     personal_of=user)
                Membership.objects.create(workspace=workspace, user=user, role=Role.ADMIN)
        except IntegrityError:
            existing = Workspace.objects.filter(personal_of=user).first()
            if existing is not None:
                return existing
            continue
        user.personal_workspace = workspace
        return workspace
    raise RuntimeError(f"no free workspace slug for {user.get_username()}")


def workspaces_of(user):
    """The workspaces the user is a member of."""
    if not getattr(user, "is_authenticated", False):
        return Workspace.objects.none()
    return Workspace.objects.filter(memberships__user=user)


def active_workspace(request) -> Workspace:
    """The workspace this request works in: the one chosen in the session if the user is (still) a member of
    it, else their personal workspace."""
    cached = getattr(request, "_skyplan_workspace", None)
    if cached is not None:
        return cached
    chosen = request.session.get(SESSION_KEY) if hasattr(request, "session") else None
    workspace = workspaces_of(request.user).filter(pk=chosen).first() if chosen else None
    workspace = workspace or personal_workspace(request.user)
    request._skyplan_workspace = workspace
    return workspace


def editable_workspace(request) -> Workspace:
    """The active workspace, where the request is about to create something: 403 unless the user may edit there."""
    workspace = active_workspace(request)
    require_role(request.user, workspace, Role.EDITOR)
    return workspace


def workspace_for(user, workspace: Workspace | None = None) -> Workspace | None:
    """The workspace a new object goes to: the one given, else the user's personal one; none (a shared object)
    when there is no user either (the command line)."""
    if workspace is not None or user is None:
        return workspace
    return personal_workspace(user)


def set_active_workspace(request, workspace: Workspace) -> None:
    if workspace.role_of(request.user) is None:
        raise Http404("no such workspace")
    request.session[SESSION_KEY] = workspace.pk
    request._skyplan_workspace = workspace


def role_allows(role: str | None, need: str) -> bool:
    return role is not None and ROLE_RANK[role] >= ROLE_RANK[need]


def visible(queryset, user, field: str = "workspace"):
    """``queryset`` limited to the workspaces ``user`` is a member of (``field`` leads to the workspace; empty
    when the queryset is of workspaces) and to shared objects, which belong to no workspace (made from the
    command line or by the benchmark harness): everyone reads those, only staff change them."""
    if not getattr(user, "is_authenticated", False):
        return queryset.none()
    if not field:
        return queryset.filter(memberships__user=user)
    mine = Workspace.objects.filter(memberships__user=user)
    return queryset.filter(Q(**{f"{field}__in": mine}) | Q(**{f"{field}__isnull": True}))  # one membership per user: no duplicates


def require_role(user, workspace: Workspace, need: str = Role.EDITOR) -> str:
    """The user's role in ``workspace``; 404 when they are not a member, 403 when the role is too low."""
    role = workspace.role_of(user)
    if role is None:
        raise Http404("no such object")
    if not role_allows(role, need):
        raise PermissionDenied(f"this needs the {need} role in workspace {workspace.name!r}; you are {role}")
    return role


def get_or_404(queryset, user, *, need: str = Role.VIEWER, field: str = "workspace", **lookup):
    """One object of a workspace the user belongs to, with at least role ``need`` there (404 / 403 otherwise)."""
    try:
        obj = visible(queryset, user, field).get(**lookup)
    except (queryset.model.DoesNotExist, ValueError, TypeError):
        raise Http404(f"no such {queryset.model._meta.verbose_name}") from None
    workspace = obj
    for part in field.split("__") if field else ():
        workspace = getattr(workspace, part)
    if workspace is None:  # shared: read-only but for staff
        if not role_allows(Role.VIEWER, need) and not user.is_staff:
            raise PermissionDenied("this object is shared by every workspace and read-only; only staff change it")
        return obj
    require_role(user, workspace, need)
    return obj


def require_catalogue_maintainer(user) -> None:
    """Only staff change the shared reference catalogue (applying a calibration or a measurement to it)."""
    if not getattr(user, "is_staff", False):
        raise PermissionDenied("the reference catalogue is shared and read-only: applying values to it needs a "
                               "catalogue maintainer (staff) account")


def add_member(workspace: Workspace, username: str, role: str) -> Membership:
    """Add a user to ``workspace`` with ``role`` (or change their role)."""
    from django.contrib.auth import get_user_model

    if role not in ROLE_RANK:
        raise InvalidMember(f"role: one of {', '.join(ROLE_RANK)}")
    try:
        user = get_user_model().objects.get(username=username)
    except get_user_model().DoesNotExist:
        raise InvalidMember(f"username: no user is called {username!r}") from None
    if workspace.personal_of_id == user.pk and role != Role.ADMIN:
        raise InvalidMember("role: the owner of a personal workspace stays its admin")
    with transaction.atomic():
        admins = list(Membership.objects.select_for_update().filter(workspace=workspace, role=Role.ADMIN)
                      .values_list("user_id", flat=True))
        if role != Role.ADMIN and admins == [user.pk]:
            raise InvalidMember("role: a workspace keeps at least one admin; make another member admin first")
        membership, _ = Membership.objects.update_or_create(workspace=workspace, user=user, defaults={"role": role})
    return membership


def invite_member(workspace: Workspace, username: str, role: str, *, invited_by=None) -> None:
    """Invite the user called ``username`` to ``workspace`` with ``role`` (or change the role of a member).

    Says nothing of whether the user exists: an unknown name is a silent no-op, so the same answer is given
    either way and the reply cannot be used to find out who has an account.  A member's role changes at once (they
    already accepted being here); anyone else becomes a member only by accepting (:func:`accept_invitation`)."""
    from django.contrib.auth import get_user_model

    if role not in ROLE_RANK:
        raise InvalidMember(f"role: one of {', '.join(ROLE_RANK)}")
    if not username or len(username) > 150:
        raise InvalidMember("username: a user name of 1 to 150 characters")
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        return
    if workspace.memberships.filter(user=user).exists():
        if workspace.personal_of_id == user.pk and role != Role.ADMIN:
            raise InvalidMember("role: the owner of a personal workspace stays its admin")
        add_member(workspace, username, role)
        return
    Invitation.objects.update_or_create(workspace=workspace, user=user,
                                        defaults={"role": role, "invited_by": invited_by})


def invite_reply(workspace: Workspace, username: str) -> str:
    """What the admin who invited is told: the same words whether or not the user exists."""
    return (f"If a user called {username!r} exists, they are invited to {workspace} (a member already: their role "
            "is changed); they join once they accept.")


def pending_invitations(user):
    """The invitations addressed to ``user`` that they have not answered yet (an answer uses one up), newest first."""
    if not getattr(user, "is_authenticated", False):
        return Invitation.objects.none()
    return Invitation.objects.filter(user=user).select_related("workspace", "invited_by")


def own_invitation(user, invitation_id) -> Invitation:
    """One of ``user``'s own pending invitations; anyone else's (or none) is a 404, so nothing is revealed."""
    try:
        invitation = pending_invitations(user).filter(pk=invitation_id).first()
    except (ValueError, TypeError):
        invitation = None
    if invitation is None:
        raise Http404("no such invitation")
    return invitation


def accept_invitation(invitation: Invitation) -> Membership:
    """The invitee accepts: they become a member with the invited role; the invitation is used up."""
    with transaction.atomic():
        membership, _ = Membership.objects.update_or_create(workspace=invitation.workspace, user=invitation.user,
                                                            defaults={"role": invitation.role})
        invitation.delete()
    return membership


def decline_invitation(invitation: Invitation) -> None:
    """The invitee declines: the invitation is used up and nothing else changes."""
    invitation.delete()
