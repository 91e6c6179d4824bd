"""Workspaces: the ones the user is a member of, with their role there; invitations to join one."""

from __future__ import annotations

from rest_framework import serializers

from apps.accounts.models import Membership, Role
from apps.api.serializers.scenarios import StrictSerializer

__all__ = ["WorkspaceSerializer", "WorkspaceNameSerializer", "InvitationSerializer", "InvitationAnswerSerializer",
           "InviteSerializer", "InviteSentSerializer"]


class WorkspaceSerializer(serializers.Serializer):
    """One of the user's workspaces, from the user's membership of it."""

    id = serializers.IntegerField(source="workspace_id", read_only=True,
                                  help_text="what the X-Skyplan-Workspace header takes")
    name = serializers.CharField(source="workspace.name", read_only=True)
    slug = serializers.SlugField(source="workspace.slug", read_only=True,
                                 help_text="as the `workspace` field of scenarios names it")
    role = serializers.ChoiceField(choices=Role.choices, read_only=True,
                                   help_text="your role: viewers read; editors also create, run, cancel and export; "
                                             "admins also invite members")
    personal = serializers.SerializerMethodField(help_text="your personal workspace")
    active = serializers.SerializerMethodField(
        help_text="the workspace this request acts in: the one X-Skyplan-Workspace names, else your active one")

    def get_personal(self, membership: Membership) -> bool:
        return membership.workspace.personal_of_id == membership.user_id

    def get_active(self, membership: Membership) -> bool:
        return membership.workspace_id == self.context["active_workspace_id"]


class WorkspaceNameSerializer(serializers.Serializer):
    """A workspace as an invitation names it."""

    id = serializers.IntegerField(read_only=True, help_text="what the X-Skyplan-Workspace header takes")
    name = serializers.CharField(read_only=True)
    slug = serializers.SlugField(read_only=True)


class InvitationSerializer(serializers.Serializer):
    """An invitation addressed to you, not answered yet."""

    id = serializers.IntegerField(read_only=True, help_text="what invitations/{id}/accept/ and …/decline/ take")
    workspace = WorkspaceNameSerializer(read_only=True)
    role = serializers.ChoiceField(choices=Role.choices, read_only=True, help_text="your role there once you accept")
    invited_by = serializers.CharField(source="invited_by.username", read_only=True, allow_null=True, default=None,
                                       help_text="the user name of the admin who invited you (null: their account is "
                                                 "gone)")
    created_at = serializers.DateTimeField(read_only=True)


class InvitationAnswerSerializer(serializers.Serializer):
    """Your answer to an invitation: accepted (you are a member with the role) or declined (nothing changed)."""

    workspace = WorkspaceNameSerializer(read_only=True)
    role = serializers.ChoiceField(choices=Role.choices, read_only=True)
    member = serializers.BooleanField(read_only=True, help_text="whether you are now a member of the workspace")


class InviteSerializer(StrictSerializer):
    """Whom to invite to a workspace, with which role."""

    username = serializers.CharField(max_length=150, help_text="the user name of the person to invite")
    role = serializers.ChoiceField(choices=Role.choices, help_text="their role once they accept (a member's role "
                                                                   "changes at once)")


class InviteSentSerializer(serializers.Serializer):
    """The same reply whether or not the user exists: it cannot tell anyone who has an account."""

    workspace = WorkspaceNameSerializer(read_only=True)
    username = serializers.CharField(read_only=True)
    role = serializers.ChoiceField(choices=Role.choices, read_only=True)
    detail = serializers.CharField(read_only=True)
