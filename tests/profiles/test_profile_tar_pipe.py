"""A real two-process pipeline (``tar cf - | tar xf -`` under ``strace -f -tt -T``,
fixtures/profiles/tar_pipe.strace): most opens and closes are split in ``<unfinished ...>`` /
``<... resumed>`` pairs and short calls are padded to column 40.  The vectorised path reads those
pairs and padded calls without the line pattern, and must give exactly what the line-by-line path gives."""

from __future__ import annotations

import re

import pytest

from apps.profiles.analysis import analyse
from apps.profiles.parsers import parse


@pytest.fixture
def tar_trace(samples):
    return samples / "tar_pipe.strace"


def _line_by_line(path, monkeypatch):
    from apps.profiles.parsers import strace

    with monkeypatch.context() as m:
        m.setattr(strace, "scan", lambda data, work=None: None)
        return parse(path)


def test_it_gives_what_the_line_by_line_path_gives(tar_trace, monkeypatch):
    fast = parse(tar_trace)
    slow = _line_by_line(tar_trace, monkeypatch)
    assert fast.meta == slow.meta
    assert fast.aggregates == slow.aggregates


def test_it_reads_the_split_opens_and_closes_as_pairs(tar_trace):
    import numpy as np

    from apps.profiles.parsers.strace import _STARTED, _plain_calls, _quiet_calls
    from apps.profiles.parsers.stracescan import PAD, scan

    data = tar_trace.read_bytes()
    sc = scan(data)
    _quiet_calls(sc, data)
    other = np.flatnonzero(~sc.hot & ~sc.skip & ~sc.quiet)
    starts, ends = (sc.starts[other] - PAD).tolist(), (sc.ends[other] - PAD).tolist()
    plain = _plain_calls(sc, data.decode("latin-1"), other, starts, ends, [0.0] * len(other))
    # every second half of an open or close whose result is a plain number: "<... close resumed>) = 0 <0.000017>"
    expected = len(re.findall(rb"<\.\.\. (?:openat|close) resumed>.*\) += \d+ <\d+\.\d+>\n", data))
    assert expected > 500
    pairs = [v for v in plain.values() if v is not _STARTED and v[0] in ("openat", "close") and not v[5]]
    assert len(pairs) == expected
    assert sum(1 for v in plain.values() if v is _STARTED) >= expected


def test_what_it_reads_without_the_pattern_is_what_the_pattern_reads(tar_trace):
    import numpy as np

    from apps.profiles.parsers.strace import _LINE, _STARTED, _plain_calls, _quiet_calls
    from apps.profiles.parsers.stracescan import PAD, scan

    data = tar_trace.read_bytes()
    sc = scan(data)
    _quiet_calls(sc, data)
    other = np.flatnonzero(~sc.hot & ~sc.skip & ~sc.quiet)
    starts, ends = (sc.starts[other] - PAD).tolist(), (sc.ends[other] - PAD).tolist()
    # each call's "start time" given as its line's place among the other lines: a pair's names its first half
    plain = _plain_calls(sc, data.decode("latin-1"), other, starts, ends, list(range(len(other))))
    text = [data[a:b].decode("latin-1") for a, b in zip(starts, ends, strict=True)]
    calls = [(k, v) for k, v in plain.items() if v is not _STARTED]
    assert len(calls) > 1000
    for k, (name, args, ret, first, seconds, whole) in calls:
        m = _LINE.match(text[k])
        if whole:
            assert (name, args, ret, float(m.group(8))) == (m.group(4), m.group(5), m.group(6), seconds)
        else:
            start = _LINE.match(text[first])
            assert plain[first] is _STARTED
            assert (name, args) == (start.group(9), start.group(10) + m.group(12))
            assert (name, ret, float(m.group(15))) == (m.group(11), m.group(13), seconds)


def test_calls_padded_to_column_40_are_whole_calls_to_the_scan(tar_trace):
    from apps.profiles.parsers.stracescan import scan

    data = tar_trace.read_bytes()
    sc = scan(data)
    lines = data.split(b"\n")[:-1]
    padded = [i for i, ln in enumerate(lines) if re.search(rb"^\d+ +\S+ (?:close|fchown|fchmod)\(.*\)  += \d+ <", ln)]
    assert len(padded) > 100
    assert sc.whole[padded].all()


def test_the_same_file_parsed_twice_gives_the_same_analysis(tar_trace):
    assert analyse(parse(tar_trace)) == analyse(parse(tar_trace))


def test_edge_cases_of_opens_and_closes_agree_with_the_line_by_line_path(tmp_path, monkeypatch):
    """A quoted path holding ' = ' and ')', a close that failed, a call with '=' in its first half, a start
    left pending by a process strace lost, and an open and close on a descriptor both processes use."""
    lines = [
        '100   10:00:00.000000 openat(AT_FDCWD, "/d/a = b).bin", O_RDONLY) = 3 <0.000010>',
        '101   10:00:00.000001 openat(AT_FDCWD, "/d/c.bin", O_RDONLY <unfinished ...>',
        '100   10:00:00.000002 close(7)          = -1 EBADF (Bad file descriptor) <0.000002>',
        '101   10:00:00.000003 <... openat resumed>) = 3 <0.000020>',
        '102   10:00:00.000004 clone(child_stack=NULL, flags=SIGCHLD <unfinished ...>',
        '101   10:00:00.000005 close(3 <unfinished ...>',
        '102   10:00:00.000006 <... clone resumed>) = 103 <0.000050>',
        '101   10:00:00.000007 <... close resumed>) = 0 <0.000004>',
        '104   10:00:00.000008 close(9 <unfinished ...>',
        '104   10:00:00.000009 openat(AT_FDCWD, "/d/e.bin", O_RDONLY) = 9 <0.000010>',
        '104   10:00:00.000010 fcntl(9, F_GETFD <unfinished ...>',
        '104   10:00:00.000011 <... fcntl resumed>) = 0 <0.000003>',
        '104   10:00:00.000012 <... close resumed>) = 0 <0.000003>',
    ]
    for i in range(40):
        lines.append(f'100   10:00:01.{i:06d} read(3, "x"..., 4096) = 4096 <0.000005>')
        lines.append(f'104   10:00:01.{i:06d} pread64(9, "y"..., 4096, {4096 * (39 - i)}) = 4096 <0.000005>')
    lines += ['100   10:00:02.000000 close(3)          = 0 <0.000002>', '101   10:00:02.000001 +++ exited with 0 +++']
    path = tmp_path / "edges.strace"
    path.write_text("\n".join(lines) + "\n")
    fast = parse(path)
    slow = _line_by_line(path, monkeypatch)
    assert fast.meta == slow.meta
    assert fast.aggregates == slow.aggregates
    assert fast.meta["top_files"][0][0] == "/d/a = b).bin"
