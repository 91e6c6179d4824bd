"""``manage.py api_token USERNAME``: print the user's API token (created on first use)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from rest_framework.authtoken.models import Token

from apps.api.tokens import current_token


class Command(BaseCommand):
    help = "Print USERNAME's API token (creating it if the user has none); send it as 'Authorization: Token <token>'."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--reset", action="store_true", help="replace the user's token with a new one")

    def handle(self, *args, username, reset=False, **options):
        try:
            user = get_user_model().objects.get(username=username)
        except get_user_model().DoesNotExist:
            raise CommandError(f"no user named {username!r}") from None
        if reset:
            Token.objects.filter(user=user).delete()
        self.stdout.write(current_token(user).key)
