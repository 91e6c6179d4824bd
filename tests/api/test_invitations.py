"""Invitations over the API: an admin invites a user name with a role, the invitee alone sees the invitation and
answers it, and the admin's reply never says whether the user exists (the pages' rules, the same service
functions)."""

from __future__ import annotations

import pytest

from apps.accounts.models import Invitation, Role
from apps.accounts.workspaces import personal_workspace


@pytest.fixture
def carol(django_user_model):
    return django_user_model.objects.create_user(username="carol", password="a third horse battery")


def _invite(client, workspace, username, role="editor"):
    """``workspace``: a workspace or an id."""
    return client.post(f"/api/v1/workspaces/{getattr(workspace, 'pk', workspace)}/invitations/",
                       {"username": username, "role": role}, format="json")


def test_it_lists_an_invitation_for_the_invitee_only(api, client_of, user, bob, carol):
    workspace = personal_workspace(user)
    assert _invite(api, workspace, "bob").status_code == 202
    listed = client_of(bob).get("/api/v1/invitations/").json()
    assert listed["count"] == 1
    invitation = listed["results"][0]
    assert invitation["workspace"] == {"id": workspace.pk, "name": workspace.name, "slug": workspace.slug}
    assert (invitation["role"], invitation["invited_by"]) == ("editor", "ada") and invitation["created_at"]
    assert api.get("/api/v1/invitations/").json()["count"] == 0, "not the inviter's"
    assert client_of(carol).get("/api/v1/invitations/").json()["count"] == 0
    assert workspace.role_of(bob) is None, "invited, not a member until bob accepts"


def test_it_makes_the_invitee_a_member_with_the_role_on_accepting(api, client_of, user, bob):
    workspace = personal_workspace(user)
    _invite(api, workspace, "bob", "editor")
    invitation = Invitation.objects.get(user=bob)
    response = client_of(bob).post(f"/api/v1/invitations/{invitation.pk}/accept/")
    assert response.status_code == 200
    assert response.json() == {"workspace": {"id": workspace.pk, "name": workspace.name, "slug": workspace.slug},
                               "role": "editor", "member": True}
    assert workspace.role_of(bob) == Role.EDITOR
    assert client_of(bob).get("/api/v1/invitations/").json()["count"] == 0
    assert client_of(bob).post(f"/api/v1/invitations/{invitation.pk}/accept/").status_code == 404, "used up"


def test_it_leaves_the_invitee_out_on_declining(api, client_of, user, bob):
    workspace = personal_workspace(user)
    _invite(api, workspace, "bob", "viewer")
    invitation = Invitation.objects.get(user=bob)
    response = client_of(bob).post(f"/api/v1/invitations/{invitation.pk}/decline/")
    assert response.status_code == 200 and response.json()["member"] is False
    assert workspace.role_of(bob) is None and not Invitation.objects.exists()


def test_it_answers_another_users_invitation_with_404(api, client_of, user, bob, carol):
    """Carol (a member of the workspace, even) cannot answer Bob's invitation nor tell it from one that does not
    exist; neither can the admin who sent it."""
    workspace = personal_workspace(user)
    workspace.memberships.create(user=carol, role=Role.VIEWER)
    _invite(api, workspace, "bob")
    invitation = Invitation.objects.get(user=bob)
    for client in (client_of(carol), api):
        for action in ("accept", "decline"):
            response = client.post(f"/api/v1/invitations/{invitation.pk}/{action}/")
            missing = client.post(f"/api/v1/invitations/{invitation.pk + 1000}/{action}/")
            assert response.status_code == 404 and response.json() == missing.json() == {"detail": "no such invitation"}
    assert workspace.role_of(carol) == Role.VIEWER and workspace.role_of(bob) is None
    assert Invitation.objects.filter(pk=invitation.pk).exists()


def test_it_replies_the_same_for_an_unknown_user_name_as_for_a_known_one(api, user, bob):
    workspace = personal_workspace(user)
    known = _invite(api, workspace, "bob")
    unknown = _invite(api, workspace, "nobody-by-this-name")
    assert known.status_code == unknown.status_code == 202
    assert known.content.decode().replace("bob", "NAME") == unknown.content.decode().replace("nobody-by-this-name",
                                                                                           "NAME")
    assert list(Invitation.objects.values_list("user__username", flat=True)) == ["bob"]


def test_it_refuses_a_bad_role_naming_the_field(api, user, bob):
    response = _invite(api, personal_workspace(user), "bob", "owner")
    assert response.status_code == 400 and list(response.json()) == ["role"]
    response = api.post(f"/api/v1/workspaces/{personal_workspace(user).pk}/invitations/",
                        {"username": "bob", "role": "viewer", "email": "bob@example.org"}, format="json")
    assert response.status_code == 400 and list(response.json()) == ["email"]
    assert not Invitation.objects.exists()


def test_it_lets_only_the_workspaces_admins_invite(api, client_of, user, bob, carol):
    """An editor is refused naming the admin role; someone outside the workspace gets a 404, as for a workspace
    that does not exist."""
    workspace = personal_workspace(user)
    workspace.memberships.create(user=carol, role=Role.EDITOR)
    refused = _invite(client_of(carol), workspace, "bob")
    assert refused.status_code == 403 and "needs the admin role" in refused.json()["detail"]
    outside = _invite(client_of(bob), workspace, "carol")
    assert outside.status_code == 404 and outside.json() == _invite(client_of(bob), workspace.pk + 1000, "carol").json()
    assert not Invitation.objects.exists()


def test_it_changes_a_members_role_at_once(api, user, carol):
    workspace = personal_workspace(user)
    workspace.memberships.create(user=carol, role=Role.VIEWER)
    assert _invite(api, workspace, "carol", "editor").status_code == 202
    assert workspace.role_of(carol) == Role.EDITOR and not Invitation.objects.exists()


def test_it_keeps_a_workspace_with_at_least_one_admin(api, user, carol):
    """Inviting a member changes their role at once: the last admin of a shared workspace could demote themself and
    leave it with nobody to run it.  Refused naming the role; with a second admin it is allowed."""
    from apps.accounts.models import Workspace

    team = Workspace.objects.create(name="Team", slug="team")
    team.memberships.create(user=user, role=Role.ADMIN)
    team.memberships.create(user=carol, role=Role.EDITOR)
    refused = _invite(api, team, "ada", "editor")
    assert refused.status_code == 400 and "at least one admin" in refused.json()["role"][0], refused.json()
    assert team.role_of(user) == Role.ADMIN
    assert _invite(api, team, "carol", "admin").status_code == 202
    assert _invite(api, team, "ada", "editor").status_code == 202
    assert (team.role_of(user), team.role_of(carol)) == (Role.EDITOR, Role.ADMIN)
