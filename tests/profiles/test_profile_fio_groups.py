"""fio files made on this machine (fixtures/profiles/produce.sh): a failed job is flagged and never a
measurement; concurrent jobs of a group are summed as fio's group_reporting does, and the profile says so."""

from __future__ import annotations

import json

import pytest

from apps.profiles.analysis import analyse
from apps.profiles.calibration import tier_facts_from_fio
from apps.profiles.parsers import ParseError, parse


def _raw(samples, name):
    return json.loads((samples / name).read_text())["jobs"]


def test_two_jobs_without_group_reporting_are_summed_not_their_runtimes(samples):
    raw = _raw(samples, "fio_numjobs.json")
    a = analyse(parse(samples / "fio_numjobs.json"))
    # numjobs=2 for 4 s: both jobs ran at once, so IOPS add up and the duration is the longer run time
    assert a["summary"]["tier"]["iops"] == pytest.approx(raw[0]["read"]["iops"] + raw[1]["read"]["iops"], rel=1e-9)
    assert a["summary"]["duration_s"] == pytest.approx(max(j["read"]["runtime"] for j in raw) / 1000, rel=1e-9)
    assert a["summary"]["duration_s"] < 4.1
    assert [j["jobs"] for j in a["jobs"]] == [2]
    assert "2 concurrent jobs" in a["summary"]["grouping"][0]


def test_a_file_written_with_group_reporting_is_taken_as_fio_summed_it(samples):
    raw = _raw(samples, "fio_group_reporting.json")
    a = analyse(parse(samples / "fio_group_reporting.json"))
    assert a["summary"]["tier"]["iops"] == pytest.approx(raw[0]["read"]["iops"], rel=1e-9)
    assert a["summary"]["duration_s"] == pytest.approx(raw[0]["read"]["runtime"] / 1000, rel=1e-9)
    assert [j["jobs"] for j in a["jobs"]] == [2]
    assert a["summary"]["grouping"] == ["written with group_reporting: fio summed each group's jobs itself"]


def test_a_failed_job_is_flagged_and_never_a_measurement(samples):
    raw = _raw(samples, "fio_failed.json")
    assert [j["error"] for j in raw] == [0, 1]  # proc-file: fio could not lay out /proc/version (EPERM)
    a = analyse(parse(samples / "fio_failed.json"))
    assert a["summary"]["failed_jobs"] == [{"job": "proc-file", "error": 1, "message": "Operation not permitted"}]
    assert [(j["job"], j["failed"]) for j in a["jobs"]] == [("seq-read", False), ("proc-file", True)]
    tier = a["summary"]["tier"]
    assert tier["read_bw"] == pytest.approx(raw[0]["read"]["bw_bytes"], rel=1e-9)
    assert tier["iops"] is None and tier["latency"] is None  # no random job ran without error
    assert set(tier_facts_from_fio(a, "per_node")) == {"read_bw"}


def test_a_file_whose_every_job_failed_is_refused(samples, tmp_path):
    data = json.loads((samples / "fio_failed.json").read_text())
    data["jobs"] = [j for j in data["jobs"] if j["error"]]
    path = tmp_path / "all_failed.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ParseError, match=r"every job failed \(proc-file: error 1, Operation not permitted\)"):
        parse(path)


def test_the_cli_prints_not_recorded_for_what_fio_did_not_measure(db, samples):
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("import_profile", str(samples / "fio_failed.json"), stdout=out)
    text = out.getvalue()
    assert "0 IOPS" not in text and "0.0 MB/s" not in text
    assert "write not recorded, not recorded, latency not recorded" in text
    assert "job proc-file failed (fio error 1: Operation not permitted): not used as a measurement" in text
