"""The development server (``manage.py serve``, the browser benchmark's live server) turns Nagle's algorithm off on
each connection it accepts: with it on, a page's body waited up to 40 ms for the client to acknowledge its headers."""

import socket

import pytest
from django.core.servers.basehttp import WSGIRequestHandler

from apps.core.devserver import NoDelayThreadedWSGIServer, NoDelayWSGIServer


@pytest.mark.parametrize("server_class", [NoDelayWSGIServer, NoDelayThreadedWSGIServer])
def test_each_accepted_connection_has_nagle_off(server_class):
    server = server_class(("127.0.0.1", 0), WSGIRequestHandler)
    try:
        with socket.create_connection(server.server_address, timeout=5):
            conn, _ = server.get_request()
            with conn:
                assert conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        server.server_close()
