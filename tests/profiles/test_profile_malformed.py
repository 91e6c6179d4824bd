"""Malformed files: the error names the file, the line and what was expected; nothing is saved."""

from __future__ import annotations

import pytest

from apps.profiles import services
from apps.profiles.models import Profile, ProfileImport
from apps.profiles.parsers import ParseError, parse


def _lines(samples, name, n=None):
    lines = (samples / name).read_text(encoding="latin-1").splitlines(keepends=True)
    return lines[:n] if n else lines


def _write(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text("".join(lines), encoding="latin-1")
    return path


def _import_fails(path, fmt="auto"):
    job = services.import_file(path, fmt=fmt)
    assert job.status == "failed"
    assert Profile.objects.count() == 0
    return job


@pytest.mark.django_db
def test_a_garbled_strace_line_is_named(samples, tmp_path):
    lines = _lines(samples, "seq_read.strace", 60)
    lines[39] = "this is not what strace writes\n"
    path = _write(tmp_path, "broken.strace", lines)
    with pytest.raises(ParseError) as err:
        parse(path, "strace")
    assert err.value.line == 40
    assert "broken.strace, line 40" in str(err.value) and "a strace line" in str(err.value)
    job = _import_fails(path)
    assert job.error_line == 40 and "line 40" in job.error


@pytest.mark.django_db
def test_a_read_with_a_non_numeric_descriptor_is_named(samples, tmp_path):
    lines = _lines(samples, "seq_read.strace")
    i = next(i for i, ln in enumerate(lines) if " read(3, " in ln and i > 500)
    lines[i] = lines[i].replace(" read(3, ", " read(three, ", 1)
    path = _write(tmp_path, "fd.strace", lines)
    job = _import_fails(path, "strace")
    assert job.error_line == i + 1


@pytest.mark.django_db
def test_a_bad_number_in_the_skyplan_csv_is_named(samples, tmp_path):
    lines = _lines(samples, "seq_read.skyplan.csv")
    fields = lines[4].split(",")
    fields[2] = "lots"
    lines[4] = ",".join(fields)
    path = _write(tmp_path, "bad.csv", lines)
    job = _import_fails(path)
    assert job.error_line == 5
    assert "a number in field 3 (cpu_system_pct), got 'lots'" in job.error


@pytest.mark.django_db
def test_a_short_csv_row_is_named(samples, tmp_path):
    lines = _lines(samples, "rand_read.skyplan.csv")
    lines[3] = ",".join(lines[3].split(",")[:5]) + "\n"
    job = _import_fails(_write(tmp_path, "short.csv", lines))
    assert job.error_line == 4 and "11 comma-separated fields" in job.error


@pytest.mark.django_db
def test_an_unknown_skyplan_column_is_named(samples, tmp_path):
    lines = _lines(samples, "rand_read.skyplan.csv")
    lines[1] = lines[1].replace("cpu_system_pct", "cpu_sys")
    job = _import_fails(_write(tmp_path, "header.csv", lines))
    assert job.error_line == 2 and "missing cpu_system_pct; unknown cpu_sys" in job.error


@pytest.mark.django_db
def test_a_truncated_pidstat_row_is_named(samples, tmp_path):
    lines = _lines(samples, "seq_read.pidstat.txt")
    i = max(i for i, ln in enumerate(lines) if "python3" in ln)
    lines[i] = " ".join(lines[i].split()[:8]) + "\n"
    job = _import_fails(_write(tmp_path, "cut.pidstat.txt", lines), "pidstat")
    assert job.error_line == i + 1 and "columns" in job.error


@pytest.mark.django_db
def test_a_wrong_chiles_header_is_named(samples, tmp_path):
    lines = _lines(samples, "seq_read.chiles.csv")
    lines[0] = lines[0].replace("IO WAIT", "IOWAIT")
    job = _import_fails(_write(tmp_path, "chiles.csv", lines), "chiles_csv")
    assert job.error_line == 1 and "the CHILES tracer header" in job.error


@pytest.mark.django_db
def test_truncated_fio_json_is_named(samples, tmp_path):
    lines = _lines(samples, "fio_local.json", 100)
    job = _import_fails(_write(tmp_path, "fio.json", lines))
    assert job.error_line is not None and "valid JSON" in job.error


@pytest.mark.django_db
def test_an_unknown_format_lists_the_known_ones(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("shopping list\neggs\n")
    job = _import_fails(path)
    assert "notes.txt, line 1: one of:" in job.error and "fio JSON" in job.error


@pytest.mark.django_db
def test_an_empty_or_binary_file_is_refused(tmp_path):
    (tmp_path / "empty.csv").write_bytes(b"")
    (tmp_path / "blob.bin").write_bytes(bytes(range(256)) * 16)
    assert "empty" in _import_fails(tmp_path / "empty.csv").error
    assert "binary" in _import_fails(tmp_path / "blob.bin").error


@pytest.mark.django_db
def test_a_failed_import_keeps_nothing_but_its_error(samples, tmp_path, settings):
    from pathlib import Path

    good = services.import_file(samples / "rand_read.skyplan.csv")
    lines = _lines(samples, "seq_read.strace", 30)
    lines[10] = "garbage\n"
    bad = services.import_file(_write(tmp_path, "bad.strace", lines))
    assert bad.status == "failed"
    assert Profile.objects.count() == 1 and Profile.objects.get() == good.profile
    assert not (Path(settings.MEDIA_ROOT) / bad.upload_path).exists()
    assert ProfileImport.objects.get(pk=bad.pk).profile is None
