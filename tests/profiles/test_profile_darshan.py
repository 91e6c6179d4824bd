"""Darshan logs: detection by the header's magic number, the two bundled real logs parsed to the numbers
PyDarshan reports, classification, truncated and damaged logs refused, import, CLI, page and calibration.

Expected numbers were read by hand from PyDarshan 3.5.0 (``DarshanReport(path, read_all=True)``,
``records["POSIX"].to_df()``): see fixtures/profiles/README.md for where the logs come from.
"""

from __future__ import annotations

import json
import shutil
import struct
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from apps.profiles import services
from apps.profiles.analysis import analyse
from apps.profiles.calibration import derive_demands
from apps.profiles.models import Profile, ProfileImport
from apps.profiles.parsers import ParseError, detect_format, parse
from apps.profiles.parsers.darshan import DARSHAN_MAGIC_NR, looks_like_darshan


@pytest.fixture
def ior(samples):
    """IOR with HDF5 on 4 processes (Cori, NERSC): POSIX, MPI-IO, STDIO."""
    return samples / "darshan" / "ior_hdf5_example.darshan"


@pytest.fixture
def vpic(samples):
    """VPIC-IO on 2,048 processes (Edison, NERSC): one shared 2 TiB HDF5 file written collectively."""
    return samples / "darshan" / "example.darshan"


def _cut(src, tmp_path, n: int, name: str = "cut.darshan"):
    out = tmp_path / name
    out.write_bytes(src.read_bytes()[:n])
    return out


# --- detection ------------------------------------------------------------------------------------------

def test_it_detects_both_logs_by_their_magic_number(ior, vpic):
    assert detect_format(ior) == "darshan" and detect_format(vpic) == "darshan"
    assert struct.unpack_from("<q", ior.read_bytes(), 8)[0] == DARSHAN_MAGIC_NR


def test_it_detects_a_log_whatever_its_name(ior, tmp_path):
    renamed = tmp_path / "job-output.bin"
    shutil.copyfile(ior, renamed)
    assert detect_format(renamed) == "darshan"


def test_a_big_endian_header_is_recognised():
    assert looks_like_darshan(b"3.21\0\0\0\0" + struct.pack(">q", DARSHAN_MAGIC_NR))
    assert not looks_like_darshan(b"3.21\0\0\0\0" + struct.pack("<q", DARSHAN_MAGIC_NR + 1))


def test_the_extension_alone_does_not_make_a_darshan_log(tmp_path, samples):
    fake = tmp_path / "trace.darshan"
    shutil.copyfile(samples / "seq_read.strace", fake)
    assert detect_format(fake) == "strace"
    with pytest.raises(ParseError) as err:
        parse(fake, "darshan")
    assert str(err.value).startswith("trace.darshan: a Darshan log (") and "6567223" in str(err.value)


# --- parsing: the numbers PyDarshan reports --------------------------------------------------------------

def test_the_ior_log_parses_to_pydarshans_numbers(ior):
    p = parse(ior)
    m, a = p.meta, p.aggregates
    assert (p.format, p.kind) == ("darshan", "darshan")
    assert m["nprocs"] == 4 and m["jobid"] == 32324925 and m["duration_s"] == 1.0
    assert m["start_time"] == m["end_time"] == 1594155460 and m["log_version"] == "3.21"
    assert m["executable"] == "/global/u2/s/ssnyder/software/ior/build/src/ior"
    assert m["modules"] == ["POSIX", "MPI-IO", "H5F", "H5D", "LUSTRE", "STDIO", "DXT_POSIX", "DXT_MPIIO"]
    posix = a["modules"]["POSIX"]
    assert (posix["read_bytes"], posix["write_bytes"]) == (4202504, 4195800)
    assert (posix["reads"], posix["writes"], posix["seeks"], posix["opens"]) == (36, 23, 53, 22)
    assert posix["read_time_s"] == pytest.approx(0.078451, abs=1e-6)
    assert posix["write_time_s"] == pytest.approx(0.536812, abs=1e-6)
    assert posix["meta_time_s"] == pytest.approx(0.029769, abs=1e-6)
    mpi = a["modules"]["MPI-IO"]
    assert (mpi["reads"], mpi["writes"], mpi["read_bytes"], mpi["write_bytes"]) == (36, 23, 4202504, 4195800)
    assert a["modules"]["STDIO"]["writes"] == 128 and a["modules"]["STDIO"]["write_bytes"] == 2421
    # POSIX_SIZE_READ_0_100 … 1G_PLUS: 3 + 17 + 16 = 36 reads; 3 + 4 + 16 = 23 writes
    assert a["size_hist"]["read"] == [3, 17, 0, 0, 16, 0, 0, 0, 0, 0]
    assert a["size_hist"]["write"] == [3, 4, 0, 0, 16, 0, 0, 0, 0, 0]
    (f,) = a["top_files"]
    assert f["name"] == "/global/cscratch1/sd/ssnyder/test123.h5" and f["processes"] == "all (shared)"


def test_the_vpic_log_parses_to_pydarshans_numbers(vpic):
    p = parse(vpic)
    m, a = p.meta, p.aggregates
    assert m["nprocs"] == 2048 and m["jobid"] == 4478544 and m["duration_s"] == 117.0
    assert m["executable"].endswith("/bin.edison/vpicio_uni") and m["darshan_lib_version"] == "3.1.3"
    posix = a["modules"]["POSIX"]
    assert (posix["write_bytes"], posix["writes"], posix["reads"]) == (2199023259968, 16402, 0)
    assert posix["write_time_s"] == pytest.approx(100397.600422, abs=1e-5)
    assert a["modules"]["MPI-IO"]["collective_writes"] == 16384
    assert a["modules"]["STDIO"]["files"] == 2  # 129 per-rank records of 2 files
    # STDIO_F_WRITE_TIME holds -1 ("not recorded") in most records: counted as 0, never a negative total
    assert a["modules"]["STDIO"]["write_time_s"] >= 0
    assert a["size_hist"]["write"] == [4, 14, 0, 0, 0, 0, 0, 0, 16384, 0]


def test_the_parser_agrees_with_pydarshan_read_directly(ior, vpic):
    import darshan

    for log in (ior, vpic):
        report = darshan.DarshanReport(str(log), read_all=True)
        c = report.records["POSIX"].to_df()["counters"]
        posix = parse(log).aggregates["modules"]["POSIX"]
        assert posix["read_bytes"] == c["POSIX_BYTES_READ"].sum()
        assert posix["write_bytes"] == c["POSIX_BYTES_WRITTEN"].sum()
        assert posix["reads"] == c["POSIX_READS"].sum() and posix["writes"] == c["POSIX_WRITES"].sum()
        assert parse(log).meta["nprocs"] == report.metadata["job"]["nprocs"]


# --- classification ----------------------------------------------------------------------------------------

def test_ior_accesses_are_classified_like_the_strace_analysis(ior):
    a = parse(ior).aggregates["classes"]
    # reads: 36, POSIX_SEQ_READS 26, POSIX_CONSEC_READS 14 -> 14 sequential, 12 consecutive, 10 random
    assert (a["seq_read_ops"], a["consec_read_ops"], a["rand_read_ops"]) == (14, 12, 10)
    # writes: 23, SEQ 17, CONSEC 13 -> 13 sequential, 4 consecutive, 6 random
    assert (a["seq_write_ops"], a["consec_write_ops"], a["rand_write_ops"]) == (13, 4, 6)
    s = analyse(parse(ior))["summary"]
    assert s["ops"] == {"seq_read": 26, "rand_read": 10, "seq_write": 17, "rand_write": 6}
    assert s["classification"] == "sequential" and s["io_character"] == "sequential read/write dominated"
    assert s["sequential_share_ops"] == pytest.approx(43 / 59)
    # bytes split by the file's mean request size: 10 random reads of 4202504 / 36 bytes
    assert s["bytes"]["rand_read"] == pytest.approx(10 * 4202504 / 36)
    assert s["bytes"]["seq_read"] + s["bytes"]["rand_read"] == pytest.approx(4202504)
    # throughput: 8398304 bytes over the 1 s run ~ over the mean process's 0.161258 s in I/O
    lo, hi = s["io_range_bytes_per_s"]
    assert lo == pytest.approx(8398304.0)
    assert hi == pytest.approx(8398304 / ((0.07845068 + 0.53681183 + 0.02976942) / 4), rel=1e-5)


def test_vpic_is_sequential_write_dominated(vpic):
    a = analyse(parse(vpic))
    s = a["summary"]
    # 16,402 writes: POSIX_SEQ_WRITES 16384, POSIX_CONSEC_WRITES 0 -> all forward skips (strided shared file)
    assert s["ops"] == {"seq_read": 0, "rand_read": 0, "seq_write": 16384, "rand_write": 18}
    assert s["consecutive_ops"] == {"read": 0, "write": 16384}
    assert s["io_character"] == "sequential write dominated" and s["classification"] == "sequential"
    assert s["io_range_bytes_per_s"][0] == pytest.approx(2199023259968 / 117)
    assert [p["bound"] for p in a["phases"]] == ["seq_io"]
    json.dumps(a)  # stored as JSON


# --- malformed input -------------------------------------------------------------------------------------

@pytest.mark.parametrize("n, what", [
    (12, "a Darshan log ("),
    (200, "a Darshan log header of 360 bytes; the file ends after 200 bytes (truncated)"),
    (600, "the job record at bytes 360–921 of the Darshan log; the file ends at byte 600 (truncated)"),
    (1000, "the name map at bytes 921–1237 of the Darshan log; the file ends at byte 1000 (truncated)"),
    (3500, "of the Darshan log; the file ends at byte 3500 (truncated)"),
    (3966, "the file ends at byte 3966 (truncated)"),
])
def test_a_truncated_log_is_refused_naming_the_file_and_what_was_expected(ior, tmp_path, n, what):
    cut = _cut(ior, tmp_path, n)
    with pytest.raises(ParseError) as err:
        parse(cut, "darshan")
    assert str(err.value).startswith("cut.darshan: ") and what in str(err.value)
    assert err.value.line is None


def test_a_damaged_region_is_refused(ior, tmp_path):
    data = bytearray(ior.read_bytes())
    for i in range(1300, 1400):  # inside the first module's compressed region (bytes 1237–1456)
        data[i] ^= 0xA5
    bad = tmp_path / "flipped.darshan"
    bad.write_bytes(bytes(data))
    with pytest.raises(ParseError) as err:
        parse(bad)
    assert str(err.value).startswith("flipped.darshan: the region of module 1 at bytes 1237–1456")
    assert "damaged log" in str(err.value)


def test_an_old_or_foreign_version_is_refused(ior, tmp_path):
    data = bytearray(ior.read_bytes())
    data[:8] = b"2.06\0\0\0\0"
    old = tmp_path / "old.darshan"
    old.write_bytes(bytes(data))
    with pytest.raises(ParseError, match=r"old.darshan: a Darshan 3.x log .* version '2.06'"):
        parse(old)


def test_every_cut_of_a_log_is_refused_or_complete(ior, tmp_path):
    """No cut point crashes, imports part of a log, or lets PyDarshan abort the process."""
    size = len(ior.read_bytes())
    for n in range(17, size, 97):
        with pytest.raises(ParseError):
            parse(_cut(ior, tmp_path, n), "darshan")


# --- import, CLI, page, calibration ---------------------------------------------------------------------

@pytest.mark.django_db
def test_it_imports_through_the_service(ior):
    job = services.import_file(ior)
    assert job.status == "succeeded", job.error
    p = job.profile
    assert (p.format, p.kind, p.get_kind_display()) == ("darshan", "darshan", "Darshan I/O log")
    assert p.duration_s == 1.0 and p.summary["classification"] == "sequential"
    assert p.analysis["files"][0]["read_bytes"] == 4202504


@pytest.mark.django_db
def test_a_truncated_log_fails_the_import_and_saves_nothing(ior, tmp_path):
    job = services.import_file(_cut(ior, tmp_path, 1500, "half.darshan"))
    assert job.status == "failed" and job.error.startswith("half.darshan: ") and "truncated" in job.error
    assert not Profile.objects.exists()
    assert ProfileImport.objects.get().profile is None


def _cli(*args) -> str:
    out = StringIO()
    call_command("import_profile", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_the_cli_prints_the_summary(vpic):
    out = _cli(str(vpic))
    assert out.startswith(f"profile {Profile.objects.get().pk}: example.darshan (darshan), 117.00 s")
    assert "vpicio_uni: 2048 processes, job 4478544, modules POSIX, MPI-IO, LUSTRE, STDIO" in out
    assert "seq_write       16384 requests" in out
    assert "classification: sequential (sequential write dominated)" in out
    assert "sequential I/O" in out  # the one phase


@pytest.mark.django_db
def test_the_cli_format_override_and_json(ior, tmp_path):
    renamed = tmp_path / "run.log"
    shutil.copyfile(ior, renamed)
    body = json.loads(_cli(str(renamed), "--format", "darshan", "--format-output", "json"))
    assert body["format"] == "darshan" and body["summary"]["ops"]["rand_read"] == 10


@pytest.mark.django_db
def test_the_cli_names_a_truncated_log(ior, tmp_path):
    with pytest.raises(CommandError, match=r"cut.darshan: .*truncated"):
        _cli(str(_cut(ior, tmp_path, 2000)), "--format", "darshan")


def test_the_profile_page_shows_the_darshan_tables_and_charts(logged_in, ior, vpic):
    p = services.import_file(ior).profile
    html = logged_in.get(p.get_absolute_url()).content.decode()
    assert 'id="darshan-job"' in html and "4 processes" in html
    assert 'id="darshan-modules"' in html and 'id="darshan-files"' in html
    assert "/global/cscratch1/sd/ssnyder/test123.h5" in html
    assert 'id="classification">sequential<' in html
    for chart in ("sizes", "files"):
        assert f'id="chart-{chart}"' in html
    assert "Calibrate a workload stage" in html
    v = services.import_file(vpic).profile
    html = logged_in.get(v.get_absolute_url()).content.decode()
    assert "2048 processes" in html and "vpicio.hdf5" in html and "sequential write dominated" in html


def test_a_darshan_log_calibrates_a_stage_per_process(catalogue, this_host, ior):
    from apps.workloads.models import WorkloadStage

    p = services.import_file(ior).profile
    stage = WorkloadStage.objects.get(workload__slug="adiosstman-validation", name="convert_to_adios")
    cal = services.calibrate(profiles=[p], stage=stage, platform=this_host)
    assert cal.measured_s == 1.0
    # one task is one of the 4 processes: 10 random reads and 6 random writes over 4
    assert cal.demands["random_read_ops"] == 2.5 and cal.demands["random_write_ops"] == 1.5
    assert cal.demands["seq_read_bytes"] == pytest.approx((4202504 - 10 * 4202504 / 36) / 4)
    assert "divided by its 4 processes" in cal.notes["random_read_ops"]
    assert cal.demands["cpu_seconds"] == stage.cpu_seconds  # not in a Darshan log: kept


def test_a_log_without_posix_cannot_calibrate():
    analysis = {"kind": "darshan", "summary": {"has_posix": False, "duration_s": 10.0}}
    with pytest.raises(ValueError, match="no POSIX module"):
        derive_demands([analysis])


def test_a_reader_that_aborts_is_a_parse_error_not_a_crash(ior, tmp_path, monkeypatch):
    """PyDarshan's C reader can abort its process on a damaged log: it runs in a child, so that is a ParseError."""
    from apps.profiles.parsers import darshan as darshan_parser

    aborting = tmp_path / "abort.py"
    aborting.write_text("import os, sys\nprint('Error: failed to read module POSIX data', file=sys.stderr)\nos.abort()\n")
    monkeypatch.setattr(darshan_parser, "_READER", aborting)
    with pytest.raises(ParseError) as err:
        parse(ior)
    assert str(err.value).startswith("ior_hdf5_example.darshan: a Darshan log PyDarshan can read completely")
    assert "failed to read module POSIX data" in str(err.value)


@pytest.fixture
def worker_media(settings, celery_worker_process):
    """The worker process reads uploads from its own MEDIA_ROOT (the project default): use the same one."""
    from apps import settings as project_settings

    settings.MEDIA_ROOT = project_settings.MEDIA_ROOT


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_a_worker_imports_a_log_and_refuses_a_truncated_one(worker_media, client, user, ior, tmp_path):
    import time

    client.force_login(user)
    cut = _cut(ior, tmp_path, 2500, "cut.darshan")
    files = [open(ior, "rb"), open(cut, "rb")]
    try:
        body = client.post("/profiles/", {"files": files, "format": "auto"}, HTTP_ACCEPT="application/json").json()
    finally:
        for f in files:
            f.close()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        jobs = [ProfileImport.objects.get(pk=i["id"]) for i in body["imports"]]
        if all(j.is_finished for j in jobs):
            break
        time.sleep(0.1)
    assert [j.status for j in jobs] == ["succeeded", "failed"], [j.error for j in jobs]
    assert jobs[0].worker and jobs[0].profile.kind == "darshan"
    assert jobs[1].error.startswith("cut.darshan: ") and "truncated" in jobs[1].error
    assert Profile.objects.count() == 1
