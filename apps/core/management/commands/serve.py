"""``python manage.py serve``: the web server and a real Celery worker process, together.

Used by ``make run`` (which sets DJANGO_DEBUG=1).  The worker is a separate process (never eager mode) using
whatever broker the settings name: the embedded file-system broker by default,
Redis when CELERY_BROKER_URL is set.  Ctrl-C stops both.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys

from django.conf import settings
from django.core.management import call_command, get_commands, load_command_class
from django.core.management.base import BaseCommand, CommandError

from apps.core.devserver import NoDelayWSGIServer


class Command(BaseCommand):
    help = "Run the web server and a Celery worker process; print the URL."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=int(os.environ.get("SKYPLAN_PORT", "8000")))
        parser.add_argument("--host", default=os.environ.get("SKYPLAN_HOST", "127.0.0.1"))
        parser.add_argument("--concurrency", type=int, default=2)

    def handle(self, *args, port, host, concurrency, **options):
        # runserver leaves with os._exit() when the port is taken, which would orphan the worker: check first
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((host, port))
            except OSError as exc:
                raise CommandError(f"{host}:{port} is already in use ({exc.strerror}); is Skyplan already running? "
                                   f"Stop it or choose another port: SKYPLAN_PORT=8001 make run") from None
        worker_cmd = [
            sys.executable, "-m", "celery", "-A", "apps", "worker",
            "--loglevel=WARNING", f"--concurrency={concurrency}", "--without-mingle", "--without-gossip",
            "-n", f"skyplan-{os.getpid()}@%h",
        ]
        # a SIGTERM (kill, a process manager, a container stop) would end this process without the ``finally``
        # below and leave the worker running: make it leave the way Ctrl-C does
        previous = signal.signal(signal.SIGTERM, _leave)
        worker = subprocess.Popen(worker_cmd)
        try:
            broker = settings.CELERY_BROKER_URL.split("@")[-1]
            db = settings.DATABASES["default"]
            self.stdout.write(f"Database: {db['ENGINE'].rsplit('.', 1)[-1]} {db['NAME']}")
            self.stdout.write(f"Broker:   {broker} (worker pid {worker.pid})")
            if not settings.DEBUG:
                self.stdout.write(self.style.WARNING(
                    "DEBUG is off: cookies are HTTPS-only, so logging in over http:// needs DJANGO_DEBUG=1 (make run sets "
                    "it). This is the development server; for production use bin/serve-prod (README: Production)."))
            self.stdout.write(self.style.SUCCESS(f"Skyplan is running at http://{host}:{port}/  (Ctrl-C to stop)"))
            runserver = load_command_class(get_commands()["runserver"], "runserver")
            runserver.server_cls = NoDelayWSGIServer  # pages without Nagle's 40 ms (apps.core.devserver)
            call_command(runserver, f"{host}:{port}", use_reloader=False)
        finally:
            signal.signal(signal.SIGTERM, previous)
            worker.terminate()
            try:
                worker.wait(timeout=15)
            except subprocess.TimeoutExpired:
                worker.kill()


def _leave(signum, frame):
    raise SystemExit(128 + signum)
