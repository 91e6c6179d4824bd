"""Start and stop a real ``celery worker`` process on the test database (shared by conftest and the reliability
tests; a module of its own because several test folders have a conftest.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def start_worker(queues: str, name: str, env: dict | None = None, extra_env: dict | None = None):
    """Start a real ``celery worker`` process consuming ``queues``, on the test database (or with the environment
    ``env``, e.g. private servers'; plus ``extra_env``); returns (process, log path, log file).  Stop it with
    :func:`stop_worker`."""
    if env is None:
        from django.db import connection

        settings_dict = connection.settings_dict
        db_url = (
            f"postgres://{settings_dict['USER']}@{settings_dict['HOST'] or '127.0.0.1'}:"
            f"{settings_dict['PORT'] or 5432}/{settings_dict['NAME']}"
        )
        env = dict(os.environ, DATABASE_URL=db_url)
    env = dict(env, **(extra_env or {}), CELERY_TASK_DEFAULT_QUEUE=queues.split(",")[0], PYTHONUNBUFFERED="1")
    log_path = ROOT / "var" / f"test-worker-{name}.log"
    log_path.parent.mkdir(exist_ok=True)
    log = open(log_path, "w")  # noqa: SIM115 - closed by stop_worker
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "apps", "worker", "-Q", queues, "--pool=prefork", "--concurrency=2",
         "--loglevel=INFO", "--without-mingle", "--without-gossip", "-n", f"{name}@%h"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"worker exited early, see {log_path}:\n{log_path.read_text()[-3000:]}")
        if "ready." in log_path.read_text():
            return proc, log_path, log
        time.sleep(0.2)
    proc.terminate()
    raise RuntimeError(f"worker did not become ready, see {log_path}")


class Worker:
    """A worker process on ``queue`` named ``name@host`` that a test may kill (:func:`kill_tree`); ``stop()`` it at
    the end in any case."""

    def __init__(self, queue: str, name: str):
        self.proc, self.log_path, self.log = start_worker(queue, name)
        self.node = f"{name}@{os.uname().nodename}"

    def stop(self):
        if self.proc.poll() is None:
            stop_worker(self.proc, self.log)
        else:
            self.log.close()


def stop_worker(proc, log) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


def wait_for(predicate, timeout: float, what: str, interval: float = 0.25):
    """Poll ``predicate`` until it returns something true (returned), or fail naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def _descendants(pid: int) -> list[int]:
    """Every process under ``pid`` (children, grandchildren such as fio), from /proc."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        parents.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[1][0] != "Z"
    except OSError:
        return False


def kill_tree(proc) -> list[int]:
    """SIGKILL the worker we started and every process under it; returns their pids."""
    pids = [proc.pid, *_descendants(proc.pid)]
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait(timeout=10)
    wait_for(lambda: not any(_alive(p) for p in pids), 20, "the killed processes to die")
    return pids
