"""The real sequential reader is classified sequential, the real random reader random, and the phases
follow what the programs did (2 s asleep, then reading; the random reader then hashes for ~2 s)."""

from __future__ import annotations

from apps.profiles.analysis import analyse
from apps.profiles.parsers import parse


def _analysis(samples, name):
    return analyse(parse(samples / name))


def test_the_sequential_reader_is_sequential(samples):
    s = _analysis(samples, "seq_read.strace")["summary"]
    assert s["classification"] == "sequential"
    assert s["io_character"] == "sequential read dominated"
    # 10 passes × 1024 reads of 1 MiB; the first read of each pass after open is at offset 0
    assert s["bytes"]["seq_read"] >= 10 * 1024**3
    assert s["ops"]["rand_read"] < 0.001 * s["ops"]["seq_read"]


def test_the_random_reader_is_random(samples):
    s = _analysis(samples, "rand_read.strace")["summary"]
    assert s["classification"] == "random"
    assert s["io_character"] == "random read dominated"
    # the program's 8000 preads of 4 KiB at random offsets, plus 5 preads of shared-library headers
    # made by the dynamic loader at start-up (pread64(3</usr/lib/.../libc.so.6>, ..., 784, 64) and the like)
    assert s["ops"]["rand_read"] == 8005
    assert s["ops"]["seq_read"] < 100  # start-up: reading .pyc files and libraries
    assert 4000 < s["random_op_bytes"] <= 4096


def test_the_sequential_write_is_sequential(samples):
    s = _analysis(samples, "seq_write.strace")["summary"]
    assert s["io_character"] == "sequential write dominated"
    assert s["bytes"]["seq_write"] == 1024 * 1024**2


def test_phases_of_the_random_reader_from_its_samples(samples):
    phases = _analysis(samples, "rand_read.skyplan.csv")["phases"]
    assert [p["bound"] for p in phases] == ["idle", "io", "cpu"]
    assert phases[0]["end_s"] == 2.0


def test_phases_of_the_random_reader_from_its_strace(samples):
    phases = _analysis(samples, "rand_read.strace")["phases"]
    assert [p["bound"] for p in phases] == ["no_io", "random_io", "no_io"]


def test_phases_of_the_sequential_reader(samples):
    assert [p["bound"] for p in _analysis(samples, "seq_read.pidstat.txt")["phases"]] == ["idle", "io"]
    assert [p["bound"] for p in _analysis(samples, "seq_read.strace")["phases"]] == ["no_io", "seq_io"]


def test_every_random_read_has_a_size_and_all_but_the_first_an_inter_arrival_time(samples):
    a = _analysis(samples, "rand_read.strace")
    h, ops = a["histograms"], a["summary"]["ops"]["rand_read"]
    assert sum(h["iat_hist"]["rand_read"]) + h["iat_zero"]["rand_read"] == ops - 1
    sizes = dict(zip(h["size_bins"], h["size_hist"]["rand_read"][1:], strict=False))
    assert sizes[4096.0] >= 8000  # the bin [4 KiB, 8 KiB): the program's 4 KiB requests
