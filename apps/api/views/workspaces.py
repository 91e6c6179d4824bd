"""Workspaces over HTTP: the user's workspaces and their role in each (to choose one with X-Skyplan-Workspace)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_view

from apps.accounts.models import Membership
from apps.accounts.workspaces import personal_workspace
from apps.api.base import BAD_WORKSPACE, ERRORS, NO_WORKSPACE, WORKSPACE_PARAMETER, ListApiView, api_workspace
from apps.api.serializers.workspaces import WorkspaceSerializer

__all__ = ["WorkspaceList"]


@extend_schema_view(get=extend_schema(parameters=[WORKSPACE_PARAMETER], responses={
    200: WorkspaceSerializer(many=True), **BAD_WORKSPACE, **NO_WORKSPACE, **ERRORS}))
class WorkspaceList(ListApiView):
    """Your workspaces, by name: each one's id (for the X-Skyplan-Workspace header), your role there, whether it is
    your personal workspace, and whether it is the one this request acts in (`active`).  Send the header here to
    check it: a workspace that is not yours is a 404."""

    serializer_class = WorkspaceSerializer
    queryset = Membership.objects.none()

    def get_queryset(self):
        personal_workspace(self.request.user)  # created on first use, as everywhere
        return (Membership.objects.filter(user=self.request.user).select_related("workspace")
                .order_by("workspace__name", "workspace_id"))

    def get_serializer_context(self):
        context = super().get_serializer_context()
        if getattr(self, "swagger_fake_view", False):  # the schema generator: no request to resolve
            return context
        return {**context, "active_workspace_id": api_workspace(self.request).pk}
