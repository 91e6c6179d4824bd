"""Each format parses the real sample files; auto-detection picks the right parser."""

from __future__ import annotations

import pytest

from apps.profiles.parsers import detect_format, parse

FILES = {
    "seq_read.strace": "strace",
    "rand_read.strace": "strace",
    "seq_write.strace": "strace",
    "seq_read.pidstat.txt": "pidstat",
    "rand_read.pidstat.txt": "pidstat",
    "seq_read.skyplan.csv": "skyplan_csv",
    "rand_read.skyplan.csv": "skyplan_csv",
    "seq_read.chiles.csv": "chiles_csv",
    "rand_read.chiles.csv": "chiles_csv",
    "fio_local.json": "fio",
}


@pytest.mark.parametrize("name,fmt", FILES.items())
def test_it_detects_each_sample_format(samples, name, fmt):
    assert detect_format(samples / name) == fmt


def test_it_reads_the_strace_timing_of_the_sequential_reader(samples):
    p = parse(samples / "seq_read.strace")
    # first line 02:31:08.588807, last line 02:31:16.413357 (see the file)
    assert p.meta["duration_s"] == pytest.approx(16.413357 - 8.588807, abs=1e-6)
    assert p.meta["options"] == {"follow_forks": True, "absolute_time": False, "durations": True,
                                 "terminal_layout": False}
    # 10 passes over a 1 GiB file in 1 MiB reads
    # path, bytes, then requests per class (sequential/random read, sequential/random write)
    assert p.meta["top_files"][0] == ["var/profiles-work/data.bin", 10 * 1024**3, 10 * 1024, 0, 0, 0]


def test_it_reads_epoch_stamps_and_fd_paths_of_the_random_reader(samples):
    p = parse(samples / "rand_read.strace")
    assert p.meta["options"]["absolute_time"] is True
    assert p.meta["start"] == pytest.approx(1795314676.754436)
    path, nbytes, seq_r, rand_r, seq_w, rand_w = p.meta["top_files"][0]
    assert (path, nbytes, seq_r + rand_r, seq_w + rand_w) == ("/work/main/var/profiles-work/data.bin", 8000 * 4096, 8000, 0)
    assert rand_r >= 7990  # a random 4 KiB block right after the previous one is (rarely) sequential


def test_it_parses_pidstat_by_header_names(samples):
    p = parse(samples / "seq_read.pidstat.txt")
    f = p.samples
    assert p.meta["host"] == "vm"
    # first data line: "02:31:09 0 16043 3.00 3.00 0.00 5.00 6.00 1 1352.00 0.00 16564 13348 ..." (kB in pidstat)
    assert (f["cpu_user_pct"].iloc[0], f["cpu_system_pct"].iloc[0], f["io_wait_pct"].iloc[0]) == (3.0, 3.0, 5.0)
    assert (f["vm_bytes"].iloc[0], f["rss_bytes"].iloc[0]) == (16564 * 1024, 13348 * 1024)
    assert f["read_bytes_per_s"].iloc[0] == 28 * 1024
    assert p.meta["read_bytes"] > 8 * 1024**3  # the 10 GiB read, minus the last partial second
    assert f["cpu_system_pct"].max() > 10


def test_skyplan_and_chiles_csv_of_the_same_samples_agree(samples):
    own = parse(samples / "rand_read.skyplan.csv")
    chiles = parse(samples / "rand_read.chiles.csv")
    assert own.meta["samples"] == chiles.meta["samples"]
    assert own.meta["cpu_user_s"] + own.meta["cpu_system_s"] == pytest.approx(
        chiles.meta["cpu_user_s"] + chiles.meta["cpu_system_s"], rel=0.01)
    assert own.meta["peak_rss_bytes"] == chiles.meta["peak_rss_bytes"]


def test_it_reads_each_fio_job(samples):
    p = parse(samples / "fio_local.json")
    jobs = p.jobs.set_index("job")
    assert list(jobs.index) == ["seq-read", "seq-write", "rand-read", "rand-write"]
    assert jobs.loc["rand-read", "random"] and not jobs.loc["seq-read", "random"]
    assert jobs.loc["seq-read", "bs_bytes"] == 1024**2
    assert jobs.loc["rand-read", "read_iops"] == pytest.approx(12183.763247)


def test_the_format_can_be_forced(samples, tmp_path):
    from apps.profiles.parsers import ParseError

    with pytest.raises(ParseError, match="line 1"):
        parse(samples / "seq_read.strace", "skyplan_csv")


def test_long_sample_files_are_merged_but_totals_stay_exact(samples, monkeypatch):
    from apps.profiles.parsers import samples as sample_parser

    full = parse(samples / "seq_read.skyplan.csv")
    monkeypatch.setattr(sample_parser, "MAX_ROWS", 1)
    small = sample_parser.parse_skyplan_csv(samples / "seq_read.skyplan.csv")
    assert len(small.samples) < len(full.samples)
    for key in ("cpu_user_s", "cpu_system_s", "read_bytes", "peak_rss_bytes", "duration_s"):
        assert small.meta[key] == pytest.approx(full.meta[key])
    # merged rows average rates by interval: the bytes they stand for are unchanged
    assert (small.samples["read_bytes_per_s"] * small.samples["dt_s"]).sum() == pytest.approx(full.meta["read_bytes"])


@pytest.mark.parametrize("name", ["seq_read.strace", "seq_write.strace", "rand_read.strace"])
def test_the_vectorised_strace_path_agrees_with_the_line_by_line_one(samples, name, monkeypatch):
    from apps.profiles.parsers import strace

    fast = parse(samples / name)
    monkeypatch.setattr(strace, "scan", lambda data, work=None: None)  # every chunk line by line
    slow = parse(samples / name)
    assert fast.meta == slow.meta
    assert fast.aggregates == slow.aggregates


def test_the_vectorised_strace_path_takes_the_plain_reads(samples):
    from apps.profiles.parsers.stracescan import HOT_NAMES, scan

    sc = scan((samples / "seq_read.strace").read_bytes())
    # 10 passes over 1 GiB in 1 MiB reads, plus the interpreter's own reads at start-up
    assert (sc.name[sc.hot] == HOT_NAMES.index("read")).sum() >= 10 * 1024
    assert sc.ret[sc.hot].max() == 1024**2


def test_a_strace_mixing_clock_styles_is_named(tmp_path):
    from apps.profiles.parsers import ParseError

    path = tmp_path / "mixed.strace"
    path.write_text('16043 02:31:08.588807 read(3, "x", 1) = 1 <0.000359>\n'
                    "16043 1795314676.754436 close(3) = 0 <0.000010>\n")
    with pytest.raises(ParseError, match=r"mixed.strace, line 2: time stamps all in one style, HH:MM:SS.micro"):
        parse(path, "strace")


def test_a_sample_value_that_is_not_finite_is_named(samples, tmp_path):
    from apps.profiles.parsers import ParseError

    lines = (samples / "rand_read.skyplan.csv").read_text().splitlines(keepends=True)
    fields = lines[3].split(",")
    fields[3] = "1e400"
    lines[3] = ",".join(fields)
    path = tmp_path / "inf.csv"
    path.write_text("".join(lines))
    with pytest.raises(ParseError, match=r"inf.csv, line 4: a finite number in field 4 \(rss_bytes\), got '1e400'"):
        parse(path)


LONG_A = "/data/" + "a" * 40 + "/x.bin"
LONG_B = "/data/" + "a" * 20 + "b" + "a" * 19 + "/x.bin"  # same length, first and last 8 bytes: differs inside


@pytest.mark.parametrize("paths", [
    [LONG_A, LONG_A, "/tmp/f", "/tmp/f", "pipe:[1]", LONG_A],  # told apart by the scan's fingerprint
    [LONG_A, LONG_A, LONG_B, LONG_B, "/tmp/f", LONG_A],  # not: the chunk goes line by line
])
def test_descriptor_paths_that_change_without_a_close_are_followed_alike_by_both_paths(tmp_path, monkeypatch, paths):
    from apps.profiles.parsers import strace
    from apps.profiles.parsers.stracescan import scan

    lines = [f'16138 1795314676.{754436 + i:06d} pread64(3<{p}>, "..."..., 4096, {4096 * i}) = 4096 <0.000042>'
             for i, p in enumerate(paths * 3)]
    path = tmp_path / "paths.strace"
    path.write_text("\n".join(lines) + "\n")
    assert scan(path.read_bytes()).hot.all()
    fast = parse(path, "strace")
    monkeypatch.setattr(strace, "scan", lambda data, work=None: None)
    slow = parse(path, "strace")
    assert fast.meta == slow.meta and fast.aggregates == slow.aggregates
    assert {row[0] for row in fast.meta["top_files"]} == {p for p in paths if not p.startswith("pipe:")}
