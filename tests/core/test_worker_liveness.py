"""A worker is alive while it beats (its heartbeat row is recent) or answers a ping: a worker reconnecting to a
restarted Redis cannot answer pings but still beats, so the worker-loss sweep must not call it lost."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.celery import app
from apps.core.models import WorkerHeartbeat
from apps.core.services import node_alive, record_heartbeat

pytestmark = pytest.mark.django_db


@pytest.fixture
def pings(monkeypatch):
    """Pings answered by the nodes in the returned set (and counted)."""
    answering: set[str] = set()
    asked: list[str] = []

    def ping(destination, timeout):
        asked.extend(destination)
        return [{node: {"ok": "pong"}} for node in destination if node in answering]

    monkeypatch.setattr(app.control, "ping", ping)
    return answering, asked


def test_a_worker_that_beat_recently_is_alive_without_being_pinged(pings):
    record_heartbeat(queues="celery", node="w1@host")

    assert node_alive("w1@host")
    assert pings[1] == []


def test_a_worker_that_stopped_beating_and_does_not_answer_is_lost(pings, settings):
    record_heartbeat(queues="celery", node="w1@host")
    WorkerHeartbeat.objects.update(seen_at=timezone.now() - timedelta(seconds=3 * settings.SKYPLAN_HEARTBEAT_INTERVAL_S + 1))

    assert not node_alive("w1@host")
    assert pings[1] == ["w1@host", "w1@host"]  # asked twice


def test_a_worker_that_answers_a_ping_is_alive_without_a_heartbeat(pings):
    pings[0].add("w2@host")

    assert node_alive("w2@host")
