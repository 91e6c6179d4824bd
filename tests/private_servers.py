"""A private PostgreSQL cluster and a private Redis server for the tests that restart them.

Both start from the Debian binaries on this machine (``/usr/lib/postgresql/<version>/bin``, ``redis-server``) in a
temporary directory, on free loopback ports, so a test can stop and restart them without disturbing the shared
servers other test runs use.  PostgreSQL refuses to run as root, so under root (CI) its commands run as the
``postgres`` user.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

__all__ = ["PrivatePostgres", "PrivateRedis", "free_port", "servers_available"]


def _pg_bin() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name))
    return found[-1].parent if found else None


def servers_available() -> str:
    """Why the private servers cannot start here ("" when they can)."""
    if _pg_bin() is None:
        return "no PostgreSQL server binaries under /usr/lib/postgresql"
    if shutil.which("redis-server") is None:
        return "no redis-server on PATH"
    return ""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(ready, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ready():
            return
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not start within {timeout:.0f} s")


class PrivatePostgres:
    """A throw-away cluster: ``start()``, ``stop()``, ``url(dbname)``, ``destroy()``.  fsync is off (nothing here
    needs to survive the machine crashing; a server restart loses nothing committed)."""

    def __init__(self, host: str = "127.0.0.1", hba: tuple[str, ...] = ()):
        """``host``: the address it listens on and its URLs name (e.g. a veth address other hosts reach);
        ``hba``: pg_hba.conf lines put before the default ones (who may connect from there, and how)."""
        self.bin = _pg_bin()
        self.host = host
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="skyplan-pg-"))
        self.data, self.log = self.dir / "data", self.dir / "server.log"
        self.as_root = os.geteuid() == 0
        if self.as_root:
            pw = pwd.getpwnam("postgres")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8")
        if hba:
            conf = self.data / "pg_hba.conf"
            conf.write_text("\n".join(hba) + "\n" + conf.read_text())

    def _run(self, program: str, *args: str) -> None:
        cmd = [str(self.bin / program), *args]
        if self.as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)

    def url(self, dbname: str = "postgres") -> str:
        return f"postgres://postgres@{self.host}:{self.port}/{dbname}"

    def start(self) -> None:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses={self.host} -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "-t", "60", "start")

    def stop(self) -> None:
        """A normal ("fast") shutdown: open connections are cut, committed work is kept."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", "60", "stop")

    def destroy(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        except subprocess.CalledProcessError:
            pass  # already stopped
        shutil.rmtree(self.dir, ignore_errors=True)


class PrivateRedis:
    """A Redis that keeps nothing on disk, like the shared one: ``start()``, ``stop()``, ``url(db)``,
    ``destroy()``.  The process is this test's child, stopped by its own pid."""

    def __init__(self, host: str = "127.0.0.1", users: tuple[str, ...] = ()):
        """``host``: the address it listens on; ``users``: ACL rules, one user each ("name on >password ~* ...");
        with them the default user is switched off, so only those users get in."""
        self.host = host
        self.users = users
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="skyplan-redis-"))
        self.proc: subprocess.Popen | None = None

    def url(self, db: int = 0, user: str = "", password: str = "") -> str:
        auth = f"{user}:{password}@" if user else ""
        return f"redis://{auth}{self.host}:{self.port}/{db}"

    def _ping(self) -> bool:
        try:
            with socket.create_connection((self.host, self.port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                return s.recv(64).startswith((b"+PONG", b"-NOAUTH"))
        except OSError:
            return False

    def start(self) -> None:
        acl = []
        if self.users:
            (self.dir / "users.acl").write_text("user default off\n" + "".join(f"user {u}\n" for u in self.users))
            acl = ["--aclfile", str(self.dir / "users.acl")]
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", self.host, "--save", "", "--appendonly", "no",
             "--dir", str(self.dir), "--logfile", str(self.dir / "server.log"), *acl],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait(self._ping, 30, "redis-server")

    def stop(self) -> None:
        """Shut down without saving: everything queued in it is gone, as in a restart of the shared server."""
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)

    def destroy(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
        shutil.rmtree(self.dir, ignore_errors=True)
