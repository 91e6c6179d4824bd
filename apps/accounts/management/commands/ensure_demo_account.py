"""``python manage.py ensure_demo_account``: create the demo account and print its credentials."""

from django.conf import settings
from django.core.management.base import BaseCommand

from apps.accounts.services import ensure_demo_account


class Command(BaseCommand):
    help = "Create (or reset) the demo account and print its user name and password."

    def handle(self, *args, **options):
        username, password = ensure_demo_account(settings.VAR_DIR / "demo-password.txt")
        self.stdout.write(self.style.SUCCESS(f"Demo account: user '{username}', password '{password}'"))
