"""Rates from the calls' own durations and the trace's span (not per-second bins), phases inside the trace,
and phase labels against the host's capacity rather than each series' own peak (real files)."""

from __future__ import annotations

import re

import pytest

from apps.profiles.analysis import Capacity, analyse
from apps.profiles.parsers import parse

_CALL = re.compile(r"^\d+ (\d\d):(\d\d):(\d\d\.\d+) (?:read|write|pread64)\((\d+), .* = (\d+) <(\d+\.\d+)>$")


def _by_hand(path, fd):
    """Bytes, summed durations and span of the complete reads on ``fd`` of a one-process trace, read from its lines."""
    moved = busy = 0.0
    stamps = []
    for line in path.read_text(encoding="latin-1").splitlines():
        hh_mm_ss = line.split(" ", 2)[1:2]
        if hh_mm_ss and hh_mm_ss[0].count(":") == 2:
            h, m, sec = hh_mm_ss[0].split(":")
            stamps.append(int(h) * 3600 + int(m) * 60 + float(sec))
        call = _CALL.match(line)
        if call and int(call.group(4)) == fd:
            moved += int(call.group(5))
            busy += float(call.group(6))
    return moved, busy, stamps[-1] - stamps[0]


def test_a_short_burst_is_rated_by_its_calls_not_by_a_one_second_bin(samples):
    # dd read the file in 16 KiB reads on fd 0 for 40 ms of the trace: its rate is its bytes over the time
    # inside the calls, far above bytes per second of wall time
    path = samples / "dd_cut.strace"
    moved, busy, span = _by_hand(path, 0)
    a = analyse(parse(path))
    s = a["summary"]
    assert s["bytes"]["seq_read"] == pytest.approx(moved, rel=0.05)
    assert s["rate_bytes_per_s"]["seq_read"] == pytest.approx(moved / busy, rel=0.05)
    low, high = s["io_range_bytes_per_s"]
    assert low == pytest.approx(moved / span, rel=0.05)
    assert high == pytest.approx(moved / busy, rel=0.05)
    assert high > 5 * moved  # one second's bin would give at most the bytes moved


@pytest.mark.parametrize("name", ["dd_cut.strace", "rand_read.strace", "seq_read.strace", "forked_read.strace",
                                  "rand_read.skyplan.csv", "cpu_write.pidstat.txt"])
def test_phases_end_within_the_file(samples, name):
    a = analyse(parse(samples / name))
    assert a["phases"][-1]["end_s"] <= a["summary"]["duration_s"] + 1e-9
    assert all(p["start_s"] < p["end_s"] for p in a["phases"])


def test_overlapping_calls_of_forked_readers_count_once_in_the_busy_time(samples):
    s = analyse(parse(samples / "forked_read.strace"))["summary"]
    summed = sum(s["busy_s"].values())
    assert s["busy_union_s"] < summed  # four processes read at once
    assert s["busy_union_s"] <= s["duration_s"]


#: this host's storage as fio measured it (fixtures/profiles/fio_local.json) and its two cores
def _this_host(samples):
    tier = analyse(parse(samples / "fio_local.json"))["summary"]["tier"]
    return Capacity(cores=2, read_bytes_per_s=tier["read_bw"], write_bytes_per_s=tier["write_bw"], iops=tier["iops"],
                    source="fio_local.json")


def test_labels_are_against_the_hosts_capacity_not_the_files_peak(samples):
    path = samples / "cpu_write.pidstat.txt"
    # against its own peak, the last second's 16 MB/s of writes is "I/O"; against a disk that writes
    # 1.8 GB/s it is about 1 % of the storage, and the process barely used a CPU either: idle
    relative = analyse(parse(path))
    absolute = analyse(parse(path), _this_host(samples))
    assert [p["bound"] for p in relative["phases"]] == ["cpu", "io"]
    assert [p["bound"] for p in absolute["phases"]] == ["cpu", "idle"]
    assert absolute["phases"][1]["io_share"] < 0.05
    assert "fio_local.json" in absolute["summary"]["phase_labels"]


def test_the_random_reader_is_io_bound_against_the_hosts_iops(samples):
    # 6,661 reads/s of 4 KiB (27 MB/s: 1 % of the bandwidth) is over half of the disk's 12,184 IOPS
    a = analyse(parse(samples / "rand_read.skyplan.csv"), _this_host(samples))
    assert [p["bound"] for p in a["phases"]] == ["idle", "io", "cpu"]
