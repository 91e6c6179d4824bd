"""The same file imported twice gives identical results (analysis and summary), for each kind of real file."""

from __future__ import annotations

import pytest

from apps.profiles import services


@pytest.mark.parametrize("name", ["forked_read.strace", "forked_read.terminal.strace", "dd_cut.strace",
                                  "cpu_write.pidstat.txt", "rand_read.skyplan.csv", "fio_numjobs.json",
                                  "fio_failed.json"])
def test_importing_a_file_twice_gives_the_same_analysis(db, samples, name):
    first = services.import_file(samples / name).profile
    second = services.import_file(samples / name).profile
    assert first.pk != second.pk
    assert first.analysis == second.analysis
    assert first.summary == second.summary and first.phases == second.phases
