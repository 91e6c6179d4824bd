"""`make run` creates the configured PostgreSQL database on a fresh server."""

import os
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fresh_name():
    name = f"skyplan_fresh_{uuid.uuid4().hex[:8]}"
    yield name
    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')


def _ensure(url: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, DATABASE_URL=url)
    return subprocess.run([sys.executable, "manage.py", "ensure_database"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


def test_it_creates_a_missing_database_once(fresh_name):
    url = f"postgres://postgres@127.0.0.1:5432/{fresh_name}"
    first = _ensure(url)
    assert first.returncode == 0, first.stderr
    assert f"Created PostgreSQL database '{fresh_name}'" in first.stdout
    second = _ensure(url)
    assert second.returncode == 0 and second.stdout == ""


def test_it_names_the_server_it_cannot_reach():
    result = _ensure("postgres://postgres@127.0.0.1:1/skyplan")
    assert result.returncode != 0
    assert "DATABASE_URL: cannot reach PostgreSQL to create 'skyplan'" in result.stderr
