"""Database sessions that refuse a malformed session key before it reaches the database.

Django's keys are 32 lowercase letters and digits; a cookie carrying anything else (a NUL byte, say, which
PostgreSQL refuses in a query) is treated as no session instead of failing the request."""

from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore


class SessionStore(DatabaseSessionStore):
    def _validate_session_key(self, key):
        return bool(super()._validate_session_key(key)) and key.isascii() and key.isalnum() and len(key) <= 40
