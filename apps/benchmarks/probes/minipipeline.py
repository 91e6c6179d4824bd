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

Every task's start and end is recorded, with the time the process waited for a CPU that other processes held
(the kernel's run-queue delay: on a shared host it is part of the wall-clock time but not of the host's speed)
and its system time (page faults, copies into and out of the page cache);
a 1 Hz /proc sampler writes the CHILES tracer CSV alongside.
``size_bytes`` is the total visibility data; the layout derived from it is returned with the timings, and
:func:`work_counts` gives the bytes and kernel operations of each task for the simulator's prediction.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import resource
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from .memory import at_rest, first_touch_rate
from .sampler import ProcSampler

__all__ = ["Layout", "layout_for", "work_counts", "split_buffer_bytes", "write_arrays", "file_io_rates",
           "run_minipipeline", "SUPPORT"]

SUPPORT = 1  # box kernel half-width: (2·1+1)² = 9 cells per visibility
BYTES_PER_VIS = 8  # complex64
Progress = Callable[[int, int], None] | None
_FFT_OUT = "out" in inspect.signature(np.fft.fft).parameters  # numpy >= 2.0 transforms into a given array


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
    def subband_bytes(self) -> int:
        """One (day, sub-band) file: the sub-band's channels and the uv coordinates."""
        return self.channels_per_subband * self.n_vis * BYTES_PER_VIS + 2 * self.n_vis * 4

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
    """Per task of each stage: bytes read and written, kernel work (regridded values, gridded vis, FFT cells) and
    ``new_bytes``, its share of the buffers its stage allocates once and reuses (first touched by that stage)."""
    sub_bytes = lay.subband_bytes
    return {
        "copy": {"n_tasks": lay.n_days, "read": lay.day_bytes, "write": lay.day_bytes, "copied": lay.day_bytes,
                 "new_bytes": 0},
        "split": {"n_tasks": lay.n_days, "read": lay.day_bytes, "write": lay.n_subbands * sub_bytes,
                  "regrid_values": lay.n_channels * lay.n_vis, "new_bytes": split_buffer_bytes(lay) / lay.n_days},
        "invert": {"n_tasks": lay.n_subbands, "read": lay.n_days * sub_bytes, "write": lay.cube_bytes,
                   "grid_vis": lay.n_days * lay.channels_per_subband * lay.n_vis,
                   "fft_cells": lay.channels_per_subband * lay.grid * lay.grid,
                   "new_bytes": sub_bytes / lay.n_subbands},
        "concat": {"n_tasks": 1, "read": lay.n_subbands * lay.cube_bytes, "write": lay.n_subbands * lay.cube_bytes,
                   "new_bytes": 0},
    }


def split_buffer_bytes(lay: Layout) -> int:
    """SPLIT's buffers: a day's file, and the spectrum and result of one sub-band's regrid."""
    return lay.day_bytes + 2 * lay.channels_per_subband * lay.n_vis * BYTES_PER_VIS


def regrid(block: np.ndarray, out: np.ndarray | None = None, spectrum: np.ndarray | None = None) -> np.ndarray:
    """FFT regrid along frequency (axis 0): forward transform, keep the band, inverse at the same length.

    Both transforms are "ortho"-scaled (the round trip equals numpy's default): the default forward transform
    passes an integer scale factor, which resolves numpy's FFT ufunc to its complex128 loop, so complex64 data is
    cast through a buffer — four times slower here, with a fresh temporary per call.  With ``spectrum`` and
    ``out`` (complex64 arrays of the block's shape, reused by the caller) nothing is allocated per call.
    """
    if not _FFT_OUT:
        spectrum = out = None
    spectrum = np.fft.fft(block, axis=0, norm="ortho", **({"out": spectrum} if spectrum is not None else {}))
    result = np.fft.ifft(spectrum, axis=0, norm="ortho", **({"out": out} if out is not None else {}))
    return result.astype(np.complex64, copy=False)


def grid_channel(plane: np.ndarray, u: np.ndarray, v: np.ndarray, vis: np.ndarray, grid: int) -> None:
    flat = plane.reshape(-1)
    for du in range(-SUPPORT, SUPPORT + 1):
        for dv in range(-SUPPORT, SUPPORT + 1):
            np.add.at(flat, (u + du) * grid + (v + dv), vis)


def _generate(folder: str, lay: Layout) -> list[str]:
    """Write the synthetic day files one channel at a time and fsync them: the generator frees no large arrays
    and leaves no dirty pages, so the timed stages find the host's memory and page cache as a pipeline whose input
    is at rest on the storage would, rather than warmed or loaded by the generator."""
    rng = np.random.default_rng(42)
    paths = []
    row = np.empty(lay.n_vis, dtype=np.complex64)
    re, im = np.empty(lay.n_vis, dtype=np.float32), np.empty(lay.n_vis, dtype=np.float32)
    for d in range(lay.n_days):
        u = rng.integers(SUPPORT, lay.grid - SUPPORT, lay.n_vis, dtype=np.int32)
        v = rng.integers(SUPPORT, lay.grid - SUPPORT, lay.n_vis, dtype=np.int32)
        path = os.path.join(folder, f"day{d}.vis")
        with open(path, "wb") as fh:
            fh.write(u)
            fh.write(v)
            for _ in range(lay.n_channels):
                row.real = rng.standard_normal(out=re, dtype=np.float32)
                row.imag = rng.standard_normal(out=im, dtype=np.float32)
                fh.write(row)
            fh.flush()
            os.fsync(fh.fileno())  # the input data is at rest on the storage before the pipeline starts
        paths.append(path)
    return paths


def _read_day(path: str, lay: Layout, channels: int, buf: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Read a day (or sub-band) file into ``buf`` (reused from file to file) and view it as u, v, visibilities."""
    n4 = lay.n_vis * 4
    nbytes = 2 * n4 + channels * lay.n_vis * BYTES_PER_VIS
    with open(path, "rb", buffering=0) as fh:
        view, got = memoryview(buf)[:nbytes], 0
        while got < nbytes:
            n = fh.readinto(view[got:])
            if not n:
                raise OSError(f"{path}: {got} of {nbytes} bytes")
            got += n
    u = buf[:n4].view(np.int32)
    v = buf[n4:2 * n4].view(np.int32)
    vis = buf[2 * n4:nbytes].view(np.complex64).reshape(channels, lay.n_vis)
    return u, v, vis


def write_arrays(path: str, *arrays: np.ndarray) -> None:
    """Write the arrays' bytes, one after another, to a new file (through the page cache, as any program does)."""
    with open(path, "wb") as fh:
        for a in arrays:
            fh.write(a)


def file_io_rates(directory: str, lay: Layout, *, settle_s: float | None = None, first_touch_bytes: int = 0) -> dict:
    """The pipeline's own file operations, timed on this host at its file sizes and volumes, in its order: COPY's
    copy of a cached day file to a new file, SPLIT's writes of sub-band files, INVERT's reads of them into a reused
    buffer.  Each rate is bytes over the operation's time less the time spent waiting for a CPU held by other
    processes.  (Writing new files through the page cache costs far more than rewriting cached pages — fio's
    figure — and copying in the kernel less than reading and writing: only the same calls give the same costs.)

    The copies and writes start from memory at rest (:func:`~.memory.at_rest`, ``settle_s`` overrides its wait), as
    the timed pipeline does, and nothing is freed between them: on a host that hands freed memory back to its
    hypervisor, new page-cache pages cost ten times more than pages freed a second earlier.  With
    ``first_touch_bytes``, the first touch of that much new array memory is timed too, in the same state
    (:func:`~.memory.first_touch_rate`), after the writes."""
    os.makedirs(directory, exist_ok=True)
    source = os.path.join(directory, "day")
    day = np.ones(lay.day_bytes, dtype=np.uint8)
    write_arrays(source, day)
    del day
    n4 = lay.n_vis * 4
    sub = np.ones(lay.subband_bytes, dtype=np.uint8)
    u, v, block = sub[:n4], sub[n4:2 * n4], sub[2 * n4:]
    buf = np.empty(lay.subband_bytes, dtype=np.uint8)
    files = [os.path.join(directory, f"sb{i}") for i in range(lay.n_days * lay.n_subbands)]

    def timed(fn) -> float:
        w0, t0 = _thread_times()[0], time.perf_counter()
        fn()
        return time.perf_counter() - t0 - (_thread_times()[0] - w0)

    with at_rest(directory, settle_s=settle_s) as rest:
        copy_s = timed(lambda: [shutil.copyfile(source, os.path.join(directory, f"copy{d}"))
                                for d in range(lay.n_days)])
        write_s = timed(lambda: [write_arrays(f, u, v, block) for f in files])
        memory = first_touch_rate(first_touch_bytes) if first_touch_bytes else None
    read_s = timed(lambda: [_read_day(f, lay, lay.channels_per_subband, buf) for f in files])
    return {"copy_bytes_per_s": lay.n_days * lay.day_bytes / copy_s,
            "write_bytes_per_s": len(files) * lay.subband_bytes / write_s,
            "read_bytes_per_s": len(files) * lay.subband_bytes / read_s,
            "memory": memory, "at_rest": rest, "tool": "the mini-pipeline's own file operations (page cache)"}


def _thread_times() -> tuple[float, float]:
    """(seconds this thread spent runnable but waiting for a CPU that other processes held — the kernel's
    run-queue delay —, seconds of system time), 0 where the kernel does not say."""
    try:
        with open("/proc/thread-self/schedstat") as fh:
            wait = int(fh.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        wait = 0.0
    return wait, resource.getrusage(resource.RUSAGE_THREAD).ru_stime


def run_minipipeline(scratch: str, lay: Layout, *, sample_path: str | None = None, progress: Progress = None,
                     settle_s: float | None = None) -> dict:
    """Generate the data, bring free memory to rest (:func:`~.memory.at_rest`; ``settle_s`` overrides its wait), run
    the four stages, return per-task timings (seconds since the copy started)."""
    src, work = os.path.join(scratch, "source"), os.path.join(scratch, "work")
    os.makedirs(src, exist_ok=True)
    os.makedirs(work, exist_ok=True)
    t_gen = time.perf_counter()
    days = _generate(src, lay)
    generate_s = time.perf_counter() - t_gen
    counts = work_counts(lay)
    total = sum(int(c["n_tasks"]) for c in counts.values())
    tasks: list[dict] = []
    with contextlib.ExitStack() as stack:
        rest = stack.enter_context(at_rest(scratch, settle_s=settle_s))
        sampler = stack.enter_context(ProcSampler(sample_path)) if sample_path else None
        t0 = time.perf_counter()
        times = [_thread_times()]

        def record(stage: str, label: str, start: float) -> None:
            times.append(_thread_times())
            tasks.append({"stage": stage, "label": label, "start_s": start - t0, "end_s": time.perf_counter() - t0,
                          "runqueue_wait_s": times[-1][0] - times[-2][0], "system_s": times[-1][1] - times[-2][1]})
            if progress:
                progress(len(tasks), total)

        copies = []
        for d, path in enumerate(days):
            s = time.perf_counter()
            dest = os.path.join(work, os.path.basename(path))
            shutil.copyfile(path, dest)
            copies.append(dest)
            record("copy", f"day {d}", s)
        cps = lay.channels_per_subband
        # one read buffer and one regrid buffer per stage, reused by every task of the stage (as the simulator's
        # per-task demands assume: bytes moved and kernel work, no per-task allocation)
        day_buf = np.empty(lay.day_bytes, dtype=np.uint8)
        spectrum, regridded = (np.empty((cps, lay.n_vis), dtype=np.complex64) for _ in range(2))
        for d, path in enumerate(copies):
            s = time.perf_counter()
            u, v, vis = _read_day(path, lay, lay.n_channels, day_buf)
            for b in range(lay.n_subbands):
                block = regrid(vis[b * cps:(b + 1) * cps], out=regridded, spectrum=spectrum)
                write_arrays(os.path.join(work, f"day{d}.sb{b}"), u, v, block)
            record("split", f"day {d}", s)
        del day_buf, spectrum, regridded
        cubes = []
        sub_buf = np.empty(lay.subband_bytes, dtype=np.uint8)
        for b in range(lay.n_subbands):
            s = time.perf_counter()
            planes = np.zeros((cps, lay.grid, lay.grid), dtype=np.complex64)
            for d in range(lay.n_days):
                u, v, vis = _read_day(os.path.join(work, f"day{d}.sb{b}"), lay, cps, sub_buf)
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
    stages = {}
    for t in tasks:
        st = stages.setdefault(t["stage"], {"start_s": t["start_s"], "end_s": t["end_s"], "tasks": 0,
                                            "runqueue_wait_s": 0.0, "system_s": 0.0})
        st["start_s"], st["end_s"] = min(st["start_s"], t["start_s"]), max(st["end_s"], t["end_s"])
        st["tasks"] += 1
        st["runqueue_wait_s"] += t["runqueue_wait_s"]
        st["system_s"] += t["system_s"]
    return {"layout": asdict(lay), "generate_s": generate_s, "at_rest": rest,
            "makespan_s": tasks[-1]["end_s"], "stages": stages,
            "runqueue_wait_s": sum(t["runqueue_wait_s"] for t in tasks), "tasks": tasks,
            "samples": sampler.samples if sampler else 0}


def main(argv: list[str] | None = None) -> None:
    """``python -m apps.benchmarks.probes.minipipeline SCRATCH LAYOUT_JSON``: one untimed run (for a trace)."""
    import json
    import sys

    scratch, layout = (argv if argv is not None else sys.argv[1:])[:2]
    run_minipipeline(scratch, Layout(**json.loads(layout)), settle_s=0.0)


if __name__ == "__main__":
    main()
