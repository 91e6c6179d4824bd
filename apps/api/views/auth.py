"""Token authentication: exchange a user name and password for the user's API token."""

from __future__ import annotations

from django.contrib.auth.decorators import login_not_required
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import parsers, serializers, status
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from apps.api.base import BAD_REQUEST, ApiSchema
from apps.api.parsers import BoundedJSONParser
from apps.api.tokens import current_token

__all__ = ["TokenView"]


class TokenView(ObtainAuthToken):
    """``POST username, password`` -> ``{"token": ...}``; send it as ``Authorization: Token <token>``."""

    schema = ApiSchema()
    parser_classes = (parsers.FormParser, parsers.MultiPartParser, BoundedJSONParser)
    authentication_classes: list = []  # a stale or malformed Authorization header must not stop a new login

    @classmethod
    def as_view(cls, **initkwargs):
        return login_not_required(super().as_view(**initkwargs))

    @extend_schema(
        request=AuthTokenSerializer,
        responses={200: OpenApiResponse(inline_serializer("Token", {"token": serializers.CharField()})),
                   **BAD_REQUEST,
                   429: OpenApiResponse(inline_serializer("Throttled", {"detail": serializers.CharField()}),
                                        description="too many failed logins for this user name from this "
                                                    "address (SKYPLAN_LOGIN_FAILURE_LIMIT)")},
        auth=[],
    )
    def post(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        if not serializer.is_valid():
            if getattr(request, "axes_locked_out", False):  # set by the lockout backend on DRF's request
                return Response({"detail": "Too many failed logins for this user name from this address: try "
                                           "again later."}, status=status.HTTP_429_TOO_MANY_REQUESTS)
            raise ValidationError(serializer.errors)
        return Response({"token": current_token(serializer.validated_data["user"]).key})
