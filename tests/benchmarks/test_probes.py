"""The probes measure this host for real (small sizes), and the prediction is built from their figures only."""

import csv

import pytest

from apps.benchmarks.prediction import minipipeline_workload
from apps.benchmarks.probes.cpu import kernel_rates
from apps.benchmarks.probes.hostinfo import host_info
from apps.benchmarks.probes.minipipeline import layout_for, run_minipipeline, work_counts
from apps.benchmarks.probes.sampler import HEADER
from apps.benchmarks.probes.storage import fio_available, storage_probe


def test_it_describes_the_host():
    info = host_info()
    assert info["cores"] >= 1 and info["memory_bytes"] > 1e9
    assert any(d["mount"] == "/" for d in info["disks"])


@pytest.mark.skipif(not fio_available(), reason="fio is installed by .ci/system-packages")
def test_fio_measures_sequential_faster_than_random_4k(tmp_path):
    result = storage_probe(str(tmp_path), concurrency=[1], size_bytes=32 << 20, runtime_s=1,
                           patterns=["seq_read", "rand_read"])
    seq, rand = (next(p for p in result["points"] if p["pattern"] == k) for k in ("seq_read", "rand_read"))
    assert result["tool"] == "fio"
    assert seq["bytes_per_s"] > 0 and rand["iops"] > 0
    # 1 MiB blocks move more bytes per second than 4 KiB random reads; in operations it is the other way round
    assert seq["bytes_per_s"] > rand["bytes_per_s"]
    assert rand["iops"] > seq["iops"]


def test_the_layout_refuses_equal_days_and_subbands():
    with pytest.raises(ValueError, match="n_days and n_subbands must differ"):
        layout_for(64 << 20, n_days=4, n_subbands=4)


def test_the_minipipeline_runs_on_real_files_and_samples_proc(tmp_path):
    lay = layout_for(48 << 20, n_days=3, n_channels=8, n_subbands=2, grid=64)
    samples = tmp_path / "samples.csv"
    out = run_minipipeline(str(tmp_path / "run"), lay, sample_path=str(samples))
    assert [t["stage"] for t in out["tasks"]] == ["copy"] * 3 + ["split"] * 3 + ["invert"] * 2 + ["concat"]
    ends = [t["end_s"] for t in out["tasks"]]
    assert ends == sorted(ends) and out["makespan_s"] == ends[-1]
    cube = tmp_path / "run" / "work" / "cube.img"
    assert cube.stat().st_size == work_counts(lay)["concat"]["write"]
    with samples.open() as fh:
        assert next(csv.reader(fh)) == HEADER.split(",")


def test_the_prediction_divides_the_pipelines_work_by_the_measured_rates():
    lay = layout_for(64 << 20, n_days=4, n_channels=8, n_subbands=2, grid=64)
    rates = {"regrid_values_per_s": 1e6, "grid_vis_per_s": 2e6, "fft_cells_per_s": 4e6}
    stages = {s.name: s for s in minipipeline_workload(lay, rates).stages}
    counts = work_counts(lay)
    assert stages["split:compute"].cpu_seconds == pytest.approx(counts["split"]["regrid_values"] / 1e6)
    assert stages["invert:compute"].cpu_seconds == pytest.approx(
        counts["invert"]["grid_vis"] / 2e6 + counts["invert"]["fft_cells"] / 4e6)
    assert stages["invert:read"].depends_on == ("split:write",)
    assert stages["copy"].seq_read_bytes == lay.day_bytes


def test_kernel_rates_are_positive():
    rates = kernel_rates(seconds=0.1, n_vis=8192)
    assert all(v > 0 for v in rates.values())
