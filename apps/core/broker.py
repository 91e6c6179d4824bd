"""Which Celery tasks still exist somewhere: queued in the broker, or held by a worker.

With Redis every task not yet acknowledged is either in a queue (a Redis list) or in the ``unacked`` hash (a worker
has it: reserved, waiting for its ETA, or running with late acknowledgement).  A Redis restart without persistence
empties both; a worker that lost its connection drops what it had reserved or scheduled and keeps only the tasks it
is running, which it reports when asked (``inspect query_task``).  With the file-system broker (embedded mode) queued
tasks are files, and a worker holds what it took.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field

from apps.celery import app

__all__ = ["HeldTasks", "tasks_in_broker", "tasks_on_workers"]

log = logging.getLogger(__name__)


@dataclass
class HeldTasks:
    """Task ids the workers that answered hold, and those workers' node names."""

    task_ids: set[str] = field(default_factory=set)
    nodes: set[str] = field(default_factory=set)


def _task_id(raw) -> str | None:
    """The task id of one kombu message as the broker stores it (JSON with ``headers.id``), or None."""
    try:
        message = json.loads(raw)
    except (TypeError, ValueError):
        return None
    if isinstance(message, list) and message:  # Redis's unacked hash: [message, exchange, routing key]
        message = message[0]
    if not isinstance(message, dict):
        return None
    headers = message.get("headers") or {}
    properties = message.get("properties") or {}
    return headers.get("id") or properties.get("correlation_id")


def tasks_in_broker() -> set[str] | None:
    """Ids of every task the broker holds (queued, or unacknowledged by a worker); None when it cannot tell (the
    broker is unreachable or is neither Redis nor the file system)."""
    url = app.conf.broker_url or ""
    try:
        if url.startswith(("redis://", "rediss://")):
            return _redis_tasks()
        if url.startswith("filesystem://"):
            return _filesystem_tasks(app.conf.broker_transport_options.get("data_folder_in", ""))
    except Exception:  # noqa: BLE001 - an unreachable broker means "cannot tell", never an error
        log.warning("cannot read the broker's queues", exc_info=True)
    return None


def _redis_tasks() -> set[str]:
    ids: set[str] = set()
    with app.connection_for_read() as conn:
        client = conn.default_channel.client
        for key in client.scan_iter(_type="list", count=1000):  # every queue, priority sub-queues included
            ids.update(_task_id(raw) for raw in client.lrange(key, 0, -1))
        unacked = conn.transport_options.get("unacked_key", "unacked")
        ids.update(_task_id(raw) for raw in client.hvals(unacked))
    ids.discard(None)
    return ids


def _filesystem_tasks(folder: str) -> set[str]:
    ids = set()
    for name in os.listdir(folder):
        try:
            with open(os.path.join(folder, name), "rb") as fh:
                ids.add(_task_id(fh.read()))
        except OSError:  # taken by a worker meanwhile
            continue
    ids.discard(None)
    return ids


def tasks_on_workers(task_ids, timeout: float = 1.0) -> HeldTasks | None:
    """Which of ``task_ids`` the workers answering within ``timeout`` hold (scheduled, reserved or running: one
    snapshot per worker), and which workers answered; None when the broker is unreachable."""
    held = HeldTasks()
    try:
        replies = app.control.inspect(timeout=timeout).query_task(*task_ids) or {}
    except Exception:  # noqa: BLE001 - as above
        log.warning("cannot ask the workers what they hold", exc_info=True)
        return None
    for node, found in replies.items():
        held.nodes.add(node)
        held.task_ids.update(found or {})
    return held
