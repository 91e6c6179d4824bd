"""Load test: USERS simulated users browse results and catalogue pages and call the JSON endpoints and the REST API
for DURATION seconds against gunicorn on loopback, with production settings and PostgreSQL.

It sets up its own database (``skyplan_load`` by default: migrations, the reference catalogue, a user with an API
token, the demo scenario run to completion in this process, a profile), starts ``bin/serve-prod`` (web only) on a
free loopback port, logs every user in through the login form, lets them browse, stops the server and prints
requests/s, the error count and p50/p95/p99 latency per endpoint class.  Bounded: at most --max-requests requests,
--duration seconds (at most 600) and a --timeout per request; the server is always stopped.

    .venv/bin/python bench/load.py [--users 50] [--duration 60] [--think 3] [--database-url URL]

Each user pauses 1 to 5 s between requests (--think 3, the mean; locust's usual ``between(1, 5)``); --think 0.3
turns the same users into a stress test that saturates the server and shows its capacity.

Why a small client on threads and http.client rather than locust or wrk: no new dependency (locust would bring
gevent, wrk needs Lua for a login with CSRF and cookies), the bounds are explicit, and every latency is kept, so
the percentiles per class are exact rather than bucketed.  Fifty threads spend most of their time waiting on
sockets; the client's own CPU use is printed beside the figures, since it shares the machine with the server.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import re
import resource
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from unittest import mock
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

USER, PASSWORD = "load-tester", "a long password for the load test"
#: endpoint class -> weight of a user's next request (the remaining share of a visit's requests is its static files)
MIX = {"scenario page": 16, "run page": 14, "catalogue page": 22, "json status": 22, "api": 18, "static": 8}


# --- setup (in this process, on the load database) -------------------------------------------------------------

def drop_database(database_url: str) -> None:
    """Drop the load database (--fresh), e.g. after its migrations were rewritten."""
    import dj_database_url
    import psycopg
    from psycopg import sql

    db = dj_database_url.parse(database_url)
    with psycopg.connect(dbname="postgres", host=db["HOST"] or None, port=db["PORT"] or None,
                         user=db["USER"] or None, password=db["PASSWORD"] or None, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(db["NAME"])))


def setup_data(database_url: str, secret_key: str) -> dict:
    """Migrate and fill the load database once (later runs reuse it); returns the URLs and the API token."""
    os.environ.update(DATABASE_URL=database_url, DJANGO_SECRET_KEY=secret_key, DJANGO_SETTINGS_MODULE="apps.settings")
    os.environ.pop("DJANGO_DEBUG", None)
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    from apps.platforms.models import Platform
    from apps.profiles.models import Profile
    from apps.profiles.services import import_file
    from apps.scenarios import services
    from apps.scenarios.models import Scenario
    from apps.workloads.catalogue import load_catalogue
    from apps.workloads.models import Workload

    call_command("ensure_database")
    call_command("migrate", "--noinput", verbosity=0)
    if not Platform.objects.exists():
        load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
    user, created = get_user_model().objects.get_or_create(username=USER)
    if created:
        user.set_password(PASSWORD)
        user.save()
    token, _ = Token.objects.get_or_create(user=user)
    scenario = next((s for s in Scenario.objects.filter(name=services.DEMO["name"], created_by=user)
                     if s.status() == "succeeded"), None)
    if scenario is None:
        t0 = time.monotonic()
        with mock.patch.object(services, "dispatch_run"):  # run the replications here rather than on a worker
            scenario = services.run_scenario(services.create_demo_scenario(user), user=user)
        for entry in scenario.entries.select_related("run"):
            for index in range(entry.run.replications):
                services.execute_replication(str(entry.run.pk), index)
        print(f"setup: ran the demo scenario in {time.monotonic() - t0:.1f} s")
    if not Profile.objects.exists():
        import_file(ROOT / "fixtures" / "profiles" / "seq_read.skyplan.csv", user=user)
    runs = [str(e.run_id) for e in scenario.entries.all()]
    platforms = list(Platform.objects.values_list("slug", flat=True))
    workloads = list(Workload.objects.values_list("slug", flat=True))
    return {
        "token": token.key,
        "scenario page": [f"/scenarios/{scenario.pk}/"],
        "run page": [f"/runs/{r}/" for r in runs],
        "catalogue page": ["/platforms/", "/workloads/", "/workloads/reference-observations/"]
        + [f"/platforms/{p}/" for p in platforms] + [f"/workloads/{w}/" for w in workloads],
        "json status": [f"/scenarios/{scenario.pk}/status/", "/health/"] + [f"/runs/{r}/status/" for r in runs],
        "api": ["/api/v1/platforms/", "/api/v1/scenarios/", f"/api/v1/scenarios/{scenario.pk}/",
                f"/api/v1/scenarios/{scenario.pk}/status/", "/api/v1/runs/"]
        + [f"/api/v1/runs/{r}/status/" for r in runs] + [f"/api/v1/platforms/{p}/" for p in platforms[:3]],
        "static": [],  # filled from the pages' own <link>/<script> URLs (hashed names) after login
    }


# --- the server --------------------------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(database_url: str, secret_key: str, port: int, log_path: Path, web_workers: int | None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PYTEST"))}
    env.update(DATABASE_URL=database_url, DJANGO_SECRET_KEY=secret_key, DJANGO_ALLOWED_HOSTS="127.0.0.1",
               SKYPLAN_BIND=f"127.0.0.1:{port}", SKYPLAN_WORKER="0", SKYPLAN_STATIC_COLLECTED="1",
               SKYPLAN_STATIC_ROOT=str(ROOT / "var" / "load-static"), DATABASE_CONN_MAX_AGE="60",
               CELERY_BROKER_URL=os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/13"))
    if web_workers:
        env["SKYPLAN_WEB_WORKERS"] = str(web_workers)
    proc = subprocess.Popen([str(ROOT / "bin" / "serve-prod")], cwd=ROOT, env=env, stdout=log_path.open("w"),
                            stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited; see {log_path}:\n{log_path.read_text()[-3000:]}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/health/")
            if conn.getresponse().status == 200:
                return proc
        except OSError:
            time.sleep(0.3)
    stop_server(proc)
    raise SystemExit(f"the server did not answer within 180 s; see {log_path}")


def group_cpu_seconds(pgid: int) -> float:
    """CPU time used so far by the live processes of a process group (the server: gunicorn and its workers)."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # fields after the name: state, ppid, pgrp, ..., utime (12), stime (13)
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def stop_server(proc) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


# --- the users ---------------------------------------------------------------------------------------------------

class Budget:
    """The shared bounds: a deadline and a request cap."""

    def __init__(self, seconds: float, max_requests: int):
        self.deadline = time.monotonic() + seconds
        self.left = max_requests
        self.lock = threading.Lock()

    def take(self) -> bool:
        with self.lock:
            if self.left <= 0 or time.monotonic() >= self.deadline:
                return False
            self.left -= 1
            return True


class User(threading.Thread):
    """One browser-like user: logs in through the form, then requests pages, JSON and API endpoints with think time.

    Keeps one keep-alive connection for the session (cookies) and one for the API (token)."""

    def __init__(self, port, urls, budget, think, timeout, samples, errors, seed):
        super().__init__(daemon=True)
        self.port, self.urls, self.budget, self.think, self.timeout = port, urls, budget, think, timeout
        self.samples, self.errors, self.rng = samples, errors, random.Random(seed)
        self.reconnects: dict[str, int] = defaultdict(int)
        self.logged_in = threading.Event()
        self.cookies: dict[str, str] = {}
        self.conns: dict[str, http.client.HTTPConnection] = {}

    def request(self, klass, method, path, *, body=None, headers=None, api=False, expect=(200,)):
        conn = self.conns.get("api" if api else "web")
        reused = conn is not None
        if conn is None:
            conn = self.conns["api" if api else "web"] = http.client.HTTPConnection("127.0.0.1", self.port,
                                                                                   timeout=self.timeout)
        headers = {"Host": "127.0.0.1", **(headers or {})}
        if api:
            headers["Authorization"] = f"Token {self.urls['token']}"
        elif self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        t0 = time.perf_counter()
        try:
            try:
                conn.request(method, path, body=body, headers=headers)
                response = conn.getresponse()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                if not reused:
                    raise
                # the server closed the idle keep-alive connection as we reused it: reconnect and resend, as a
                # browser does (counted, and timed from the first attempt)
                self.reconnects[klass] += 1
                conn.close()
                conn.request(method, path, body=body, headers=headers)
                response = conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            self.conns.pop("api" if api else "web", None)
            self.errors[klass].append(f"{path}: {type(exc).__name__}: {exc}")
            return None, b""
        elapsed = time.perf_counter() - t0
        self.samples[klass].append(elapsed)
        self.samples[f"path {path}"].append(elapsed)
        for header in response.msg.get_all("Set-Cookie") or []:
            name, _, value = header.split(";", 1)[0].partition("=")
            self.cookies[name.strip()] = value.strip()
        if response.status not in expect:
            self.errors[klass].append(f"{path}: HTTP {response.status}")
        return response, data

    def login(self) -> bool:
        _, page = self.request("login", "GET", "/accounts/login/")
        token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        if token is None:
            self.errors["login"].append("no CSRF token on the login page")
            return False
        form = urlencode({"username": USER, "password": PASSWORD, "csrfmiddlewaretoken": token.group(1).decode()})
        response, _ = self.request("login", "POST", "/accounts/login/", body=form, expect=(302,), headers={
            "Content-Type": "application/x-www-form-urlencoded", "Referer": f"http://127.0.0.1:{self.port}/"})
        if response is not None and "sessionid" in self.cookies:
            self.logged_in.set()
        return self.logged_in.is_set()

    def run(self):
        """Browse until the budget runs out (after :meth:`login`, done before the clock starts)."""
        if not self.logged_in.is_set():
            return
        classes, weights = zip(*MIX.items(), strict=True)
        while True:
            time.sleep(self.rng.uniform(self.think / 3, 5 * self.think / 3))
            if not self.budget.take():
                break
            klass = self.rng.choices(classes, weights)[0]
            path = self.rng.choice(self.urls[klass] or self.urls["catalogue page"])
            self.request(klass, "GET", path, api=klass == "api")
        for conn in self.conns.values():
            conn.close()


def static_urls(port: int, urls: dict, timeout: float) -> list[str]:
    """The hashed static URLs the pages refer to (CSS and page scripts; plotly.js is cached by browsers)."""
    probe = User(port, urls, Budget(60, 10), 0, timeout, defaultdict(list), defaultdict(list), 0)
    if not probe.login():
        raise SystemExit(f"cannot log in as {USER}: {dict(probe.errors)}")
    found = set()
    for path in (urls["scenario page"][0], urls["run page"][0], "/platforms/"):
        _, page = probe.request("probe", "GET", path)
        found |= {m.decode() for m in re.findall(rb'(?:href|src)="(/static/[^"]+\.(?:css|js))"', page)}
    return sorted(u for u in found if "plotly.min" not in u)


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    index = max(0, min(len(sorted_values) - 1, round(q / 100 * len(sorted_values) + 0.5) - 1))
    return sorted_values[index]


def report(samples, errors, seconds: float, users: int) -> int:
    total = sum(len(v) for k, v in samples.items() if k in MIX)
    error_count = sum(len(v) for v in errors.values())
    print(f"\n{users} users, {seconds:.1f} s: {total} requests, {total / seconds:.1f} requests/s, "
          f"{error_count} errors")
    print(f"{'class':<16} {'requests':>8} {'req/s':>7} {'errors':>6} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} "
          f"{'max ms':>8}")
    everything = []
    for klass in MIX:
        values = sorted(samples.get(klass, []))
        everything += values
        if values:
            print(f"{klass:<16} {len(values):>8} {len(values) / seconds:>7.1f} {len(errors.get(klass, [])):>6} "
                  + " ".join(f"{1000 * percentile(values, q):>8.1f}" for q in (50, 95, 99)) +
                  f" {1000 * values[-1]:>8.1f}")
    everything.sort()
    if everything:
        print(f"{'all':<16} {len(everything):>8} {len(everything) / seconds:>7.1f} {error_count:>6} "
              + " ".join(f"{1000 * percentile(everything, q):>8.1f}" for q in (50, 95, 99)) +
              f" {1000 * everything[-1]:>8.1f}")
    by_path = sorted(((percentile(sorted(v), 95), k[5:], len(v)) for k, v in samples.items()
                      if k.startswith("path ") and len(v) >= 5), reverse=True)
    print("slowest paths (p95 ms, requests): " + "; ".join(f"{path} {1000 * p95:.0f} ({n})"
                                                           for p95, path, n in by_path[:4]))
    for klass, messages in errors.items():
        for message in messages[:5]:
            print(f"error ({klass}): {message}")
    return error_count


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load (at most 600)")
    parser.add_argument("--think", type=float, default=3.0,
                        help="mean pause between a user's requests, seconds (uniform over 1/3 to 5/3 of it: 1-5 s)")
    parser.add_argument("--max-requests", type=int, default=200_000)
    parser.add_argument("--timeout", type=float, default=30.0, help="per request, seconds")
    parser.add_argument("--web-workers", type=int, default=None, help="gunicorn workers (default: serve-prod's)")
    parser.add_argument("--database-url", default=os.environ.get("SKYPLAN_LOAD_DATABASE_URL",
                                                                 "postgres://postgres@127.0.0.1:5432/skyplan_load"))
    parser.add_argument("--fresh", action="store_true", help="drop and rebuild the load database first")
    args = parser.parse_args(argv)
    if not 1 <= args.users <= 500 or not 0 < args.duration <= 600:
        parser.error("--users must be 1 to 500 and --duration 0 to 600 seconds")
    if not args.database_url.startswith("postgres"):
        parser.error("--database-url: the load test runs on PostgreSQL, as production does")

    secret_key = secrets.token_urlsafe(50)
    if args.fresh:
        drop_database(args.database_url)
    urls = setup_data(args.database_url, secret_key)
    port = free_port()
    log_path = ROOT / "var" / "load-server.log"
    print(f"setup: starting bin/serve-prod on 127.0.0.1:{port} (log: {log_path.relative_to(ROOT)})")
    server = start_server(args.database_url, secret_key, port, log_path, args.web_workers)
    try:
        urls["static"] = static_urls(port, urls, args.timeout)
        samples, errors = defaultdict(list), defaultdict(list)
        budget = Budget(args.duration + 600, args.max_requests)  # the clock starts once everyone has logged in
        users = [User(port, urls, budget, args.think, args.timeout, samples, errors, seed)
                 for seed in range(args.users)]
        # Log everyone in first, ten at a time (a password check costs ~0.5 s of CPU by design): timed as "login"
        t_login = time.monotonic()
        for batch in range(0, len(users), 10):
            logins = [threading.Thread(target=u.login) for u in users[batch:batch + 10]]
            for t in logins:
                t.start()
            for t in logins:
                t.join(timeout=120)
        print(f"setup: {sum(u.logged_in.is_set() for u in users)} of {len(users)} users logged in "
              f"in {time.monotonic() - t_login:.1f} s")
        budget.deadline = time.monotonic() + args.duration
        load_before = os.getloadavg()[0]
        server_cpu0 = group_cpu_seconds(server.pid)
        cpu0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
        for user in users:
            user.start()
        for user in users:
            user.join(timeout=args.duration + 2 * args.timeout + 10)
        seconds = time.monotonic() - t0
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
        server_cpu = group_cpu_seconds(server.pid) - server_cpu0
    finally:
        stop_server(server)
    logins = sorted(samples.pop("login", []))
    samples.pop("path /accounts/login/", None)
    error_count = report(samples, errors, seconds, args.users)
    if logins:
        print(f"login (before the clock): {len(logins)} in batches of 10, p50 {1000 * percentile(logins, 50):.0f} ms, "
              f"max {1000 * logins[-1]:.0f} ms (PBKDF2 password check)")
    requests = sum(len(v) for k, v in samples.items() if k in MIX)
    if requests:
        print(f"server CPU (gunicorn workers, PostgreSQL not included): {server_cpu:.1f} s, "
              f"{1000 * server_cpu / requests:.0f} ms per request, {server_cpu / seconds:.2f} cores on average")
    reconnects = sum(sum(u.reconnects.values()) for u in users)
    print(f"keep-alive connections closed by the server while idle and reopened: {reconnects}")
    client_cpu = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
    print(f"client CPU: {client_cpu:.1f} s over {seconds:.1f} s ({100 * client_cpu / seconds:.0f}% of one core); "
          f"think time {args.think / 3:.2g}-{5 * args.think / 3:.2g} s; {os.cpu_count()} cores shared by client, "
          f"gunicorn and PostgreSQL; load average before {load_before:.2f}, after {os.getloadavg()[0]:.2f}")
    return 1 if error_count else 0


if __name__ == "__main__":
    sys.exit(main())
