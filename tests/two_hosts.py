"""Two hosts on one machine, for the several-hosts tests and the upload figures (bench/store_upload.py).

The web host is this machine's own network namespace: gunicorn on a loopback port, with a directory of its own.
The worker host is a network namespace joined to it by a veth pair (an address pair in 10.213.0.0/16 that this
module picks, checks unused and removes), with its own mount, UTS and PID namespaces: its own host name, the web
host's directory hidden under an empty tmpfs, and its processes all gone when its first process is killed.
PostgreSQL (a private cluster; the worker connects as the least-privilege role of docs/hosts.md), Redis (a private
server with one ACL user per host) and an S3-compatible object store (moto's server) listen on the veth address.

With ``two_hosts=False`` the same pieces run as one host: everything on loopback, the worker in this namespace
sharing the web host's directory, files on the local file system (the embedded default).
"""

from __future__ import annotations

import contextlib
import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import requests
from private_servers import PrivatePostgres, PrivateRedis, free_port
from worker_processes import wait_for

ROOT = Path(__file__).resolve().parent.parent

#: the least-privilege database role of a worker host (docs/hosts.md): rows only, no schema changes, and neither the
#: web's API tokens nor its sessions
WORKER_ROLE_SQL = """
CREATE ROLE skyplan_worker LOGIN PASSWORD '{password}';
GRANT CONNECT ON DATABASE {db} TO skyplan_worker;
GRANT USAGE ON SCHEMA public TO skyplan_worker;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO skyplan_worker;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO skyplan_worker;
REVOKE ALL ON authtoken_token, django_session FROM skyplan_worker;
"""
#: the Redis ACL of a worker (docs/hosts.md): any key and channel, no administration or dangerous commands
WORKER_ACL = "skyplan-worker on >{password} ~* &* +@all -@admin -@dangerous +info +client"
WEB_ACL = "skyplan-web on >{password} ~* &* +@all -@admin -@dangerous +info +client"


SETUP = """
import io
from contextlib import redirect_stdout
from django.core.management import call_command
from apps.platforms.models import Platform, StorageTier
for command in (("ensure_database",), ("migrate", "--noinput", "-v", "0"), ("load_catalogue",)):
    call_command(*command, stdout=io.StringIO())
out = io.StringIO()
call_command("ensure_demo_account", stdout=out)
user, password = out.getvalue().split("user '")[1].split("'")[0], out.getvalue().split("password '")[1].split("'")[0]
out = io.StringIO()
call_command("api_token", user, stdout=out)
p = Platform.objects.create(slug="{slug}", name="the worker host", kind="owned_cluster")
StorageTier.objects.create(platform=p, name="local scratch", kind="local_ssd")
print(user, password, out.getvalue().strip())
"""


def namespaces_unavailable() -> str:
    """Why network namespaces cannot be made here ("" when they can): tried, then removed."""
    if shutil.which("ip") is None or shutil.which("unshare") is None:
        return "no ip (iproute2) or unshare (util-linux) on PATH"
    if os.geteuid() != 0:
        return "network namespaces need root"
    name = f"skyplan-probe-{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True)
    if made.returncode != 0:
        return f"cannot make a network namespace: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "delete", name], capture_output=True)
    return ""


def _ip(*args: str, ns: str | None = None) -> None:
    cmd = ["ip", "netns", "exec", ns, "ip", *args] if ns else ["ip", *args]
    subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=30)


class VethPair:
    """A network namespace and a veth pair: ``host_addr`` on this side, ``ns_addr`` inside, in a /30 no interface
    here uses yet.  ``remove()`` deletes the namespace and the pair (safe to call twice)."""

    def __init__(self):
        tag = f"{os.getpid() % 10000:04d}{secrets.token_hex(1)}"
        self.ns, self.outer, self.inner = f"skyplan-h2-{tag}", f"skyh2{tag}a", f"skyh2{tag}b"
        used = subprocess.run(["ip", "-o", "-4", "addr"], capture_output=True, text=True).stdout
        for _ in range(200):
            third, fourth = random.randrange(1, 255), 4 * random.randrange(0, 63)
            net = f"10.213.{third}."
            if not any(f"{net}{fourth + k}/" in used for k in range(4)):
                break
        self.host_addr, self.ns_addr = f"{net}{fourth + 1}", f"{net}{fourth + 2}"
        self.subnet = f"{net}{fourth}/30"
        self.made = False

    def make(self) -> VethPair:
        _ip("netns", "add", self.ns)
        self.made = True
        _ip("link", "add", self.outer, "type", "veth", "peer", "name", self.inner)
        _ip("link", "set", self.inner, "netns", self.ns)
        _ip("addr", "add", f"{self.host_addr}/30", "dev", self.outer)
        _ip("link", "set", self.outer, "up")
        _ip("addr", "add", f"{self.ns_addr}/30", "dev", self.inner, ns=self.ns)
        _ip("link", "set", self.inner, "up", ns=self.ns)
        _ip("link", "set", "lo", "up", ns=self.ns)
        return self

    def pids(self) -> list[int]:
        out = subprocess.run(["ip", "netns", "pids", self.ns], capture_output=True, text=True).stdout
        return [int(p) for p in out.split()]

    def remove(self) -> None:
        if not self.made:
            return
        for pid in self.pids():  # nothing should be left; kill what is, by its pid in this namespace
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        subprocess.run(["ip", "netns", "delete", self.ns], capture_output=True)
        subprocess.run(["ip", "link", "delete", self.outer], capture_output=True)  # gone with its peer already
        self.made = False


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(p) for p in fh.read().split()]
    except OSError:
        return []


def peak_rss_kib(pid: int) -> int:
    """The process's peak resident memory so far (VmHWM, KiB)."""
    with open(f"/proc/{pid}/status") as fh:
        return int(next(line for line in fh if line.startswith("VmHWM:")).split()[1])


@dataclass
class Worker:
    proc: subprocess.Popen
    log_path: Path
    main_pid: int  # the celery main process (inside the worker host's PID namespace: its first process)
    node: str

    def pool_pids(self) -> list[int]:
        return _children(self.main_pid)


@dataclass
class Hosts:
    """A running web host and worker host; ``api`` and ``browser`` are HTTP sessions to the web host."""

    two_hosts: bool
    base: Path
    web_url: str = ""
    veth: VethPair | None = None
    pg: PrivatePostgres | None = None
    redis: PrivateRedis | None = None
    moto: subprocess.Popen | None = None
    s3_endpoint: str = ""
    bucket: str = "skyplan-files"
    web: subprocess.Popen | None = None
    workers: list[Worker] = field(default_factory=list)
    web_env: dict = field(default_factory=dict)
    worker_env: dict = field(default_factory=dict)
    bench_slug: str = "worker-host"
    api: requests.Session | None = None
    username: str = ""
    password: str = ""
    timings: dict = field(default_factory=dict)

    # --- set-up -----------------------------------------------------------------------------------------------
    @property
    def server_addr(self) -> str:
        return self.veth.host_addr if self.veth else "127.0.0.1"

    def start(self) -> Hosts:
        (self.base / "web" / "var").mkdir(parents=True)
        (self.base / "worker" / "var").mkdir(parents=True)
        (self.base / "worker" / "tmp").mkdir(parents=True)
        if self.two_hosts:
            self.veth = VethPair().make()
        addr = self.server_addr
        hba = (f"host all postgres {addr}/32 trust", f"host all all {self.veth.subnet} scram-sha-256") \
            if self.veth else ()
        self.pg = PrivatePostgres(host=addr, hba=hba)
        self.pg.start()
        pw_db, pw_web, pw_worker = (secrets.token_hex(12) for _ in range(3))
        self.redis = PrivateRedis(host=addr, users=(WEB_ACL.format(password=pw_web),
                                                    WORKER_ACL.format(password=pw_worker)))
        self.redis.start()
        common = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DJANGO_", "SKYPLAN_",
                                                                            "CELERY_", "DATABASE_", "AWS_"))}
        common.update(PYTHONUNBUFFERED="1", SKYPLAN_HEARTBEAT_INTERVAL_S="1", SKYPLAN_SWEEP_INTERVAL_S="2",
                      SKYPLAN_LOST_TASK_AFTER_S="30", LOG_LEVEL="WARNING")
        if self.two_hosts:
            port = free_port()
            self.moto = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", addr, "-p", str(port)],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.s3_endpoint = f"http://{addr}:{port}"
            wait_for(lambda: _answers(self.s3_endpoint), 60, "moto's S3 server")
            import boto3

            boto3.client("s3", endpoint_url=self.s3_endpoint, region_name="us-east-1", aws_access_key_id="skyplan",
                         aws_secret_access_key="skyplan-secret").create_bucket(Bucket=self.bucket)
            common.update(SKYPLAN_STORAGE="s3", SKYPLAN_S3_BUCKET=self.bucket, SKYPLAN_S3_ENDPOINT_URL=self.s3_endpoint,
                          SKYPLAN_S3_REGION="us-east-1", AWS_ACCESS_KEY_ID="skyplan",
                          AWS_SECRET_ACCESS_KEY="skyplan-secret")
        db = "skyplan"
        self.web_env = dict(common, DATABASE_URL=self.pg.url(db), CELERY_BROKER_URL=self.redis.url(0, "skyplan-web", pw_web),
                            SKYPLAN_VAR_DIR=str(self.base / "web" / "var"), DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
                            DJANGO_ALLOWED_HOSTS="127.0.0.1", DJANGO_SECURE_SSL_REDIRECT="0")
        worker_var = self.base / ("worker" if self.two_hosts else "web") / "var"
        self.worker_env = dict(common, SKYPLAN_VAR_DIR=str(worker_var), TMPDIR=str(self.base / "worker" / "tmp"),
                               DATABASE_URL=f"postgres://skyplan_worker:{pw_db}@{addr}:{self.pg.port}/{db}",
                               CELERY_BROKER_URL=self.redis.url(0, "skyplan-worker", pw_worker))
        # one process for the set-up (each `manage.py` start costs seconds): database, schema, catalogue, the demo
        # account and its API token, and the platform the worker host benchmarks
        out = self._manage("shell", "-c", SETUP.format(slug=self.bench_slug)).stdout.strip().splitlines()[-1]
        self.username, self.password, token = out.split()
        self._psql(WORKER_ROLE_SQL.format(password=pw_db, db=db), db)
        self.start_web()
        self.api = requests.Session()
        self.api.headers["Authorization"] = f"Token {token}"
        self.start_worker()
        return self

    def _manage(self, *args: str) -> subprocess.CompletedProcess:
        started = time.monotonic()
        done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.web_env, capture_output=True,
                              text=True, timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
        self.timings[f"manage.py {args[0]}"] = elapsed(started)
        return done

    def _psql(self, sql: str, db: str) -> None:
        import psycopg

        with psycopg.connect(self.pg.url(db), autocommit=True) as conn:
            for statement in filter(str.strip, sql.split(";")):
                conn.execute(statement)

    def start_web(self) -> None:
        port = free_port()
        self.web_url = f"http://127.0.0.1:{port}"
        log = open(self.base / "web" / "gunicorn.log", "w")  # noqa: SIM115 - the process holds it until it ends
        self.web = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "apps.wsgi:application", "--bind", f"127.0.0.1:{port}",
             "--workers", "1", "--threads", "4", "--timeout", "600"],
            cwd=ROOT, env=self.web_env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        wait_for(lambda: self.web.poll() is not None or _answers(f"{self.web_url}/health/"), 60, "gunicorn")
        assert self.web.poll() is None, (self.base / "web" / "gunicorn.log").read_text()

    def start_worker(self) -> Worker:
        n = len(self.workers)
        name = f"host2-{n}"
        log_path = self.base / "worker" / f"worker-{n}.log"
        celery = [sys.executable, "-m", "celery", "-A", "apps", "worker", "-Q", f"celery,bench.{self.bench_slug}",
                  "--pool=prefork", "--concurrency=2", "--loglevel=INFO", "--without-mingle", "--without-gossip",
                  "-n", f"{name}@%h"]
        if self.two_hosts:
            # its own network (the veth), host name, PID space, and mounts: the web host's directory is hidden
            script = ('hostname skyplan-worker-host && mount -t tmpfs -o size=1m,mode=0700 tmpfs "$WEB_DIR" && '
                      'exec "$@"')
            cmd = ["ip", "netns", "exec", self.veth.ns, "unshare", "--uts", "--mount", "--pid", "--fork",
                   "--kill-child", "--mount-proc", "sh", "-c", script, "sh", *celery]
            env = dict(self.worker_env, WEB_DIR=str(self.base / "web"))
            node = f"{name}@skyplan-worker-host"
        else:
            cmd, env, node = celery, self.worker_env, f"{name}@{os.uname().nodename}"
        with open(log_path, "w") as log:
            proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)

        def ready():
            if proc.poll() is not None:
                raise RuntimeError(f"the worker exited: {log_path.read_text()[-3000:]}")
            return "ready." in log_path.read_text()

        wait_for(ready, 90, f"the worker on {'the second host' if self.two_hosts else 'this host'}")
        main = proc.pid
        if self.two_hosts:  # unshare forked the namespace's first process, which exec'd sh, then celery
            main = wait_for(lambda: (_children(proc.pid) or [None])[0], 10, "the worker's first process")
        worker = Worker(proc, log_path, main, node)
        self.workers.append(worker)
        return worker

    # --- HTTP ---------------------------------------------------------------------------------------------------
    def url(self, path: str) -> str:
        return path if path.startswith("http") else f"{self.web_url}{path}"

    def get(self, path: str, **kw) -> requests.Response:
        return self.api.get(self.url(path), timeout=120, **kw)

    def post(self, path: str, **kw) -> requests.Response:
        return self.api.post(self.url(path), timeout=600, **kw)

    def browser(self) -> Browser:
        b = Browser(self)
        b.login()
        return b

    def poll(self, path: str, timeout: float = 120) -> dict:
        def done():
            body = self.get(path).json()
            return body if body.get("finished") else None

        return wait_for(done, timeout, f"{path} to finish", interval=0.5)

    # --- tear-down ----------------------------------------------------------------------------------------------
    def stop_worker(self, worker: Worker) -> None:
        if worker.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):  # a warm shutdown of celery; its namespace ends with it
                os.kill(worker.main_pid, signal.SIGTERM)
            try:
                worker.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.proc.kill()
                worker.proc.wait(timeout=10)
        if not self.two_hosts:
            for pid in [worker.main_pid, *worker.pool_pids()]:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)

    def stop(self) -> None:
        for w in self.workers:
            with contextlib.suppress(Exception):
                self.stop_worker(w)
        for proc in (self.web, self.moto):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=10)
        for server in (self.redis, self.pg):
            if server is not None:
                with contextlib.suppress(Exception):
                    server.destroy()
        if self.veth is not None:
            self.veth.remove()
        shutil.rmtree(self.base, ignore_errors=True)


class Browser:
    """A logged-in browser session on the web host.  Over plain HTTP the session and CSRF cookies (Secure, as in
    production) are sent by hand, as a browser behind the TLS proxy would."""

    def __init__(self, hosts: Hosts):
        self.hosts = hosts
        self.session = requests.Session()
        self.cookies: dict[str, str] = {}

    def _send(self, method: str, path: str, **kw) -> requests.Response:
        headers = dict(kw.pop("headers", {}) or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        response = requests.request(method, self.hosts.url(path), headers=headers, allow_redirects=False,
                                    timeout=600, **kw)
        self.cookies.update({c.name: c.value for c in response.cookies})
        return response

    def get(self, path: str, **kw) -> requests.Response:
        return self._send("GET", path, **kw)

    def post(self, path: str, data: dict, **kw) -> requests.Response:
        if "csrftoken" not in self.cookies:
            self.get(path)
        return self._send("POST", path, data={**data, "csrfmiddlewaretoken": self.cookies["csrftoken"]}, **kw)

    def login(self) -> None:
        self.get("/accounts/login/")
        response = self.post("/accounts/login/", {"username": self.hosts.username, "password": self.hosts.password})
        assert response.status_code == 302, response.text[:500]


def _answers(url: str) -> bool:
    try:
        return requests.get(url, timeout=2).status_code < 500
    except requests.RequestException:
        return False


@contextlib.contextmanager
def running_hosts(two_hosts: bool):
    """Hosts started in a fresh directory, stopped and removed afterwards whatever happens."""
    hosts = Hosts(two_hosts=two_hosts, base=Path(tempfile.mkdtemp(prefix="skyplan-hosts-")))
    try:
        yield hosts.start()
    finally:
        hosts.stop()


def wait_gone(pids: list[int], timeout: float = 20) -> None:
    def gone():
        return not any(os.path.exists(f"/proc/{p}") and _state(p) != "Z" for p in pids)

    wait_for(gone, timeout, "the killed processes to be gone")


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(") ", 1)[1][0]
    except OSError:
        return ""


def elapsed(started: float) -> float:
    return round(time.monotonic() - started, 1)
