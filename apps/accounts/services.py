"""Account workflows: the demo account that `make run` creates and prints."""

from __future__ import annotations

import secrets
from pathlib import Path

from django.contrib.auth import get_user_model

__all__ = ["ensure_demo_account"]

DEMO_USERNAME = "demo"


def ensure_demo_account(password_file: Path) -> tuple[str, str]:
    """Create (or reset) the demo user; the password is kept in ``password_file`` so it stays stable."""
    password_file = Path(password_file)
    if password_file.exists() and password_file.read_text(encoding="utf-8").strip():
        password = password_file.read_text(encoding="utf-8").strip()
    else:
        password = "sky-" + secrets.token_urlsafe(9)
        password_file.parent.mkdir(parents=True, exist_ok=True)
        password_file.write_text(password + "\n", encoding="utf-8")
        password_file.chmod(0o600)
    user_model = get_user_model()
    user, _ = user_model.objects.get_or_create(username=DEMO_USERNAME, defaults={"email": "demo@example.org"})
    user.is_staff = True
    user.is_superuser = True
    user.set_password(password)
    user.save()
    return DEMO_USERNAME, password
