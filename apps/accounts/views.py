"""Workspace pages: the user's workspaces, switching the active one, creating one, managing members."""

from __future__ import annotations

from django.contrib import messages
from django.db import IntegrityError, transaction
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.text import slugify
from django.views.decorators.http import require_POST

from apps.accounts.models import Membership, Role, Workspace
from apps.accounts.workspaces import (
    InvalidMember,
    accept_invitation,
    active_workspace,
    decline_invitation,
    get_or_404,
    invite_member,
    invite_reply,
    own_invitation,
    pending_invitations,
    set_active_workspace,
    workspaces_of,
)


def workspace_list(request):
    active = active_workspace(request)
    memberships = Membership.objects.filter(user=request.user).select_related("workspace")
    members = []
    if active.role_of(request.user) == Role.ADMIN:
        members = list(active.memberships.select_related("user"))
    invitations = pending_invitations(request.user)
    pending = active.invitations.select_related("user") if members else []
    return render(request, "accounts/workspaces.html", {
        "active": active, "memberships": memberships, "members": members, "roles": Role.choices,
        "invitations": invitations, "pending": pending,
    })


@require_POST
def workspace_switch(request):
    workspace = get_or_404(workspaces_of(request.user), request.user, field="", pk=request.POST.get("workspace"))
    set_active_workspace(request, workspace)
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        target = "workspaces"
    return redirect(target)


@require_POST
def workspace_create(request):
    name = (request.POST.get("name") or "").strip()
    slug = slugify(name)[:50]
    if not name or not slug or len(name) > 120:
        messages.error(request, "name: give the workspace a name of 1 to 120 characters with a letter or digit")
        return redirect("workspaces")
    try:
        with transaction.atomic():
            workspace = Workspace.objects.create(name=name, slug=slug)
            Membership.objects.create(workspace=workspace, user=request.user, role=Role.ADMIN)
    except IntegrityError:
        messages.error(request, f"name: a workspace with the address {slug!r} exists; choose another name")
        return redirect("workspaces")
    set_active_workspace(request, workspace)
    messages.info(request, f"Workspace {name!r} created; you are its admin and it is now active.")
    return redirect("workspaces")


@require_POST
def member_add(request):
    """Invite a user (or change a member's role).  The answer is the same whether or not the name exists."""
    workspace = get_or_404(workspaces_of(request.user), request.user, need=Role.ADMIN, field="",
                           pk=request.POST.get("workspace"))
    username = (request.POST.get("username") or "").strip()
    try:
        invite_member(workspace, username, request.POST.get("role", ""), invited_by=request.user)
    except InvalidMember as exc:
        messages.error(request, f"Member not added: {exc}")
    else:
        messages.info(request, invite_reply(workspace, username))
    return redirect("workspaces")


@require_POST
def invitation_accept(request, invitation_id):
    invitation = own_invitation(request.user, invitation_id)
    membership = accept_invitation(invitation)
    messages.info(request, f"You joined {membership.workspace} as {membership.role}.")
    return redirect("workspaces")


@require_POST
def invitation_decline(request, invitation_id):
    invitation = own_invitation(request.user, invitation_id)
    decline_invitation(invitation)
    messages.info(request, f"Invitation to {invitation.workspace} declined.")
    return redirect("workspaces")


@require_POST
def member_remove(request):
    workspace = get_or_404(workspaces_of(request.user), request.user, need=Role.ADMIN, field="",
                           pk=request.POST.get("workspace"))
    membership = workspace.memberships.filter(pk=request.POST.get("membership") or 0).select_related("user").first()
    if membership is None:
        messages.error(request, "Member not removed: no such member of this workspace")
    elif membership.user_id == workspace.personal_of_id:
        messages.error(request, "Member not removed: the owner of a personal workspace stays in it")
    elif membership.role == Role.ADMIN and workspace.memberships.filter(role=Role.ADMIN).count() == 1:
        messages.error(request, "Member not removed: a workspace keeps at least one admin")
    else:
        membership.delete()
        messages.info(request, f"{membership.user} removed from {workspace}.")
    return redirect("workspaces")
