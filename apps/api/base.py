"""What every API view shares: exempt from the login-page redirect (DRF authenticates), service errors as 400s,
and the workspace a request acts in (the ``X-Skyplan-Workspace`` header, else the active workspace).

The site's ``LoginRequiredMiddleware`` would send an unauthenticated API call to the login page;
API views opt out of it so DRF's token/session authentication and ``IsAuthenticated`` answer
instead, with a 401 JSON body.
"""

from __future__ import annotations

import inspect
import json
import re

from django.contrib.auth.decorators import login_not_required
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, inline_serializer
from rest_framework import generics, renderers, serializers, views
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from apps.accounts.models import Workspace
from apps.accounts.workspaces import Role, active_workspace, get_or_404, require_role
from apps.api.authentication import AUTHENTICATION_CLASSES
from apps.api.parsers import BoundedJSONParser

__all__ = ["ApiSchema", "ApiView", "ListApiView", "RetrieveApiView", "ListCreateApiView", "api_workspace",
           "editable_workspace", "service_error", "not_ready", "ERRORS", "NOT_FOUND", "BAD_REQUEST", "UNSUPPORTED",
           "NOT_READY", "WORKSPACE_HEADER", "WORKSPACE_PARAMETER", "NO_WORKSPACE", "BAD_WORKSPACE", "AnyMediaRenderer"]

#: the request header that chooses the workspace an API request acts in (creates in), by the workspace's id
WORKSPACE_HEADER = "X-Skyplan-Workspace"
_WORKSPACE_META = "HTTP_X_SKYPLAN_WORKSPACE"
#: a workspace id as the header carries it: digits only, short enough for PostgreSQL's bigint
_WORKSPACE_ID = re.compile(r"[0-9]{1,18}")


class ApiSchema(AutoSchema):
    """Tags by surface (``/api/v1/<surface>/...``), operation ids without the version, and descriptions from the
    view's own docstring only (not its base classes')."""

    def get_tags(self) -> list[str]:
        parts = [p for p in self.path.split("/") if p]
        return [parts[2]] if len(parts) > 2 and parts[:2] == ["api", "v1"] else super().get_tags()

    def get_operation_id(self) -> str:
        return super().get_operation_id().removeprefix("v1_")

    def _get_response_bodies(self, direction="response"):
        """A paginated list also answers 400 for an invalid ``limit`` or ``offset`` (named as the key)."""
        bodies = super()._get_response_bodies(direction)
        if (self.method == "GET" and "400" not in bodies and self._get_paginator() is not None
                and self._is_list_view()):
            bad = OpenApiResponse(_errors, description="an invalid `limit` or `offset` (the key names it)")
            bodies["400"] = self._get_response_for_code(bad, "400", direction=direction)
        return bodies

    def get_description(self) -> str:
        action_or_method = getattr(self.view, getattr(self.view, "action", self.method.lower()), None)
        doc = getattr(action_or_method, "__doc__", None) or type(self.view).__dict__.get("__doc__") or ""
        return inspect.cleandoc(doc)


class _NoLoginRedirect:
    """Mixin: the view is exempt from LoginRequiredMiddleware (DRF's own permission classes apply)."""

    schema = ApiSchema()
    authentication_classes = AUTHENTICATION_CLASSES
    parser_classes = [BoundedJSONParser]  # bodies are JSON (nested options); the profile upload is multipart

    @classmethod
    def as_view(cls, **initkwargs):
        return login_not_required(super().as_view(**initkwargs))


class ApiView(_NoLoginRedirect, views.APIView):
    pass


class ListApiView(_NoLoginRedirect, generics.ListAPIView):
    pass


class RetrieveApiView(_NoLoginRedirect, generics.RetrieveAPIView):
    pass


class ListCreateApiView(_NoLoginRedirect, generics.ListCreateAPIView):
    pass


def api_workspace(request) -> Workspace:
    """The workspace this API request acts in: the one the ``X-Skyplan-Workspace`` header names by id, else the
    active workspace (a site session's choice, else the user's personal one).

    The only place the API resolves its workspace.  A header value that is not an id is a 400 naming the header;
    an id of a workspace the user is not a member of is a 404 whether or not it exists (the lookup the pages use
    to switch workspace)."""
    raw = request.META.get(_WORKSPACE_META)
    if raw is None:
        return active_workspace(request)
    raw = raw.strip()
    if not _WORKSPACE_ID.fullmatch(raw):
        raise ValidationError({WORKSPACE_HEADER: [
            "not a workspace id: send the id of one of your workspaces (GET /api/v1/workspaces/ lists them), or "
            "leave the header out to use your active workspace"]})
    return get_or_404(Workspace.objects.all(), request.user, field="", pk=int(raw))


def editable_workspace(request) -> Workspace:
    """The workspace this API request acts in (:func:`api_workspace`), where it is about to create something: 403
    naming the editor role unless the user may edit there."""
    workspace = api_workspace(request)
    require_role(request.user, workspace, Role.EDITOR)
    return workspace


def service_error(exc: Exception, fields: dict[str, str] | None = None, default: str = "non_field_errors"):
    """A service's refusal (``"field: why"``) as a DRF ValidationError keyed by the API field it names.

    ``fields`` maps the first word of the service's message (before ``.``, ``[`` or ``:``) to the API field."""
    message = str(exc)
    head, sep, _ = message.partition(": ")
    key = head.split(".")[0].split("[")[0] if sep else ""
    fields = fields or {}
    if key in fields:
        return ValidationError({fields[key]: [message]})
    return ValidationError({default: [message]})


_detail = inline_serializer("Detail", {"detail": serializers.CharField()})
#: a 400's body: each key names a field in error (nested fields nest), the header (``X-Skyplan-Workspace``) or a
#: query parameter (``limit``, ``offset``), its value the reasons; a body that cannot be parsed: ``{"detail": …}``
_errors = {
    "type": "object",
    "minProperties": 1,
    "additionalProperties": {"oneOf": [{"type": "array", "items": {}}, {"type": "string"}, {"type": "object"}]},
    "description": "each key names a field, header or query parameter in error; its value the reasons "
                   '(`["why", …]`, nested for nested fields); a body that is not valid JSON: `{"detail": "why"}`',
}

#: the error responses every authenticated operation can give
ERRORS = {
    401: OpenApiResponse(_detail, description="no or invalid credentials"),
    403: OpenApiResponse(_detail, description="a role too low in the object's workspace (viewers read; editors "
                                              "create, run, cancel and export), or a session without CSRF token"),
}
NOT_FOUND = {404: OpenApiResponse(_detail, description="no such object")}
#: the 404 of an operation that acts in the workspace the X-Skyplan-Workspace header chooses
NO_WORKSPACE = {404: OpenApiResponse(_detail, description=f"the {WORKSPACE_HEADER} header names no workspace of "
                                                          "yours (whether or not it exists)")}
BAD_WORKSPACE = {400: OpenApiResponse(_errors, description=f"the {WORKSPACE_HEADER} header is not a workspace id "
                                                           f"(the key is `{WORKSPACE_HEADER}`)")}
#: the header, declared on every operation that acts in a workspace (its 400 and 404 are in the responses)
WORKSPACE_PARAMETER = OpenApiParameter(
    WORKSPACE_HEADER, OpenApiTypes.INT, location=OpenApiParameter.HEADER, required=False,
    description="The id of the workspace to act in (`GET /api/v1/workspaces/` lists yours); creating needs the "
                "editor role there (else 403).  Absent: your active workspace, as chosen on the site in a session, "
                "else your personal one.  Not a workspace of yours: 404 (whether or not it exists); not an id: 400 "
                f"keyed `{WORKSPACE_HEADER}`.",
)
BAD_REQUEST = {400: OpenApiResponse(_errors, description="invalid input; the keys name the fields in error")}
UNSUPPORTED = {415: OpenApiResponse(_detail, description="the body is not of the media type the operation takes")}
NOT_READY = {409: OpenApiResponse(
    inline_serializer("NotReady", {"detail": serializers.CharField(), "status": serializers.CharField()}),
    description="not finished yet: poll the status",
)}


def not_ready(status: str) -> Response:
    """The 409 answer to a request for what a job has not produced yet."""
    return Response({"detail": f"not finished yet (status: {status}); poll the status", "status": status}, status=409)


class AnyMediaRenderer(renderers.BaseRenderer):
    """Lets a download be asked for with any Accept header; errors are still JSON."""

    media_type = "*/*"
    format = "file"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if renderer_context and renderer_context.get("response") is not None:
            renderer_context["response"]["Content-Type"] = "application/json"
        return json.dumps(data).encode() if data is not None else b""
