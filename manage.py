#!/usr/bin/env python
"""Django's command-line utility for Skyplan."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "apps.settings")
    if not os.environ.get("DJANGO_SECRET_KEY"):
        # No production secret: this is a development machine, where commands run with DEBUG on (as `make run`
        # does).  Production sets DJANGO_SECRET_KEY, so DEBUG stays off unless DJANGO_DEBUG=1 says otherwise;
        # the web server (gunicorn) and workers never come through here and refuse to start without a secret.
        os.environ.setdefault("DJANGO_DEBUG", "1")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
