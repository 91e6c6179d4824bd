"""Fuzzing the profile parsers (issue #9): random bytes and mutated real sample files.

Whatever the input, parsing, format detection and analysis either succeed or raise the parsers'
own ParseError naming the file (and, where there is one, the line) and what was expected; an
import through the real service that fails saves nothing but its error.  Example counts are
modest so the file runs in well under a minute.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from worker_processes import wait_for

from apps.profiles.analysis import analyse
from apps.profiles.parsers import FORMATS, ParseError, detect_format, parse

SAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "profiles"
NAME = "fuzzed.profile"
#: files the fuzzed import accepted in this process, for the real-worker sample at the end of the module
ACCEPTED: list[bytes] = []
#: how many of them the real worker imports (the suite's time: about a second each)
WORKER_SAMPLE = 3


def _lines(name: str, lines: int, skip: int = 0) -> bytes:
    with open(SAMPLES / name, "rb") as f:
        for _ in range(skip):
            f.readline()
        return b"".join(f.readline() for _ in range(lines))


#: the real sample files (strace ones cut to 120 lines, to keep each example fast)
SEEDS = {
    "seq_read.skyplan.csv": (SAMPLES / "seq_read.skyplan.csv").read_bytes(),
    "rand_read.chiles.csv": (SAMPLES / "rand_read.chiles.csv").read_bytes(),
    "seq_read.pidstat.txt": (SAMPLES / "seq_read.pidstat.txt").read_bytes(),
    "fio_local.json": (SAMPLES / "fio_local.json").read_bytes(),
    "seq_read.strace": _lines("seq_read.strace", 120),
    "rand_read.strace": _lines("rand_read.strace", 120),
    "seq_write.strace": _lines("seq_write.strace", 120),
    # the middles, where the plain reads are (the vectorised path): 1 MiB reads, and -y preads
    "seq_read.strace[reads]": _lines("seq_read.strace", 120, skip=1200),
    "rand_read.strace[preads]": _lines("rand_read.strace", 120, skip=4000),
}


#: multiplies every example count (e.g. SKYPLAN_FUZZ_SCALE=20 for a long, randomised hunt); 1 keeps the file
#: under a minute and derandomised, so the suite always runs the same examples
SCALE = max(1, int(os.environ.get("SKYPLAN_FUZZ_SCALE", "1")))


def fuzz(examples: int) -> settings:
    """Hypothesis settings: no deadline (the machine is shared), no example database in the working tree."""
    return settings(deadline=None, max_examples=examples * SCALE, database=None, derandomize=SCALE == 1,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _check_error(err: ParseError) -> None:
    """The error is the parsers' own, and clear: file name, optional line, what was expected."""
    assert err.filename == NAME
    assert err.line is None or (isinstance(err.line, int) and err.line >= 1)
    assert err.expected and len(err.expected.strip()) > 5
    assert str(err).startswith(f"{NAME}, line {err.line}: " if err.line else f"{NAME}: ")


def _parse_all_ways(data: bytes) -> None:
    """Detection, every parser and the analysis of what parses: only ParseError may escape."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / NAME
        path.write_bytes(data)
        for fmt in ("auto", *FORMATS):
            try:
                parsed = parse(path, fmt, filename=NAME)
            except ParseError as err:
                _check_error(err)
                continue
            analysis = analyse(parsed)
            assert analysis["kind"] == parsed.kind
        try:
            assert detect_format(path, NAME) in FORMATS
        except ParseError as err:
            _check_error(err)


# --- mutations of real files ----------------------------------------------------------------------

HUGE = [b"1e400", b"-1e400", b"99999999999999999999999999", b"-1", b"nan", b"inf", b"-inf", b"0", b"1e-400",
        b"18446744073709551616", b"-0", b"1.7976931348623157e308"]
BAD_BYTES = [b"\xff\xfe", b"\xef\xbb\xbf", b"\x00", b"\xc3\x28", b"\x85", b"\r", b"\x1e", b"\t", b"\xe2\x80\xa8"]


@st.composite
def mutated(draw) -> bytes:
    """A real sample file with a few edits: cut lines, flipped bytes, swapped columns, bad bytes, huge numbers."""
    name = draw(st.sampled_from(sorted(SEEDS)))
    lines = SEEDS[name].split(b"\n")
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["truncate", "flip", "swap", "bad", "huge", "drop", "dup", "cut_file", "empty"]))
        line = lines[i]
        if kind == "truncate" and line:
            lines[i] = line[:draw(st.integers(0, len(line) - 1))]
        elif kind == "flip" and line:
            j = draw(st.integers(0, len(line) - 1))
            lines[i] = line[:j] + bytes([draw(st.integers(0, 255))]) + line[j + 1:]
        elif kind == "swap":
            sep = b"," if b"," in line else b" "
            fields = line.split(sep)
            if len(fields) > 1:
                a, b = draw(st.integers(0, len(fields) - 1)), draw(st.integers(0, len(fields) - 1))
                fields[a], fields[b] = fields[b], fields[a]
                lines[i] = sep.join(fields)
        elif kind == "bad":
            j = draw(st.integers(0, len(line)))
            lines[i] = line[:j] + draw(st.sampled_from(BAD_BYTES)) + line[j:]
        elif kind == "huge":
            numbers = list(re.finditer(rb"-?\d+(?:\.\d+)?", line))
            if numbers:
                m = numbers[draw(st.integers(0, len(numbers) - 1))]
                lines[i] = line[:m.start()] + draw(st.sampled_from(HUGE)) + line[m.end():]
        elif kind == "drop":
            del lines[i]
        elif kind == "dup":
            lines.insert(i, line)
        elif kind == "cut_file":
            lines = lines[:i]
        elif kind == "empty":
            lines = []
    return b"\n".join(lines)


@fuzz(400)
@given(mutated())
def test_mutated_sample_files_parse_or_fail_clearly(data):
    _parse_all_ways(data)


@fuzz(200)
@given(st.binary(max_size=3000))
def test_random_bytes_parse_or_fail_clearly(data):
    _parse_all_ways(data)


@fuzz(300)
@given(st.lists(st.sampled_from([
    b"# skyplan-profile v1", b"timestamp,cpu_user_pct,cpu_system_pct,rss_bytes,read_bytes,write_bytes",
    b"Time stamp,Total CPU %,Kernel CPU %,VM,RSS,IOPS,Bytes/S,IO WAIT", b"Linux 6.1 (vm) \t11/22/26 \t_x86_64_\t(2 CPU)",
    b"# Time UID PID %usr %system %guest %wait %CPU CPU minflt/s majflt/s VSZ RSS %MEM kB_rd/s kB_wr/s kB_ccwr/s "
    b"iodelay Command", b"02:31:09 0 16043 3.00 3.00 0.00 5.00 6.00 1 1352.00 0.00 16564 13348 0.05 28.00 0.00 0.00 0 x",
    b"1795314669.739,1.00,0.00,13668352,0,0", b"1795314669.739,1.00,0.00,13668352,0,0,1", b"1,2,3,4,5,6,7,8",
    b"2026-11-22 02:31:09,1,1,1,1,1,1,1", b"1,1e400,0,0,0,0", b"1,nan,0,0,0,0", b"0,0,0,0,0,0", b"-5,0,0,0,0,0",
    b'16043 02:31:08.588807 read(3, "x", 1048576) = 1048576 <0.000359>',
    b'16043 02:31:08.588807 pread64(3, "x", 4096, 99999999999999999999) = 4096 <0.000359>',
    b'16043 02:31:08.588807 openat(AT_FDCWD, "f", O_RDONLY) = 3 <0.000020>', b"16043 02:31:08.588807 close(3) = 0",
    b"16043 23:59:59.999999 lseek(3, 0, SEEK_SET) = 0 <0.000010>", b"16043 00:00:00.000001 dup2(3, 4) = 4",
    b"16043 02:31:08.588807 read(3, <unfinished ...>", b"16043 02:31:08.588808 <... read resumed>\"\", 1) = 0",
    b"16043 1795314676.754436 clone(child_stack=NULL) = 16044", b"16044 02:31:08.588807 +++ exited with 0 +++",
    b'{"fio version": "fio-3.33", "jobs": []}', b'{"fio version": "fio-3.33", "jobs": [{"jobname": "x"}]}', b"",
]), max_size=12))
def test_recombined_lines_of_every_format_parse_or_fail_clearly(lines):
    _parse_all_ways(b"\n".join(lines))


# --- through the import service, on PostgreSQL: a failed import saves nothing ---------------------------

@pytest.mark.django_db
@fuzz(60)
@given(st.one_of(mutated(), st.binary(max_size=500)))
def test_a_failed_import_saves_nothing(data):
    from apps.profiles import services
    from apps.profiles.models import Profile, ProfileImport

    before = Profile.objects.count()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / NAME
        path.write_bytes(data)
        job = services.import_file(path)
    assert job.status in ("succeeded", "failed")
    if job.status == "failed":
        assert Profile.objects.count() == before
        assert job.profile is None and ProfileImport.objects.get(pk=job.pk).profile_id is None
        assert job.error.startswith(NAME) and "could not be analysed" not in job.error  # a parser bug, not bad input
    else:
        assert Profile.objects.count() == before + 1
        assert all(v is None or math.isfinite(v) for v in (job.profile.duration_s,))
        ACCEPTED.append(data)


def test_a_file_of_only_a_header_is_named(tmp_path):
    path = tmp_path / NAME
    path.write_bytes(b"# skyplan-profile v1\ntimestamp,cpu_user_pct,cpu_system_pct,rss_bytes,read_bytes,write_bytes\n")
    with pytest.raises(ParseError, match="at least one sample row"):
        parse(path, filename=NAME)


# --- a sample of what the fuzz accepted, dispatched for real: uploaded, imported by a real worker process -------

@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_a_sample_of_what_the_fuzz_accepted_imports_on_a_real_worker(celery_worker_process, settings, client, user,
                                                                      tmp_path):
    """The fuzz above imports in this process; here a sample of the files it accepted goes through the upload page
    and the real dispatch to a worker process, which must reach the same result (the module run alone, the
    unmutated seeds stand in, which are accepted)."""
    from apps import settings as project_settings
    from apps.profiles import services
    from apps.profiles.models import ProfileImport

    settings.MEDIA_ROOT = project_settings.MEDIA_ROOT  # the worker reads uploads from the project's MEDIA_ROOT
    sample = ACCEPTED[:WORKER_SAMPLE] or [SEEDS["seq_read.skyplan.csv"], SEEDS["seq_read.strace[reads]"]]
    client.force_login(user)
    for i, data in enumerate(sample):
        path = tmp_path / f"{i}-{NAME}"
        path.write_bytes(data)
        here = services.import_file(path, user=user)
        assert here.status == "succeeded", here.error
        with open(path, "rb") as f:
            body = client.post("/profiles/", {"files": [f], "format": "auto"}, HTTP_ACCEPT="application/json").json()
        job_id = body["imports"][0]["id"]
        job = wait_for(lambda job_id=job_id: ProfileImport.objects.filter(pk=job_id, status__in=["succeeded", "failed"])
                       .first(),
                       120, f"the worker's import of sample {i}")
        assert job.status == "succeeded", job.error
        assert job.worker and job.profile.summary == here.profile.summary
