"""The probes measure this host for real (small sizes), and the prediction is built from their figures only."""

import csv

import numpy as np
import pytest

from apps.benchmarks.prediction import minipipeline_workload, predict_minipipeline
from apps.benchmarks.probes.cpu import kernel_rates
from apps.benchmarks.probes.hostinfo import host_info
from apps.benchmarks.probes.minipipeline import (
    _FFT_OUT,
    file_io_rates,
    layout_for,
    regrid,
    run_minipipeline,
    split_buffer_bytes,
    work_counts,
)
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
    assert stages["copy:read"].seq_read_bytes == lay.day_bytes and stages["copy:write"].seq_write_bytes == lay.day_bytes


def test_the_prediction_counts_new_memory_and_the_kernels_copy_when_measured():
    lay = layout_for(64 << 20, n_days=4, n_channels=8, n_subbands=2, grid=64)
    rates = {"regrid_values_per_s": 1e6, "grid_vis_per_s": 2e6, "fft_cells_per_s": 4e6,
             "first_touch_bytes_per_s": 1e8, "copy_bytes_per_s": 5e8}
    stages = {s.name: s for s in minipipeline_workload(lay, rates).stages}
    assert stages["copy:copy"].cpu_seconds == pytest.approx(lay.day_bytes / 5e8)
    assert stages["split:new-memory"].cpu_seconds == pytest.approx(split_buffer_bytes(lay) / lay.n_days / 1e8)
    assert "concat:new-memory" not in stages  # CONCAT allocates nothing


def test_each_direction_of_the_host_tier_runs_at_its_own_measured_rate():
    lay = layout_for(64 << 20, n_days=4, n_channels=8, n_subbands=2, grid=64)
    storage = {"points": [{"pattern": "seq_read", "jobs": 1, "bytes_per_s": 1e9, "iops": None},
                          {"pattern": "seq_write", "jobs": 1, "bytes_per_s": 1e8, "iops": None}]}
    rates = {"regrid_values_per_s": 1e9, "grid_vis_per_s": 1e9, "fft_cells_per_s": 1e9}
    parts = predict_minipipeline("h", {"memory_bytes": 8e9}, storage, rates, lay)["stages"]["split"]["parts"]
    counts = work_counts(lay)["split"]
    assert parts["split:write"]["task_seconds"] == pytest.approx(lay.n_days * counts["write"] / 1e8, rel=1e-6)
    assert parts["split:read"]["task_seconds"] == pytest.approx(lay.n_days * counts["read"] / 1e9, rel=1e-6)


def test_the_regrid_into_reused_buffers_equals_numpys_default_round_trip():
    rng = np.random.default_rng(1)
    block = (rng.standard_normal((8, 1000)) + 1j * rng.standard_normal((8, 1000))).astype(np.complex64)
    out, spectrum = np.empty_like(block), np.empty_like(block)
    expected = np.fft.ifft(np.fft.fft(block, axis=0), axis=0)
    result = regrid(block, out=out, spectrum=spectrum)
    assert result.dtype == np.complex64
    assert np.allclose(result, expected, atol=1e-5)
    assert result is out or not _FFT_OUT


def test_the_pipelines_own_file_operations_are_timed(tmp_path):
    lay = layout_for(48 << 20, n_days=3, n_channels=8, n_subbands=2, grid=64)
    io = file_io_rates(str(tmp_path), lay)
    assert io["copy_bytes_per_s"] > 0 and io["write_bytes_per_s"] > 0 and io["read_bytes_per_s"] > 0


def test_kernel_rates_are_positive():
    rates = kernel_rates(seconds=0.1, n_vis=8192)
    assert all(v > 0 for v in rates.values())
