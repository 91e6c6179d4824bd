"""Django's development web server (``manage.py serve``, the browser benchmark's live server), answering without
Nagle's delay.

Django's server writes a response's headers and its body in separate sends; with Nagle's algorithm on, the body waits
for the client to acknowledge the headers, and a client delays that acknowledgement by up to 40 ms.  Every page of
``make run`` came 40 ms late (gunicorn, in production, sets ``TCP_NODELAY`` itself).
"""

from __future__ import annotations

import socket

from django.core.servers.basehttp import ThreadedWSGIServer, WSGIServer

__all__ = ["NoDelayWSGIServer", "NoDelayThreadedWSGIServer"]


class _NoDelay:
    def get_request(self):
        conn, address = super().get_request()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return conn, address


class NoDelayWSGIServer(_NoDelay, WSGIServer):
    """What ``runserver`` serves with (it adds threads itself)."""


class NoDelayThreadedWSGIServer(_NoDelay, ThreadedWSGIServer):
    """What a live server test thread serves with."""
