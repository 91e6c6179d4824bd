"""API token lifetime: expiry after ``SKYPLAN_TOKEN_TTL_HOURS`` and revocation when the user logs out of the site
(``SKYPLAN_TOKEN_REVOKE_ON_LOGOUT``); both from the environment (README, docs/api.md)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth.signals import user_logged_out
from django.dispatch import receiver
from django.utils import timezone
from rest_framework.authtoken.models import Token

__all__ = ["is_expired", "current_token", "revoke_on_logout"]


def is_expired(token: Token) -> bool:
    hours = settings.SKYPLAN_TOKEN_TTL_HOURS
    return hours > 0 and token.created < timezone.now() - timedelta(hours=hours)


def current_token(user) -> Token:
    """The user's token, a new one when there is none or it has expired."""
    token, created = Token.objects.get_or_create(user=user)
    if not created and is_expired(token):
        token.delete()
        token = Token.objects.create(user=user)
    return token


@receiver(user_logged_out)
def revoke_on_logout(sender, request, user, **kwargs) -> None:
    if user is not None and settings.SKYPLAN_TOKEN_REVOKE_ON_LOGOUT:
        Token.objects.filter(user=user).delete()
