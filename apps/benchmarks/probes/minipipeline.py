"""The mini-pipeline: the CHILES copy → split → invert → concat chain on real files, at a size the user picks.

A synthetic visibility set is generated on the worker: ``n_days`` files, each ``n_channels`` channels ×
``n_vis`` complex64 visibilities with integer uv-cell coordinates.  Then, one task after another in this
process (one core):

* copy: each day file from the source folder to the work folder (sequential read and write);
* split: per day, each sub-band's channels are selected and regridded along frequency with an FFT
  (forward, then inverse at the sub-band's resolution), one file per (day, sub-band);
* invert: per sub-band, that sub-band's file of every day is read, every channel's visibilities are
  gridded onto a ``grid``² uv-plane (3×3 box kernel) and transformed by a 2-D FFT into an image plane;
  the sub-band's image cube is written;
* concat: the cubes are read and written as one cube.

Every task's start and end is recorded; a 1 Hz /proc sampler writes the CHILES tracer CSV alongside.
``size_bytes`` is the total visibility data; the layout derived from it is returned with the timings, and
:func:`work_counts` gives the bytes and kernel operations of each task for the simulator's prediction.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from .sampler import ProcSampler

__all__ = ["Layout", "layout_for", "work_counts", "run_minipipeline", "SUPPORT"]

SUPPORT = 1  # box kernel half-width: (2·1+1)² = 9 cells per visibility
BYTES_PER_VIS = 8  # complex64
Progress = Callable[[int, int], None] | None


@dataclass(frozen=True)
class Layout:
    n_days: int
    n_channels: int
    n_subbands: int
    n_vis: int
    grid: int

    @property
    def day_bytes(self) -> int:
        return self.n_channels * self.n_vis * BYTES_PER_VIS + 2 * self.n_vis * 4  # + uv coordinates (int32)

    @property
    def channels_per_subband(self) -> int:
        return self.n_channels // self.n_subbands

    @property
    def cube_bytes(self) -> int:
        return self.channels_per_subband * self.grid * self.grid * 4  # float32 image planes


def layout_for(size_bytes: int, n_days: int = 6, n_channels: int = 32, n_subbands: int = 4, grid: int = 256) -> Layout:
    if n_days < 1 or n_subbands < 1 or n_channels < n_subbands or n_channels % n_subbands:
        raise ValueError("n_channels must be a positive multiple of n_subbands, and n_days at least 1")
    if n_days == n_subbands:
        # the simulator's custom DAG links equal-sized stages task to task; INVERT needs every day's SPLIT
        raise ValueError("n_days and n_subbands must differ (every INVERT reads every day)")
    n_vis = int(size_bytes // (n_days * n_channels * BYTES_PER_VIS))
    if n_vis < 1000:
        raise ValueError(f"size {size_bytes} B is too small for {n_days} days × {n_channels} channels")
    return Layout(n_days, n_channels, n_subbands, n_vis, grid)


def work_counts(lay: Layout) -> dict[str, dict[str, float]]:
    """Per task of each stage: bytes read and written, and kernel work (regridded values, gridded vis, FFT cells)."""
    sub_bytes = lay.channels_per_subband * lay.n_vis * BYTES_PER_VIS + 2 * lay.n_vis * 4
    return {
        "copy": {"n_tasks": lay.n_days, "read": lay.day_bytes, "write": lay.day_bytes},
        "split": {"n_tasks": lay.n_days, "read": lay.day_bytes, "write": lay.n_subbands * sub_bytes,
                  "regrid_values": lay.n_channels * lay.n_vis},
        "invert": {"n_tasks": lay.n_subbands, "read": lay.n_days * sub_bytes, "write": lay.cube_bytes,
                   "grid_vis": lay.n_days * lay.channels_per_subband * lay.n_vis,
                   "fft_cells": lay.channels_per_subband * lay.grid * lay.grid},
        "concat": {"n_tasks": 1, "read": lay.n_subbands * lay.cube_bytes, "write": lay.n_subbands * lay.cube_bytes},
    }


def regrid(block: np.ndarray) -> np.ndarray:
    """FFT regrid along frequency (axis 0): forward transform, keep the band, inverse at the same length."""
    spectrum = np.fft.fft(block, axis=0)
    return np.fft.ifft(spectrum, axis=0).astype(np.complex64)


def grid_channel(plane: np.ndarray, u: np.ndarray, v: np.ndarray, vis: np.ndarray, grid: int) -> None:
    flat = plane.reshape(-1)
    for du in range(-SUPPORT, SUPPORT + 1):
        for dv in range(-SUPPORT, SUPPORT + 1):
            np.add.at(flat, (u + du) * grid + (v + dv), vis)


def _generate(folder: str, lay: Layout) -> list[str]:
    rng = np.random.default_rng(42)
    paths = []
    for d in range(lay.n_days):
        u = rng.integers(SUPPORT, lay.grid - SUPPORT, lay.n_vis, dtype=np.int32)
        v = rng.integers(SUPPORT, lay.grid - SUPPORT, lay.n_vis, dtype=np.int32)
        vis = (rng.standard_normal((lay.n_channels, lay.n_vis), dtype=np.float32)
               + 1j * rng.standard_normal((lay.n_channels, lay.n_vis), dtype=np.float32)).astype(np.complex64)
        path = os.path.join(folder, f"day{d}.vis")
        with open(path, "wb") as fh:
            fh.write(u.tobytes())
            fh.write(v.tobytes())
            fh.write(vis.tobytes())
        paths.append(path)
    return paths


def _read_day(path: str, lay: Layout, channels: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    raw = np.fromfile(path, dtype=np.uint8)
    n4 = lay.n_vis * 4
    u = raw[:n4].view(np.int32)
    v = raw[n4:2 * n4].view(np.int32)
    vis = raw[2 * n4:].view(np.complex64).reshape(channels, lay.n_vis)
    return u, v, vis


def run_minipipeline(scratch: str, lay: Layout, *, sample_path: str | None = None, progress: Progress = None) -> dict:
    """Generate the data, run the four stages, return per-task timings (seconds since the copy started)."""
    src, work = os.path.join(scratch, "source"), os.path.join(scratch, "work")
    os.makedirs(src, exist_ok=True)
    os.makedirs(work, exist_ok=True)
    t_gen = time.perf_counter()
    days = _generate(src, lay)
    generate_s = time.perf_counter() - t_gen
    counts = work_counts(lay)
    total = sum(int(c["n_tasks"]) for c in counts.values())
    tasks: list[dict] = []
    t0 = time.perf_counter()

    def record(stage: str, label: str, start: float) -> None:
        tasks.append({"stage": stage, "label": label, "start_s": start - t0, "end_s": time.perf_counter() - t0})
        if progress:
            progress(len(tasks), total)

    sampler = ProcSampler(sample_path) if sample_path else None
    if sampler:
        sampler.__enter__()
    try:
        copies = []
        for d, path in enumerate(days):
            s = time.perf_counter()
            dest = os.path.join(work, os.path.basename(path))
            shutil.copyfile(path, dest)
            copies.append(dest)
            record("copy", f"day {d}", s)
        cps = lay.channels_per_subband
        for d, path in enumerate(copies):
            s = time.perf_counter()
            u, v, vis = _read_day(path, lay, lay.n_channels)
            for b in range(lay.n_subbands):
                block = regrid(vis[b * cps:(b + 1) * cps])
                with open(os.path.join(work, f"day{d}.sb{b}"), "wb") as fh:
                    fh.write(u.tobytes())
                    fh.write(v.tobytes())
                    fh.write(block.tobytes())
            record("split", f"day {d}", s)
        cubes = []
        for b in range(lay.n_subbands):
            s = time.perf_counter()
            planes = np.zeros((cps, lay.grid, lay.grid), dtype=np.complex64)
            for d in range(lay.n_days):
                u, v, vis = _read_day(os.path.join(work, f"day{d}.sb{b}"), lay, cps)
                for c in range(cps):
                    grid_channel(planes[c], u, v, vis[c], lay.grid)
            cube = np.abs(np.fft.fft2(planes, axes=(1, 2))).astype(np.float32)
            path = os.path.join(work, f"cube{b}.img")
            cube.tofile(path)
            cubes.append(path)
            record("invert", f"sub-band {b}", s)
        s = time.perf_counter()
        with open(os.path.join(work, "cube.img"), "wb") as out:
            for path in cubes:
                with open(path, "rb") as fh:
                    shutil.copyfileobj(fh, out, 8 * 1024 * 1024)
        record("concat", "all sub-bands", s)
    finally:
        if sampler:
            sampler.__exit__(None, None, None)
    stages = {}
    for t in tasks:
        st = stages.setdefault(t["stage"], {"start_s": t["start_s"], "end_s": t["end_s"], "tasks": 0})
        st["start_s"], st["end_s"] = min(st["start_s"], t["start_s"]), max(st["end_s"], t["end_s"])
        st["tasks"] += 1
    return {"layout": asdict(lay), "generate_s": generate_s, "makespan_s": tasks[-1]["end_s"], "stages": stages,
            "tasks": tasks, "samples": sampler.samples if sampler else 0}
