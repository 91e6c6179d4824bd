"""The lockout backend: django-axes' check before the password check, for calls that come with a request."""

from __future__ import annotations

from axes.backends import AxesStandaloneBackend

__all__ = ["LockoutBackend"]


class LockoutBackend(AxesStandaloneBackend):
    """Refuses a locked-out user name and address (django-axes).  ``authenticate()`` without a request (the test
    client's ``login()``, a shell) has no address to count against: it is not checked here, where axes would raise;
    the login page, the admin and the token endpoint always pass their request."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)
