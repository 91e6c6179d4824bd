"""Impossible values in a profile are refused naming the file and line, nothing saved, no database text shown.

The attack: strace durations ``<-5.0>``, ``<nan>``, ``<inf>``, a call longer than the trace and 2^64-byte sizes
imported (busy 1e11 s in a 3 s trace) or failing with PostgreSQL's own ``DataError`` text (SQL, upload path)."""

from __future__ import annotations

import pytest

from apps.profiles.models import Profile, ProfileImport
from apps.profiles.services import import_file

#: line 11361 of seq_read.strace: a 1 MiB read of the data file, 101 us
LINE = 11361
ORIGINAL = "read(3, "
TWO_64 = str(2**64)


def _trace(samples, tmp_path, old: str, new: str):
    lines = (samples / "seq_read.strace").read_text().splitlines(keepends=True)
    assert old in lines[LINE - 1]
    lines[LINE - 1] = lines[LINE - 1].replace(old, new)
    path = tmp_path / "odd.strace"
    path.write_text("".join(lines))
    return path


def _refused(path, user, *expected):
    job = import_file(path, user=user)
    assert job.status == "failed", job.error
    for text in expected:
        assert text in job.error, job.error
    for leak in ("INSERT", "SELECT", "DataError", "psycopg", "/media/", "profiles/uploads", str(path.parent)):
        assert leak not in job.error
    assert not Profile.objects.exists()
    return job


@pytest.mark.parametrize("duration", ["-5.0", "nan", "inf", "-inf", "1e11"])
def test_an_impossible_system_call_duration_is_refused_naming_file_and_line(samples, tmp_path, user, duration):
    path = _trace(samples, tmp_path, "<0.000101>", f"<{duration}>")
    job = _refused(path, user, f"odd.strace, line {LINE}: a system call duration", f"got <{duration}>")
    assert job.error_line == LINE


@pytest.mark.parametrize("old,new", [("= 1048576 <", f"= {TWO_64} <"), ("1048576) =", f"{TWO_64}) =")])
def test_a_size_past_ssize_max_is_refused_naming_file_and_line(samples, tmp_path, user, old, new):
    path = _trace(samples, tmp_path, old, new)
    _refused(path, user, f"odd.strace, line {LINE}: a size a system call can take or return", f"got {TWO_64}")


def test_a_long_call_within_the_trace_is_kept(samples, tmp_path, user):
    path = _trace(samples, tmp_path, "<0.000101>", "<2.5>")  # the trace spans ~7.8 s
    assert import_file(path, user=user).status == "succeeded"


def test_a_non_finite_number_in_any_format_names_the_file_not_the_database(samples, tmp_path, user):
    text = (samples / "fio_local.json").read_text()
    assert '"bw_bytes" : 2497074009,' in text
    path = tmp_path / "nan.json"
    path.write_text(text.replace('"bw_bytes" : 2497074009,', '"bw_bytes" : NaN,', 1))
    job = _refused(path, user, "nan.json: finite values")
    assert ProfileImport.objects.get().pk == job.pk
