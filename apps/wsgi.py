"""WSGI entry point (gunicorn apps.wsgi).  The web server is the one process that needs DJANGO_SECRET_KEY: it
refuses to start without it unless DEBUG is on."""

import os

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "apps.settings")
if settings.SKYPLAN_SECRET_KEY_MISSING:
    raise ImproperlyConfigured(settings.SECRET_KEY_MISSING_MESSAGE)
application = get_wsgi_application()
