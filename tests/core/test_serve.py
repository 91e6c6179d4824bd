"""`manage.py serve` refuses a taken port before it starts a worker (which runserver's exit would orphan)."""

import socket

import pytest
from django.core.management import CommandError, call_command


def test_it_names_the_taken_port_and_how_to_choose_another():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(CommandError, match=rf"127.0.0.1:{port} is already in use .*SKYPLAN_PORT=8001 make run"):
            call_command("serve", "--port", str(port))
