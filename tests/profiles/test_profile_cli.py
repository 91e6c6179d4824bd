"""``manage.py import_profile`` prints a summary and the classification."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from apps.profiles.models import Profile


def _run(*args) -> str:
    out = StringIO()
    call_command("import_profile", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_it_prints_the_classification_of_a_strace(samples):
    out = _run(str(samples / "rand_read.strace"))
    assert "classification: random (random read dominated)" in out
    assert "random I/O" in out  # a phase line
    assert Profile.objects.get().format == "strace"


@pytest.mark.django_db
def test_it_prints_json(samples):
    body = json.loads(_run(str(samples / "seq_read.pidstat.txt"), "--format", "pidstat", "--format-output", "json"))
    assert body["format"] == "pidstat" and [p["bound"] for p in body["phases"]] == ["idle", "io"]


def test_it_attaches_platform_and_stage(samples, catalogue):
    _run(str(samples / "seq_read.strace"), "--platform", "magnus", "--stage", "chiles-epoch1/split")
    p = Profile.objects.get()
    assert p.platform.slug == "magnus" and p.stage.name == "split"


@pytest.mark.django_db
def test_a_malformed_file_is_a_command_error_naming_the_line(samples, tmp_path):
    bad = tmp_path / "bad.strace"
    bad.write_text((samples / "seq_read.strace").read_text().splitlines()[0] + "\nnonsense\n")
    with pytest.raises(CommandError, match="bad.strace, line 2: a strace line"):
        _run(str(bad))
    assert not Profile.objects.exists()


@pytest.mark.django_db
def test_an_unknown_platform_is_refused(samples):
    with pytest.raises(CommandError, match="--platform: no platform 'nowhere'"):
        _run(str(samples / "seq_read.strace"), "--platform", "nowhere")
