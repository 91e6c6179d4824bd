"""What a worker host is: name, cores, memory, OS and its disks with mount types and free space."""

from __future__ import annotations

import os
import platform
import socket

__all__ = ["host_info", "free_bytes"]

#: pseudo file systems that are not storage a pipeline could use
PSEUDO_FS = {"proc", "sysfs", "devpts", "tmpfs", "devtmpfs", "cgroup", "cgroup2", "mqueue", "securityfs", "pstore",
             "debugfs", "tracefs", "configfs", "fusectl", "hugetlbfs", "bpf", "autofs", "binfmt_misc", "nsfs",
             "rpc_pipefs", "efivarfs", "ramfs", "squashfs", "overlay_lower"}


def _memory_bytes() -> float | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return float(line.split()[1]) * 1024.0
    except OSError:
        return None
    return None


def free_bytes(path: str) -> int:
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def _disks() -> list[dict]:
    out, seen = [], set()
    try:
        with open("/proc/mounts") as fh:
            lines = fh.readlines()
    except OSError:
        return out
    for line in lines:
        parts = line.split()
        if len(parts) < 3:
            continue
        device, mount, fstype = parts[0], parts[1].replace("\\040", " "), parts[2]
        if fstype in PSEUDO_FS or mount in seen or mount.startswith(("/proc", "/sys", "/dev/")):
            continue
        seen.add(mount)
        try:
            st = os.statvfs(mount)
        except OSError:
            continue
        out.append({"device": device, "mount": mount, "fstype": fstype,
                    "size_bytes": st.f_blocks * st.f_frsize, "free_bytes": st.f_bavail * st.f_frsize})
    return out


def host_info() -> dict:
    return {
        "hostname": socket.gethostname(),
        "cores": os.cpu_count() or 1,
        "usable_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1,
        "memory_bytes": _memory_bytes(),
        "os": f"{platform.system()} {platform.release()} ({platform.machine()})",
        "python": platform.python_version(),
        "disks": _disks(),
    }
