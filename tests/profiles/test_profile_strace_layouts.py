"""strace layouts met in practice, on real traces made by fixtures/profiles/produce.sh: the terminal layout
of ``strace -f`` (lines split by "Process N attached"), relative stamps (``-r``, refused with how to record),
and a trace whose last line is cut short (dropped with a warning; damage elsewhere still refused)."""

from __future__ import annotations

import pytest

from apps.profiles.analysis import analyse
from apps.profiles.parsers import ParseError, detect_format, parse

MiB = 2**20


def _file_row(parsed, suffix):
    return next(row for row in parsed.meta["top_files"] if row[0].endswith(suffix))


def test_the_terminal_layout_of_strace_f_is_followed_through_the_forks(samples):
    p = parse(samples / "forked_read.terminal.strace")
    assert p.meta["options"]["terminal_layout"] and p.meta["options"]["follow_forks"]
    assert p.meta["processes"] == 4  # the program and its three children
    # the same program as forked_read.strace, with 100 random preads: each child's 64 MiB in 256 KiB preads
    _, moved, seq_reads, rand_reads, *_ = _file_row(p, "fork.bin")
    assert (seq_reads, rand_reads) == (768, 100)
    assert moved == 3 * 64 * MiB + 100 * 8192


def test_relative_stamps_are_refused_saying_how_to_record(samples):
    with pytest.raises(ParseError, match=r"cat_relative.strace, line 1: .*strace -r.*record with strace -f -ttt -T -y"):
        detect_format(samples / "cat_relative.strace")
    with pytest.raises(ParseError, match=r"strace -r"):
        parse(samples / "cat_relative.strace", "strace")


def test_a_relative_trace_with_pids_is_refused_too(samples, tmp_path):
    lines = (samples / "cat_relative.strace").read_text().splitlines()
    path = tmp_path / "rel_f.strace"
    path.write_text("".join(f"4242 {ln.lstrip()}\n" for ln in lines))
    with pytest.raises(ParseError, match=r"rel_f.strace, line 1: .*strace -r"):
        parse(path, "strace")


def test_a_last_line_cut_short_is_dropped_with_a_warning(samples):
    raw = (samples / "dd_cut.strace").read_bytes()
    assert not raw.endswith(b"\n")
    p = parse(samples / "dd_cut.strace")
    assert p.meta["warnings"] == [
        "line 1032, the last, is cut short (strace stopped while writing it?) and was left out: "
        + repr(raw.decode("latin-1").rsplit("\n", 1)[1][:80])]
    assert p.meta["lines"] == 1031
    # dd read the file through fd 0 in 16 KiB reads; 466 complete ones before the cut
    _, moved, seq_reads, rand_reads, *_ = _file_row(p, "fork.bin")
    assert (moved, seq_reads, rand_reads) == (466 * 16384, 466, 0)
    assert analyse(p)["meta"]["warnings"] == p.meta["warnings"]


def test_damage_before_the_last_line_still_refuses_the_file(samples, tmp_path):
    lines = (samples / "dd_cut.strace").read_bytes().split(b"\n")
    lines[500] = lines[500][:40]
    path = tmp_path / "damaged.strace"
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(ParseError, match=r"damaged.strace, line 501: a strace line"):
        parse(path)


def test_the_profile_page_and_the_cli_show_the_warning(db, samples, logged_in):
    from io import StringIO

    from django.core.management import call_command

    from apps.profiles.models import Profile

    out = StringIO()
    call_command("import_profile", str(samples / "dd_cut.strace"), stdout=out)
    assert "warning: line 1032, the last, is cut short" in out.getvalue()
    profile = Profile.objects.get()
    html = logged_in.get(profile.get_absolute_url()).content.decode()
    assert 'id="profile-warnings"' in html and "line 1032, the last, is cut short" in html


@pytest.mark.parametrize("clock", ["10:00:00.{:06d}", "1795314676.{:06d}"])
def test_the_scan_finds_pids_of_every_width_and_both_stamp_styles(tmp_path, monkeypatch, clock):
    """strace pads a PID to five columns and a space (``1     10:00:...``, ``4194304 10:00:...``): the scan reads
    each line's PID and stamp as the line-by-line path does."""
    from apps.profiles.parsers import strace
    from apps.profiles.parsers.stracescan import scan

    pids = [1, 42, 4001, 65535, 123456, 4194304]
    lines = [f'{pid:<5d} {clock.format(i)} pread64(3, "x"..., 4096, {4096 * i}) = 4096 <0.000005>'
             for i, pid in enumerate(pids * 10)]
    path = tmp_path / "widths.strace"
    path.write_text("\n".join(lines) + "\n")
    sc = scan(path.read_bytes())
    assert sc.pid.tolist() == pids * 10
    assert sc.hot.all()
    fast = parse(path, "strace")
    monkeypatch.setattr(strace, "scan", lambda data, work=None: None)
    slow = parse(path, "strace")
    assert fast.meta == slow.meta and fast.aggregates == slow.aggregates
    assert fast.meta["processes"] == len(pids)


def test_a_run_of_spaces_no_stamp_follows_is_left_to_the_line_by_line_path(tmp_path):
    from apps.profiles.parsers.stracescan import scan

    line = '4001 10:00:00.000000 read(3, "x"..., 4096) = 4096 <0.000005>\n'
    assert scan((line * 3).encode()) is not None
    assert scan((line * 2 + line.replace("4001 ", "4001" + " " * 10)).encode()) is None
