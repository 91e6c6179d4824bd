"""Workspaces over HTTP: the user's workspaces and their role in each (to choose one with X-Skyplan-Workspace), and
invitations to join one — sent by a workspace's admins, answered by the invitee (the pages' own service functions)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.response import Response

from apps.accounts.models import Invitation, Membership, Role
from apps.accounts.workspaces import (
    InvalidMember,
    accept_invitation,
    decline_invitation,
    get_or_404,
    invite_member,
    invite_reply,
    own_invitation,
    pending_invitations,
    personal_workspace,
    workspaces_of,
)
from apps.api.base import (
    BAD_REQUEST,
    BAD_WORKSPACE,
    ERRORS,
    NO_WORKSPACE,
    NOT_FOUND,
    UNSUPPORTED,
    WORKSPACE_PARAMETER,
    ApiView,
    ListApiView,
    api_workspace,
    service_error,
)
from apps.api.serializers.workspaces import (
    InvitationAnswerSerializer,
    InvitationSerializer,
    InviteSentSerializer,
    InviteSerializer,
    WorkspaceSerializer,
)

__all__ = ["WorkspaceList", "WorkspaceInvite", "InvitationList", "InvitationAccept", "InvitationDecline"]


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


class WorkspaceInvite(ApiView):
    """Invite a user, by user name, to this workspace with a role (admins only); they become a member only by
    accepting.  A member's role changes at once.  The reply is the same whether or not the user exists, so it cannot
    be used to find out who has an account; an unknown name invites nobody."""

    @extend_schema(request=InviteSerializer, responses={
        202: InviteSentSerializer, **BAD_REQUEST,
        404: OpenApiResponse(NOT_FOUND[404].response, description="no workspace of yours has this id"),
        **UNSUPPORTED, **ERRORS})
    def post(self, request, workspace_id):
        workspace = get_or_404(workspaces_of(request.user), request.user, need=Role.ADMIN, field="", pk=workspace_id)
        data = InviteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        username, role = data.validated_data["username"].strip(), data.validated_data["role"]
        try:
            invite_member(workspace, username, role, invited_by=request.user)
        except InvalidMember as exc:
            raise service_error(exc, {"role": "role", "username": "username"}) from None
        return Response(InviteSentSerializer({"workspace": workspace, "username": username, "role": role,
                                              "detail": invite_reply(workspace, username)}).data,
                        status=status.HTTP_202_ACCEPTED)


@extend_schema_view(get=extend_schema(responses={200: InvitationSerializer(many=True), **ERRORS}))
class InvitationList(ListApiView):
    """The invitations addressed to you that you have not answered yet, newest first: the workspace, the role you
    would have there, who invited you and when.  Accept or decline each by its id."""

    serializer_class = InvitationSerializer
    queryset = Invitation.objects.none()

    def get_queryset(self):
        return pending_invitations(self.request.user).order_by("-created_at", "-id")


def _answer(invitation: Invitation, member: bool) -> Response:
    return Response(InvitationAnswerSerializer({"workspace": invitation.workspace, "role": invitation.role,
                                                "member": member}).data)


class InvitationAccept(ApiView):
    """Accept an invitation addressed to you: you become a member of its workspace with its role.  Anyone else's
    invitation is a 404, as if it did not exist."""

    @extend_schema(request=None, responses={200: InvitationAnswerSerializer, **NOT_FOUND, **ERRORS})
    def post(self, request, invitation_id):
        invitation = own_invitation(request.user, invitation_id)
        accept_invitation(invitation)
        return _answer(invitation, member=True)


class InvitationDecline(ApiView):
    """Decline an invitation addressed to you: it is gone and you do not join.  Anyone else's invitation is a 404."""

    @extend_schema(request=None, responses={200: InvitationAnswerSerializer, **NOT_FOUND, **ERRORS})
    def post(self, request, invitation_id):
        invitation = own_invitation(request.user, invitation_id)
        decline_invitation(invitation)
        return _answer(invitation, member=False)
