"""Workspaces: the ones the user is a member of, with their role there."""

from __future__ import annotations

from rest_framework import serializers

from apps.accounts.models import Membership, Role

__all__ = ["WorkspaceSerializer"]


class WorkspaceSerializer(serializers.Serializer):
    """One of the user's workspaces, from the user's membership of it."""

    id = serializers.IntegerField(source="workspace_id", read_only=True,
                                  help_text="what the X-Skyplan-Workspace header takes")
    name = serializers.CharField(source="workspace.name", read_only=True)
    slug = serializers.SlugField(source="workspace.slug", read_only=True,
                                 help_text="as the `workspace` field of scenarios names it")
    role = serializers.ChoiceField(choices=Role.choices, read_only=True,
                                   help_text="your role: viewers read; editors also create, run, cancel and export; "
                                             "admins also manage the members (on the site)")
    personal = serializers.SerializerMethodField(help_text="your personal workspace")
    active = serializers.SerializerMethodField(
        help_text="the workspace this request acts in: the one X-Skyplan-Workspace names, else your active one")

    def get_personal(self, membership: Membership) -> bool:
        return membership.workspace.personal_of_id == membership.user_id

    def get_active(self, membership: Membership) -> bool:
        return membership.workspace_id == self.context["active_workspace_id"]
