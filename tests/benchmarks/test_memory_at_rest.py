"""Memory at rest: the probes and the timed pipeline start from free memory the host has reported, on real files."""

import os

import pytest

from apps.benchmarks.probes.memory import at_rest, drain, drain_limit, free_page_reporting

MiB = 1024 * 1024


def _virtio_device(root, name: str, device: int, features: str) -> None:
    path = root / name
    path.mkdir()
    (path / "device").write_text(f"0x{device:04x}\n")
    (path / "features").write_text(features + "\n")


def test_it_reads_free_page_reporting_from_the_balloons_feature_bits(tmp_path):
    _virtio_device(tmp_path, "virtio0", 0x0002, "0" * 5 + "1" + "0" * 58)  # a disk with bit 5 set: not a balloon
    assert not free_page_reporting(str(tmp_path))
    _virtio_device(tmp_path, "virtio1", 0x0005, "0110010" + "0" * 57)  # a balloon: stats, deflate on OOM, reporting
    assert free_page_reporting(str(tmp_path))


def test_a_balloon_without_reporting_or_no_virtio_at_all_is_no_reporting(tmp_path):
    _virtio_device(tmp_path, "virtio0", 0x0005, "0110000" + "0" * 57)
    assert not free_page_reporting(str(tmp_path))
    assert not free_page_reporting(str(tmp_path / "missing"))


def test_the_drain_writes_new_pages_until_their_rate_is_steady_and_bounded(tmp_path):
    path = str(tmp_path / "drain")
    info = drain(path, max_bytes=512 * MiB, chunk_bytes=16 * MiB)
    assert os.path.getsize(path) == info["bytes"] <= 512 * MiB
    assert info["rewrite_bytes_per_s"] > 0
    if info["reached_steady"]:
        assert info["steady_bytes_per_s"] <= info["rewrite_bytes_per_s"] / 3


def test_the_drain_is_capped_by_the_memory_available():
    with open("/proc/meminfo") as fh:
        available = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("MemAvailable:"))
    assert 0 < drain_limit() <= available / 8


def test_at_rest_releases_what_it_holds_even_when_the_timed_work_fails(tmp_path):
    with pytest.raises(RuntimeError), at_rest(str(tmp_path), settle_s=0.0) as info:
        assert info["settled_s"] == 0.0
        raise RuntimeError("the timed work failed")
    assert not any(name.startswith(".at-rest") for name in os.listdir(tmp_path))
    assert info["free_page_reporting"] == free_page_reporting()
