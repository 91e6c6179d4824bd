"""Headers of absurd width are refused quickly (linear time, bounded columns), naming the file and line.

The attack: the Skyplan CSV header check counted each name with ``names.count(c)`` (quadratic): a header of 40,000
columns took 55 s, one of a million ~9 h, holding a worker slot for its whole time limit."""

from __future__ import annotations

import time

import pytest

from apps.profiles.parsers import ParseError, parse
from apps.profiles.parsers.samples import MAX_HEADER_CHARS, MAX_PIDSTAT_COLUMNS, SKYPLAN_COLUMNS, SKYPLAN_MARKER


def _refused_quickly(path, fmt, *expected) -> ParseError:
    started = time.process_time()
    with pytest.raises(ParseError) as err:
        parse(path, fmt)
    assert time.process_time() - started < 2.0  # CPU seconds; the quadratic check took hours
    message = str(err.value)
    assert len(message) < 1000, "the message does not list a million columns"
    for text in expected:
        assert text in message, message
    return err.value


@pytest.mark.parametrize("columns", [40_000, 1_000_000])
def test_a_header_only_file_of_very_many_columns_is_refused_quickly(tmp_path, columns):
    path = tmp_path / "wide.csv"
    path.write_text(SKYPLAN_MARKER + "\n" + ",".join(f"c{i}" for i in range(columns)) + "\n")
    err = _refused_quickly(path, "skyplan_csv", f"wide.csv, line 2: a header line of at most {MAX_HEADER_CHARS}")
    assert err.line == 2


def test_a_header_of_more_columns_than_skyplan_has_is_refused_naming_the_count(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text(",".join(["a"] * 30_000) + "\n")  # 60 kB: within the line bound, past the column bound
    _refused_quickly(path, "skyplan_csv", f"wide.csv, line 1: a header naming at most the {len(SKYPLAN_COLUMNS)} "
                                          "Skyplan columns", "it names 30000")


def test_a_repeated_column_is_still_named(tmp_path):
    path = tmp_path / "twice.csv"
    path.write_text("timestamp,cpu_user_pct,cpu_system_pct,rss_bytes,read_bytes,write_bytes,rss_bytes\n1,2,3,4,5,6,7\n")
    _refused_quickly(path, "skyplan_csv", "twice.csv, line 1:", "repeated rss_bytes")


def test_a_pidstat_header_of_very_many_columns_is_refused_quickly(tmp_path):
    path = tmp_path / "wide.pidstat"
    path.write_text("# Time UID PID " + " ".join(f"c{i}" for i in range(50_000)) + "\n")
    _refused_quickly(path, "pidstat", f"wide.pidstat, line 1: a pidstat header of at most {MAX_PIDSTAT_COLUMNS}")
