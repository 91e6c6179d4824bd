"""pidstat in the layouts its manual lists, detected from the content, on real files of one process
(fixtures/profiles/cpu_write.*: programs/cpu_then_write.py, a thread hashing 4 s then a 32 MiB write and
fsync); what a layout lacks is "not recorded" in the analysis, the CLI and the page, never 0."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from apps.profiles.analysis import analyse
from apps.profiles.parsers import detect_format, parse

MiB = 2**20
LAYOUTS = ["cpu_write.pidstat.txt", "cpu_write.pidstat_u.txt", "cpu_write.pidstat_hu.txt", "cpu_write.pidstat_ht.txt"]


@pytest.mark.parametrize("name", LAYOUTS)
def test_each_layout_is_detected_as_pidstat(samples, name):
    assert detect_format(samples / name) == "pidstat"


@pytest.mark.parametrize("name", LAYOUTS)
def test_each_layout_gives_the_same_cpu_time(samples, name):
    # four pidstat processes watched the one program over the same five seconds
    reference = parse(samples / "cpu_write.pidstat_hu.txt").meta
    m = parse(samples / name).meta
    assert m["samples"] == 5
    assert m["cpu_user_s"] + m["cpu_system_s"] == pytest.approx(
        reference["cpu_user_s"] + reference["cpu_system_s"], rel=0.05)


@pytest.mark.parametrize("name", ["cpu_write.pidstat.txt", "cpu_write.pidstat_ht.txt"])
def test_the_32_mib_write_is_counted_once(samples, name):
    # without -h the -d report is its own section; with -t the process row, not its threads' rows too
    m = parse(samples / name).meta
    assert m["write_bytes"] == pytest.approx(32 * MiB, rel=0.05)
    assert m["peak_rss_bytes"] == 15000 * 1024  # the largest RSS column of the file (kB)


@pytest.mark.parametrize("name", ["cpu_write.pidstat_u.txt", "cpu_write.pidstat_hu.txt"])
def test_a_cpu_only_file_has_memory_and_io_not_recorded(samples, name):
    s = analyse(parse(samples / name))["summary"]
    assert s["peak_memory_bytes"] is None
    assert s["read_bytes"] is None and s["write_bytes"] is None and s["io_bytes"] is None
    assert s["io_range_bytes_per_s"] is None
    assert s["io_character"] == "I/O not recorded in this file"
    assert s["cpu_seconds"] > 0


def test_the_cli_and_the_page_say_not_recorded(db, samples, logged_in):
    from apps.profiles.models import Profile

    out = StringIO()
    call_command("import_profile", str(samples / "cpu_write.pidstat_u.txt"), stdout=out)
    text = out.getvalue()
    assert "peak RSS not recorded, read not recorded, written not recorded" in text
    assert "0.0 MB" not in text
    html = logged_in.get(Profile.objects.get().get_absolute_url()).content.decode()
    assert "<td>not recorded</td>" in html


@pytest.mark.parametrize("name", [*LAYOUTS, "seq_read.pidstat.txt", "rand_read.pidstat.txt"])
def test_the_vectorised_reader_agrees_with_the_line_by_line_one(samples, name):
    from apps.profiles.parsers import pidstatscan
    from apps.profiles.parsers import samples as sample_parsers

    fast = sample_parsers.parse_pidstat(samples / name)
    slow = sample_parsers._parse_pidstat_lines(samples / name)
    assert fast.meta == slow.meta
    assert fast.samples.equals(slow.samples)
    frame, _, _ = pidstatscan.read_chunk((samples / name).read_bytes(), None, sample_parsers._PIDSTAT)
    assert frame is not None and len(frame)  # read by the vectorised path, not handed back


def test_a_damaged_pidstat_row_is_named_by_its_line(samples, tmp_path):
    from apps.profiles.parsers import ParseError

    lines = (samples / "cpu_write.pidstat_hu.txt").read_text().splitlines()
    lines[4] = lines[4].replace("24.00", "24.0x", 1)
    path = tmp_path / "damaged.txt"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ParseError, match=r"damaged.txt, line 5: a finite number in column %usr"):
        parse(path)


def _respaced(text: str, how: str) -> str:
    """A pidstat text with its column padding changed as editors and other tools change it."""
    lines = text.splitlines()
    if how == "trailing spaces":
        return "\n".join(ln + "   " if ln[:1].isdigit() else ln for ln in lines) + "\n"
    if how == "tabs":
        return "\n".join(ln.replace("    ", "\t", 1) if ln[:1].isdigit() else ln for ln in lines) + "\n"
    if how == "wide padding":
        return "\n".join(ln.replace(" ", "      ") if ln[:1].isdigit() else ln for ln in lines) + "\n"
    if how == "blank and space-only lines":
        return "\n".join(f"{ln}\n   \n" for ln in lines) + "\n"
    if how == "user names (-U)":
        return "\n".join(ln.replace(" UID ", " USER", 1).replace("        0 ", "     root ", 1) for ln in lines) + "\n"
    raise ValueError(how)


@pytest.mark.parametrize("how", ["trailing spaces", "tabs", "wide padding", "blank and space-only lines",
                                 "user names (-U)"])
@pytest.mark.parametrize("name", [*LAYOUTS, "seq_read.pidstat.txt"])
def test_the_vectorised_reader_agrees_whatever_the_padding(samples, tmp_path, name, how):
    # the vectorised reader squeezes runs of spaces before pandas reads them: the same rows as line by line
    from apps.profiles.parsers import pidstatscan
    from apps.profiles.parsers import samples as sample_parsers

    path = tmp_path / name
    path.write_text(_respaced((samples / name).read_text(), how))
    fast = sample_parsers.parse_pidstat(path)
    slow = sample_parsers._parse_pidstat_lines(path)
    assert fast.meta == slow.meta
    assert fast.samples.equals(slow.samples)
    frame, _, _ = pidstatscan.read_chunk(path.read_bytes(), None, sample_parsers._PIDSTAT)
    assert frame is not None and len(frame)  # read by the vectorised path, not handed back
