"""Token authentication: exchange a user name and password for the user's API token."""

from __future__ import annotations

from django.contrib.auth.decorators import login_not_required
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import parsers, serializers
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.authtoken.views import ObtainAuthToken

from apps.api.base import BAD_REQUEST, ApiSchema
from apps.api.parsers import BoundedJSONParser

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
                   **BAD_REQUEST},
        auth=[],
    )
    def post(self, request, *args, **kwargs):
        return super().post(request, *args, **kwargs)
