"""Token authentication that checks a token's form before looking it up.

DRF's ``TokenAuthentication`` sends any header value to the database; PostgreSQL refuses some characters (NUL) in
a query, which would make a malformed header a server error instead of a 401."""

from __future__ import annotations

import re

from rest_framework import exceptions
from rest_framework.authentication import SessionAuthentication, TokenAuthentication

from apps.api.tokens import is_expired

__all__ = ["ApiTokenAuthentication", "AUTHENTICATION_CLASSES"]

TOKEN_KEY = re.compile(r"[0-9a-f]{40}")


class ApiTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key):
        if not TOKEN_KEY.fullmatch(key):
            raise exceptions.AuthenticationFailed("Invalid token.")
        user, token = super().authenticate_credentials(key)
        if is_expired(token):
            raise exceptions.AuthenticationFailed("Token expired: get a new one from POST /api/v1/auth/token/.")
        return user, token


#: what the API views (and the schema and docs views) authenticate with
AUTHENTICATION_CLASSES = [ApiTokenAuthentication, SessionAuthentication]
