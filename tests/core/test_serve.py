"""`manage.py serve` refuses a taken port before it starts a worker (which runserver's exit would orphan), and a
SIGTERM stops the worker it started."""

import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request

import pytest
from django.core.management import CommandError, call_command


def test_it_names_the_taken_port_and_how_to_choose_another():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(CommandError, match=rf"127.0.0.1:{port} is already in use .*SKYPLAN_PORT=8001 make run"):
            call_command("serve", "--port", str(port))


@pytest.mark.django_db
def test_a_sigterm_stops_the_worker_it_started(tmp_path):
    """A process manager or ``kill`` stops ``serve`` with SIGTERM: its worker goes with it, as on Ctrl-C."""
    from django.db import connection

    from tests.private_servers import free_port
    from tests.worker_processes import ROOT, _alive, _descendants, kill_tree, wait_for

    s = connection.settings_dict
    env = dict(os.environ, DJANGO_DEBUG="1", PYTHONUNBUFFERED="1",
               DATABASE_URL=f"postgres://{s['USER']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}",
               CELERY_TASK_DEFAULT_QUEUE=f"serve-sigterm-{os.getpid()}")  # takes no other test's tasks
    port = free_port()
    log = tmp_path / "serve.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "manage.py", "serve", "--port", str(port)], cwd=ROOT, env=env,
                                stdout=out, stderr=subprocess.STDOUT)
    pid = None
    try:
        pid = int(wait_for(lambda: re.search(r"worker pid (\d+)", log.read_text()), 60, "serve to start its worker")
                  .group(1))
        wait_for(lambda: _answers(port), 60, "serve to listen")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health/", timeout=30) as response:
            assert response.status == 200  # runserver, on the server without Nagle's delay (apps.core.devserver)
        assert _alive(pid)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
        wait_for(lambda: not _alive(pid), 30, f"the worker (pid {pid}) to stop after serve's SIGTERM")
    finally:
        if proc.poll() is None:
            kill_tree(proc)
        if pid is not None and _alive(pid):  # left behind: stop it and its pool here
            for p in (pid, *_descendants(pid)):
                os.kill(p, signal.SIGKILL)


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False
