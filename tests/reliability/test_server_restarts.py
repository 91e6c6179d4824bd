"""Restarting Redis or PostgreSQL in the middle of a run never leaves it stuck and loses no finished result.

The module starts its own PostgreSQL cluster and Redis server (``tests/private_servers.py``), so it may stop and
restart them freely, and runs the app against them the way production does, each part in its own process:
``manage.py`` sets up the database, a real Celery worker runs the simulations, and gunicorn serves the web app
(keeping database connections open between requests, ``DATABASE_CONN_MAX_AGE=60``).  The tests drive the app over
HTTP like any API client and read the database directly to check what it stored.

Each test starts a scenario of two platforms with two replications each: four replication tasks for a worker of
concurrency two, so when the server goes down two are running and two are still queued.

How long the work takes depends on the machine (a replication that takes 10 s on a quiet one takes 80 s on a loaded
one, and a run's last replication then simulates the replications its pages show again, in detail), so the tests
wait on what the worker does, not on the clock: a wait fails when the worker has held no task for ``IDLE_S`` seconds
(nothing it could still do would bring the awaited state: stuck), or, as a last resort, after ``CAP_S`` seconds.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
from celery import Celery
from private_servers import PrivatePostgres, PrivateRedis, free_port, servers_available
from worker_processes import ROOT, start_worker, stop_worker
from worker_processes import wait_for as _wait

pytestmark = [pytest.mark.worker]

#: how long each server stays down (seconds): long enough that a worker retrying its broker connection (after 2, 4,
#: then 6 s) is still disconnected for a while after Redis is back
DOWN_S = 8.0
#: a replication of the SDP predict job array with this many jobs on sdp-p3 takes about 9 s (a full CI run,
#: 2026-11-27): building the model 7.7 s, simulating (progress written) 1.1 s, then storing (quiet machine, compiled
#: engine).  The scenario cut mid-run compares that platform with an unedited copy of it, two replications each: the
#: two that start together build the same model and end together (with fornax as the second platform, sdp-p3's
#: replication could end before fornax's had built its model).
LONG_JOBS = 100_000
#: the platform of the scenario cut mid-run.  Not Magnus: every job's I/O shares one Lustre tier across 1,536 nodes
#: (see bench/sdp_magnus.py), far longer replications.
MID_RUN_PLATFORM = "sdp-p3"
#: a wait fails once the worker has held no task this long (seconds): nothing is left that could end it
IDLE_S = 30.0
#: the worker is asked what it holds at most this often while a wait polls (seconds): each question can take seconds
#: on a loaded machine, and the awaited state may last only a few
ASK_EVERY_S = 2.0
#: no wait lasts longer than this, however busy the worker stays (seconds)
CAP_S = 900.0




class App:
    """Skyplan in its own processes (worker, web) on a private PostgreSQL and Redis."""

    def __init__(self):
        self.pg, self.redis = PrivatePostgres(), PrivateRedis()
        self.var = Path(tempfile.mkdtemp(prefix="skyplan-restarts-"))
        self.port = free_port()
        self.env = dict(
            os.environ, DATABASE_URL=self.pg.url("skyplan"), CELERY_BROKER_URL=self.redis.url(),
            CELERY_RESULT_BACKEND=self.redis.url(), SKYPLAN_VAR_DIR=str(self.var), DATABASE_CONN_MAX_AGE="60",
            SKYPLAN_SWEEP_INTERVAL_S="2", SKYPLAN_LOST_TASK_AFTER_S="5", PYTHONUNBUFFERED="1",
        )
        self.worker = self.worker_log = self.web = self.web_log = None
        self.worker_log_path: Path | None = None
        self.token = ""
        self.node = f"restarts@{socket.gethostname()}"
        self.control = Celery("restarts-client", set_as_current=False)  # asks the worker what it holds
        # the read and write URLs, as CELERY_BROKER_URL in the environment (the suite's broker) beats broker_url
        self.control.conf.broker_read_url = self.control.conf.broker_write_url = self.redis.url()

    def start(self) -> None:
        self.pg.start()
        self.redis.start()
        for command in (["ensure_database"], ["migrate", "--noinput"], ["load_catalogue"], ["ensure_demo_account"]):
            self.manage(*command)
        self.token = self.manage("api_token", "demo").strip()
        self.worker, self.worker_log_path, self.worker_log = start_worker("celery", "restarts", env=self.env)
        self.web_log = open(self.var / "web.log", "w")  # noqa: SIM115 - closed in stop()
        self.web = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "apps.wsgi:application", "--bind", f"127.0.0.1:{self.port}",
             "--workers", "1", "--threads", "4", "--timeout", "60"],
            cwd=ROOT, env=self.env, stdout=self.web_log, stderr=self.web_log)
        _wait(lambda: self.health() == 200, 60, "the web app to answer /health/")

    def stop(self) -> None:
        try:
            if self.web:
                self.web.terminate()  # gunicorn finishes the requests in flight first, for up to 30 s
                try:
                    self.web.wait(timeout=40)
                except subprocess.TimeoutExpired:
                    self.web.kill()
                    self.web.wait(timeout=10)
                self.web_log.close()
            if self.worker:
                stop_worker(self.worker, self.worker_log)
        finally:
            self.control.close()
            self.redis.destroy()
            self.pg.destroy()
            shutil.rmtree(self.var, ignore_errors=True)

    def manage(self, *args: str) -> str:
        done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, f"manage.py {' '.join(args)}: {done.stderr[-2000:]}"
        return done.stdout

    # --- as a client ---------------------------------------------------------------------------------------

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict | None]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            headers = {"Authorization": f"Token {self.token}", "Content-Type": "application/json"}
            conn.request(method, path, json.dumps(body) if body is not None else None, headers)
            response = conn.getresponse()
            data = response.read()
            is_json = response.getheader("Content-Type", "").startswith("application/json")
            return response.status, json.loads(data) if is_json and data else None
        finally:
            conn.close()

    def worker_tasks(self) -> int | None:
        """How many tasks the worker holds (running, reserved, or waiting for a retry's countdown); None when it does
        not answer (while Redis is down, say)."""
        held = 0
        inspect = self.control.control.inspect(destination=[self.node], timeout=2.0)
        for ask in (inspect.active, inspect.reserved, inspect.scheduled):
            try:
                replies = ask() or {}
            except Exception:  # noqa: BLE001 - the broker is unreachable: the worker cannot answer
                return None
            if self.node not in replies:
                return None
            held += len(replies[self.node])
        return held

    def health(self) -> int:
        try:
            return self.request("GET", "/health/")[0]
        except OSError:
            return 0

    def start_scenario(self, name: str, n_jobs: float, replications: int = 2,
                       platforms: tuple[str, ...] = ("sdp-p3", "fornax")) -> str:
        status, body = self.request("POST", "/api/v1/scenarios/", {
            "name": name, "workload": "sdp-predict-p3", "platforms": [{"platform": p} for p in platforms],
            "workload_overrides": {"n_jobs": n_jobs}, "replications": replications, "run": True})
        assert status == 201, body
        return body["id"]

    def copy_platform(self, slug: str) -> str:
        """A copy of catalogue platform ``slug`` in the demo account's workspace (the same values): its slug."""
        status, body = self.request("POST", f"/api/v1/platforms/{slug}/copy/")
        assert status == 201, body
        return body["slug"]

    def scenario_status(self, scenario_id: str) -> dict:
        status, body = self.request("GET", f"/api/v1/scenarios/{scenario_id}/status/")
        assert status == 200, body
        return body

    # --- what the database holds ---------------------------------------------------------------------------

    def replications(self, scenario_id: str) -> list[dict]:
        with psycopg.connect(self.pg.url("skyplan"), row_factory=psycopg.rows.dict_row) as conn:
            return conn.execute(
                "SELECT r.id, r.run_id, r.index, r.status, r.progress, r.task_id, r.worker, r.error, r.started_at,"
                "       r.finished_at,"
                "       r.result::text AS result, run.status AS run_status, run.results::text AS run_results"
                "  FROM scenarios_replication r JOIN scenarios_simulationrun run ON run.id = r.run_id"
                "  JOIN scenarios_scenarioplatform e ON e.run_id = run.id"
                " WHERE e.scenario_id = %s ORDER BY e.position, r.index", [scenario_id]).fetchall()


@pytest.fixture(scope="module")
def app():
    reason = servers_available()
    if reason:
        pytest.skip(reason)
    app = App()
    try:
        app.start()
        yield app
    finally:
        app.stop()


@pytest.fixture(scope="module")
def finished_before(app):
    """A scenario run to completion before any restart, and what the database held for it then."""
    scenario_id = app.start_scenario("finished before the restarts", n_jobs=2000)
    _wait_working(app, lambda: app.scenario_status(scenario_id)["finished"], "the first scenario to finish")
    assert app.scenario_status(scenario_id)["status"] == "succeeded"
    return scenario_id, app.replications(scenario_id)


def _wait_working(app, predicate, what: str):
    """Poll ``predicate`` until it returns something true (returned).  Fail naming ``what`` once the worker has held
    no task for ``IDLE_S`` seconds (stuck: nothing it still has to do could bring it about), or after ``CAP_S``."""
    start = time.monotonic()
    idle_since, asked = None, start
    while True:
        value = predicate()
        if value:
            return value
        now = time.monotonic()
        if now - asked < ASK_EVERY_S:
            time.sleep(0.2)
            continue
        asked = now
        if app.worker_tasks() == 0:
            idle_since = now if idle_since is None else idle_since
            if now - idle_since >= IDLE_S:
                raise AssertionError(f"stuck: the worker has held no task for {IDLE_S:.0f} s while the test waits "
                                     f"for {what} (see {app.worker_log_path})")
        else:
            idle_since = None
        if now - start >= CAP_S:
            raise AssertionError(f"timed out after {CAP_S:.0f} s waiting for {what}, the worker still busy")
        time.sleep(0.2)


def _idle(app) -> None:
    """Wait until the worker holds no task (asked twice in a row).  A scenario reads finished as soon as its last run
    has stored its results, while that run's task goes on preparing the scenario's results pages: started before
    that task ends, the next scenario would find one worker process busy, run its replications one by one, and never
    have two running and two queued."""
    state = {"zero": 0}

    def settled():
        state["zero"] = state["zero"] + 1 if app.worker_tasks() == 0 else 0
        return state["zero"] >= 2

    waited = time.monotonic()
    while not settled():
        assert time.monotonic() - waited < CAP_S, f"the worker still busy after {CAP_S:.0f} s"
        time.sleep(0.5)


def _mid_run(app, name: str) -> tuple[str, list[dict]]:
    """On an idle worker, start the long scenario and wait until two replications are running and two are queued.
    The two running ones are then most likely building their model (about 85 % of a replication), so neither ends
    before the outage the test starts next and hands the worker a queued task (waiting until both were simulating,
    one could be in its last second while the other began: it stored its result before PostgreSQL went down, failed
    in CI)."""
    _idle(app)
    twin = app.copy_platform(MID_RUN_PLATFORM)
    scenario_id = app.start_scenario(name, n_jobs=LONG_JOBS, platforms=(MID_RUN_PLATFORM, twin))

    def two_running():
        reps = app.replications(scenario_id)
        running = [r for r in reps if r["status"] == "running"]
        return reps if len(running) == 2 and sum(r["status"] == "queued" for r in reps) == 2 else None

    return scenario_id, _wait_working(app, two_running, "two replications to be running and two queued")


def _finished(app, scenario_id: str) -> dict:
    def status():
        body = app.scenario_status(scenario_id)
        return body if body["finished"] else None

    return _wait_working(app, status, "the scenario to finish after the restart")


def test_a_redis_restart_mid_run_sends_the_lost_tasks_again(app, finished_before):
    scenario_id, before = _mid_run(app, "through a Redis restart")
    queued = {r["id"]: r["task_id"] for r in before if r["status"] == "queued"}
    connections = app.worker_log_path.read_text().count("Connected to redis://")

    app.redis.stop()  # without saving: the two queued tasks are gone with it
    time.sleep(DOWN_S)
    app.redis.start()
    back = time.monotonic()

    assert app.health() == 200
    _wait(lambda: app.worker_log_path.read_text().count("Connected to redis://") > connections, 60,
          "the worker to reconnect")
    reconnected = time.monotonic() - back
    _wait_working(app, lambda: all(r["task_id"] != queued[r["id"]] for r in app.replications(scenario_id)
                                   if r["id"] in queued), "the lost tasks to be sent again")
    resent = time.monotonic() - back
    status = _finished(app, scenario_id)
    finished = time.monotonic() - back
    after = app.replications(scenario_id)
    assert status["status"] == "succeeded", status
    assert all(r["status"] == "succeeded" and r["result"] for r in after)
    assert all(r["run_status"] == "succeeded" and r["run_results"] for r in after)
    # the queued ones were sent again under new task ids; the running ones kept theirs and finished
    assert all(r["task_id"] != queued[r["id"]] for r in after if r["id"] in queued)
    assert [r["task_id"] for r in after if r["id"] not in queued] == [
        r["task_id"] for r in before if r["id"] not in queued]
    assert app.replications(finished_before[0]) == finished_before[1]
    print(f"\nRedis down {DOWN_S:.0f} s; after it was back: worker reconnected in {reconnected:.1f} s, lost tasks "
          f"sent again in {resent:.1f} s, scenario finished in {finished:.1f} s")


def test_a_postgresql_restart_mid_run_is_retried_and_loses_nothing(app, finished_before):
    scenario_id, before = _mid_run(app, "through a PostgreSQL restart")
    running = {r["id"] for r in before if r["status"] == "running"}

    app.pg.stop()
    down_at = datetime.now(UTC)  # nothing written from here until the restart
    time.sleep(DOWN_S)
    app.pg.start()
    back, back_at = time.monotonic(), datetime.now(UTC)

    assert app.health() == 200  # the first request after the restart already reconnects
    assert app.request("GET", f"/api/v1/scenarios/{scenario_id}/")[0] == 200
    _wait_working(app, lambda: any((r["started_at"] or back_at) > back_at for r in app.replications(scenario_id)),
                  "a replication to start again")
    resumed = time.monotonic() - back
    status = _finished(app, scenario_id)
    finished = time.monotonic() - back
    after = app.replications(scenario_id)
    assert status["status"] == "succeeded", status
    assert all(r["status"] == "succeeded" and r["result"] for r in after)
    retried = set(re.findall(r"run_replication\[([0-9a-f-]+)\] retry: Retry in \d+s: OperationalError",
                             app.worker_log_path.read_text()))
    # a replication running at the last look that stored its result before the server was down (its last
    # simulating second) was not interrupted; every one that was is retried under its task id, not failed
    interrupted = {r["id"] for r in after if r["id"] in running and r["finished_at"] > down_at}
    assert interrupted, f"the outage interrupted none of the replications running before it: {after}"
    assert {r["task_id"] for r in before if r["id"] in interrupted} <= retried
    assert app.replications(finished_before[0]) == finished_before[1]
    print(f"\nPostgreSQL down {DOWN_S:.0f} s; after it was back: /health/ answered 200 at once, "
          f"work resumed (a retried replication started) in {resumed:.1f} s, scenario finished in {finished:.1f} s")
