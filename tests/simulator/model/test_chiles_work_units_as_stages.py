"""The CHILES SPLIT and INVERT work-units (seed 000 §6.1, §6.2), written as data of the general model (a chain of
stages joined by ``continues``, one stage per phase of the CHILES builder), run the same as the CHILES builder's
work-units on every platform the case study used.

The stages' demands are the CHILES record's own values (``chiles_demands`` and the workload's parameters), scaled
as the CHILES builder scales them for one sub-band of a 400 GB day (SPLIT) and of eight mean-size days (INVERT); the
scenario is validation's (``work_unit_scenario``: one node or instance, no queue wait, no boot).  Both builders then
run in the same engine, so the times agree to rounding."""

from dataclasses import replace

import pytest

from simulator.model.calibration import work_unit_scenario, work_unit_time
from simulator.model.chiles import chiles_demands
from simulator.model.simulate import simulate
from simulator.model.specs import RoleIO, StageSpec, WorkloadSpec

CASE_STUDY = ("aws-sydney", "magnus", "pleiades")


def _chain(name, *phases):
    """Stages ``name``, ``name.1``, ... each continuing the one before (one task of several phases)."""
    out = []
    for i, facts in enumerate(phases):
        more = {} if i == 0 else {"depends_on": (out[-1].name,), "dependency": "continues"}
        out.append(StageSpec(name if i == 0 else f"{name}.{i}", **facts, **more))
    return out


def split_work_unit(w: WorkloadSpec, day_bytes: float) -> WorkloadSpec:
    """One SPLIT of one sub-band of a day of ``day_bytes``: selection, regrid/apply, flag-table read."""
    d = chiles_demands(w)
    scale = day_bytes / d.split_ref_day_bytes
    full = w.param("day_bandwidth", w.param("bandwidth"))
    spw = min(1.0, w.param("spw_width") / full)
    sub = w.param("subband_width") / full
    cap = d.split_read_cap_bytes_per_s
    stages = _chain(
        "split",
        {"io": (RoleIO("input", read_bytes=d.split_select_read_bytes * scale),), "max_read_bytes_per_s": cap,
         "peak_memory_bytes": d.split_peak_memory_bytes},
        {"cpu_seconds": d.split_regrid_cpu_seconds * scale, "max_read_bytes_per_s": cap,
         "io": (RoleIO("input", read_bytes=spw * day_bytes), RoleIO("output", write_bytes=sub * day_bytes))},
        {"io": (RoleIO("input", read_bytes=d.split_flag_read_bytes * scale),), "max_read_bytes_per_s": cap})
    return WorkloadSpec("chiles-split-unit", template="stages", stages=tuple(stages))


def invert_work_unit(w: WorkloadSpec, days: list[float]) -> WorkloadSpec:
    """One INVERT of one sub-band over ``days``: creation, serial gridding, parallel gridding reading the sub-band
    of every day, deconvolve/restore random I/O, writing the image cube."""
    d = chiles_demands(w)
    channels = round(w.param("subband_width") / w.param("channel_width"))
    ch = channels / d.invert_ref_channels
    vis = (len(days) / d.invert_ref_days) ** w.param("invert_time_visibility_exponent")
    work = vis * ch ** w.param("invert_time_channel_exponent")
    sub = w.param("subband_width") / w.param("day_bandwidth", w.param("bandwidth"))
    image = w.param("image_pixels") ** 2 * channels * w.param("bytes_per_voxel")
    stages = _chain(
        "invert",
        {"overhead_s": d.invert_create_s, "peak_memory_bytes": d.invert_peak_memory_bytes},
        {"cpu_seconds": d.invert_cpu_serial_seconds * work},
        {"cpu_seconds": d.invert_cpu_parallel_seconds * work, "usable_threads": d.invert_max_threads,
         "io": (RoleIO("input", read_bytes=sum(days) * sub),)},
        {"random_read_ops": d.invert_random_write_ops * ch},
        {"io": (RoleIO("output", write_bytes=image),)})
    return WorkloadSpec("chiles-invert-unit", template="stages", stages=tuple(stages))


def _general_time(platform, chiles, unit: WorkloadSpec, stage: str) -> float:
    sc = work_unit_scenario(platform, chiles, stage)
    pl = sc.placement(stage)
    staged = pl.storage_in is not None and platform.storage_tier(pl.storage_in).kind == "object_store"
    if staged:  # the CHILES builder stages INVERT's input from the object store to the instance SSD, and back
        ssd = platform.storage_tier(kind="local_ssd").name
        pl = replace(pl, storage_scratch=ssd, stage_in=True, stage_out=True)
    r = simulate(replace(sc, workload=unit, placements=(pl,)), vary_storage=False, record_utilisation=False)
    (task,) = [t for t in r.tasks if t.pool]
    return task.end_s - task.start_s


@pytest.mark.parametrize("platform", CASE_STUDY)
def test_the_split_work_unit_as_stages_runs_as_the_chiles_builders(platforms, chiles, platform):
    p = platforms[platform]
    unit = split_work_unit(chiles, chiles.param("reference_day_size"))
    expected, _ = work_unit_time(p, chiles, "split")
    assert _general_time(p, chiles, unit, "split") == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("platform", CASE_STUDY)
def test_the_invert_work_unit_as_stages_runs_as_the_chiles_builders(platforms, chiles, platform):
    p = platforms[platform]
    unit = invert_work_unit(chiles, [chiles.param("day_size_mean")] * int(chiles.param("invert_reference_days")))
    expected, _ = work_unit_time(p, chiles, "invert")
    assert _general_time(p, chiles, unit, "invert") == pytest.approx(expected, rel=1e-9)
