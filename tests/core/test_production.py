"""Production settings and run: `check --deploy` is clean with the production environment, a missing secret stops
start-up with a clear message, and bin/serve-prod starts gunicorn that serves the health check and static files."""

from __future__ import annotations

import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SECRET = "k3y-for-the-production-tests-only-4f9c2b7e1d8a6053c9e1f7a2b4d6e8f0"


def production_env(**extra: str) -> dict[str, str]:
    """The environment of a production host (README: Production), without pytest's markers or DEBUG."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DJANGO_"))}
    env.update(
        DJANGO_SECRET_KEY=SECRET,
        DJANGO_ALLOWED_HOSTS="skyplan.example.org",
        DJANGO_TRUST_X_FORWARDED_PROTO="1",
        DJANGO_SECURE_SSL_REDIRECT="1",
        DJANGO_HSTS_PRELOAD="1",
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


def readme_production_env() -> dict[str, str]:
    """The production variables exactly as the README's Production section exports them (the secret filled in, the
    database and broker of this test run instead of the README's example hosts, which `check` does not reach)."""
    text = (ROOT / "README.md").read_text()
    block = text[text.index("export DJANGO_SECRET_KEY="):]
    block = block[:block.index("\nmake prod")].replace("\\\n", " ")
    variables = dict(word.split("=", 1) for word in block.removeprefix("export ").split())
    assert {"DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS", "DATABASE_URL"} <= set(variables)
    variables["DJANGO_SECRET_KEY"] = SECRET
    for name in ("DATABASE_URL", "CELERY_BROKER_URL"):
        variables.pop(name)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DJANGO_", "SKYPLAN_"))}
    return {**env, **variables, "PYTHONUNBUFFERED": "1"}


def test_the_readmes_production_variables_pass_the_deployment_checks_with_no_warning():
    """The attack found ``check --deploy`` with the README's variables still warning (security.W021)."""
    done = manage("check", "--deploy", "--fail-level", "WARNING", env=readme_production_env())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues (0 silenced)." in done.stdout


def manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)


def test_it_passes_the_deployment_checks_with_the_production_environment():
    done = manage("check", "--deploy", "--fail-level", "WARNING", env=production_env())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues (0 silenced)." in done.stdout


def test_it_fails_the_deployment_checks_when_debug_is_on():
    done = manage("check", "--deploy", "--fail-level", "WARNING", env=production_env(DJANGO_DEBUG="1"))
    assert done.returncode != 0
    assert "security.W018" in done.stderr  # DEBUG on in deployment


def test_the_web_server_refuses_to_start_without_a_secret_key():
    env = production_env()
    del env["DJANGO_SECRET_KEY"]
    done = subprocess.run([sys.executable, "-c", "import apps.wsgi"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode != 0
    assert "DJANGO_SECRET_KEY is not set" in done.stderr
    assert "DJANGO_DEBUG=1" in done.stderr  # and says how to run locally


def test_a_worker_needs_no_secret_key_and_gets_a_random_one_of_its_own():
    env = production_env()
    del env["DJANGO_SECRET_KEY"]
    code = ("from apps.celery import app; from django.conf import settings; import django; django.setup(); "
            "import hashlib; print(settings.DEBUG, len(settings.SECRET_KEY), settings.SECRET_KEY.startswith('dev-only'), "
            "hashlib.sha256(settings.SECRET_KEY.encode()).hexdigest()[:16])")
    first, second = (subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                                    timeout=120) for _ in range(2))
    assert first.returncode == 0, first.stderr
    assert first.stdout.split()[:3] == ["False", "67", "False"]
    assert first.stdout.split()[3] != second.stdout.split()[3]  # a key of its own in each process


def test_manage_py_without_a_secret_is_a_development_machine_with_debug_on():
    env = production_env(DJANGO_ALLOWED_HOSTS="127.0.0.1")
    del env["DJANGO_SECRET_KEY"]
    done = manage("shell", "-c", "from django.conf import settings; print(settings.DEBUG)", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "True"
    done = manage("shell", "-c", "from django.conf import settings; print(settings.DEBUG)", env=production_env())
    assert done.returncode == 0 and done.stdout.strip().splitlines()[-1] == "False"  # a production secret: DEBUG off


def test_it_sends_the_security_headers(client, settings):
    response = client.get("/accounts/login/")
    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp and "object-src 'none'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "same-origin"
    assert response.headers["X-Frame-Options"] == "DENY"
    assert settings.SESSION_COOKIE_SECURE and settings.CSRF_COOKIE_SECURE and not settings.DEBUG


def test_the_plotly_styles_file_matches_the_served_plotly_js():
    from apps.core.management.commands.plotly_css import generated_files

    for path, text in generated_files().items():
        assert path.read_text(encoding="utf-8") == text, f"{path} is stale: run `python manage.py plotly_css`"


def test_the_hashed_inline_styles_are_plotlys_text_markup_styles():
    from apps.core.management.commands.plotly_css import plotly_js_path
    from apps.settings import PLOTLY_TEXT_STYLES

    tag_styles = re.search(r'\{sup:"[^}]*em:"[^"]*"\}', plotly_js_path().read_text(encoding="utf-8")).group(0)
    assert sorted(set(re.findall(r':"([^"]+)"', tag_styles))) == sorted(PLOTLY_TEXT_STYLES)


# --- gunicorn ------------------------------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(port: int, path: str, headers: dict | None = None) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path, headers={"Host": "127.0.0.1", **(headers or {})})
    response = conn.getresponse()
    response.body = response.read()
    conn.close()
    return response


@pytest.fixture
def serve_prod(db, tmp_path):
    """Start bin/serve-prod (web only) on the test database and a free loopback port; yields a launcher."""
    from django.db import connection

    db = connection.settings_dict
    db_url = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    started = []

    def launch(**extra: str) -> int:
        port = _free_port()
        env = production_env(DATABASE_URL=db_url, DJANGO_ALLOWED_HOSTS="127.0.0.1", DJANGO_SECURE_SSL_REDIRECT="0",
                             SKYPLAN_BIND=f"127.0.0.1:{port}", SKYPLAN_WORKER="0", SKYPLAN_WEB_WORKERS="2",
                             SKYPLAN_STATIC_ROOT=str(tmp_path / "static"), **extra)
        log = tmp_path / f"serve-prod-{port}.log"
        proc = subprocess.Popen([str(ROOT / "bin" / "serve-prod")], cwd=ROOT, env=env, stdout=log.open("w"),
                                stderr=subprocess.STDOUT, start_new_session=True)
        started.append(proc)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            assert proc.poll() is None, log.read_text()
            try:
                if _get(port, "/health/").status == 200:
                    return port
            except OSError:
                pass
            time.sleep(0.3)
        raise AssertionError(f"gunicorn did not answer within 90 s:\n{log.read_text()}")

    launch.started = started
    yield launch
    for proc in started:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


def test_gunicorn_serves_the_health_check_pages_and_static_files(serve_prod):
    port = serve_prod()
    health = _get(port, "/health/")
    assert health.status == 200 and b'"database": true' in health.body
    css = _get(port, "/static/css/skyplan.css")
    assert css.status == 200 and css.getheader("Content-Type").startswith("text/css") and len(css.body) > 100
    assert _get(port, "/static/vendor/plotly/plotly.min.js").status == 200
    login = _get(port, "/accounts/login/")
    assert login.status == 200 and "script-src 'self'" in login.getheader("Content-Security-Policy")
    assert "Secure" in login.getheader("Set-Cookie")  # the CSRF cookie
    assert _get(port, "/").status == 302  # log in first
    # behind the TLS proxy: HSTS on HTTPS responses
    secure = _get(port, "/accounts/login/", {"X-Forwarded-Proto": "https"})
    assert secure.getheader("Strict-Transport-Security") == "max-age=31536000; includeSubDomains; preload"


def test_gunicorn_serves_collected_static_files_under_hashed_names_gzipped(serve_prod):
    port = serve_prod(SKYPLAN_STATIC_COLLECTED="1")
    login = _get(port, "/accounts/login/")
    css_url = re.search(rb'href="(/static/css/skyplan\.[0-9a-f]{12}\.css)"', login.body).group(1).decode()
    css = _get(port, css_url, {"Accept-Encoding": "gzip"})
    assert css.status == 200 and css.getheader("Content-Encoding") == "gzip"
    assert "immutable" in css.getheader("Cache-Control")


def test_serve_prod_stops_gunicorn_on_sigterm(serve_prod):
    port = serve_prod()
    script = serve_prod.started[-1]
    script.send_signal(signal.SIGTERM)  # to the script only: it stops gunicorn
    assert script.wait(timeout=30) == 0
    with pytest.raises(OSError):
        _get(port, "/health/")
