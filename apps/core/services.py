"""Core workflows: worker heartbeats and health checks."""

from __future__ import annotations

import os
import platform
import socket

from django.db import connection

from apps.core.models import WorkerHeartbeat

__all__ = ["record_heartbeat", "host_facts", "database_ok"]


def host_facts() -> dict:
    """Hostname, cores, memory and OS of the machine this process runs on."""
    memory = None
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    memory = float(line.split()[1]) * 1024.0
                    break
    except OSError:
        pass
    return {
        "hostname": socket.gethostname(),
        "cores": os.cpu_count(),
        "memory_bytes": memory,
        "os": f"{platform.system()} {platform.release()}",
    }


def record_heartbeat(queues: str = "") -> WorkerHeartbeat:
    facts = host_facts()
    beat, _ = WorkerHeartbeat.objects.update_or_create(
        hostname=facts["hostname"],
        pid=os.getpid(),
        defaults={"queues": queues, "cores": facts["cores"], "memory_bytes": facts["memory_bytes"], "os": facts["os"]},
    )
    return beat


def database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except Exception:  # noqa: BLE001 - a health check reports, never raises
        return False
