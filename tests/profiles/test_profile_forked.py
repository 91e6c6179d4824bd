"""Forked processes sharing one open file description are followed as the kernel does: each child's
positional reads are its own stream, so three children reading their own regions come out sequential
and the parent's random preads random (fixtures/profiles/forked_read.strace, programs/forked_read.py)."""

from __future__ import annotations

import pytest

from apps.profiles.analysis import analyse
from apps.profiles.parsers import parse

MiB = 2**20


@pytest.fixture
def forked(samples):
    return analyse(parse(samples / "forked_read.strace"))


def _data_file(analysis):
    return next(row for row in analysis["meta"]["top_files"] if row[0].endswith("fork.bin"))


def test_each_childs_region_is_sequential(forked):
    # 3 children × 64 MiB / 256 KiB = 768 preads, each continuing its child's previous one
    _, moved, seq_reads, rand_reads, *_ = _data_file(forked)
    assert seq_reads == 768
    assert moved == 3 * 64 * MiB + 1000 * 8192


def test_the_parents_preads_are_random(forked):
    _, _, _, rand_reads, *_ = _data_file(forked)
    assert rand_reads == 1000
    s = forked["summary"]
    # a few start-up preads of shared-library headers (pread64(3, ..., 784, 64)) come on top
    assert s["ops"]["rand_read"] == pytest.approx(1000, rel=0.05)
    assert s["random_op_bytes"] == pytest.approx(8192, rel=0.05)
    assert s["bytes"]["seq_read"] == pytest.approx(3 * 64 * MiB, rel=0.05)


def test_the_same_file_parsed_twice_gives_the_same_analysis(samples):
    first, second = analyse(parse(samples / "forked_read.strace")), analyse(parse(samples / "forked_read.strace"))
    assert first == second


def test_line_by_line_and_vectorised_paths_agree_on_forked_readers(samples, monkeypatch):
    from apps.profiles.parsers import strace

    fast = analyse(parse(samples / "forked_read.strace"))["summary"]
    monkeypatch.setattr(strace, "scan", lambda data, work=None: None)
    slow = analyse(parse(samples / "forked_read.strace"))["summary"]
    assert fast["ops"] == slow["ops"] and fast["bytes"] == slow["bytes"]


def test_split_calls_of_several_processes_are_joined_by_the_vectorised_path(samples):
    from apps.profiles.parsers.stracescan import scan

    data = (samples / "forked_read.strace").read_bytes()
    sc = scan(data)
    # each '<unfinished ...>' pread joined to its '<... pread64 resumed>' line of the same process
    unfinished = data.count(b"pread64(3,  <unfinished ...>")
    assert unfinished > 100
    assert int(sc.skip.sum()) == unfinished
    assert int((sc.pair_prev >= 0).sum()) > 0  # other split calls (mmap, wait4) joined for counting
