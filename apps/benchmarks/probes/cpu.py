"""CPU probe: single-core and all-core throughput of the kernels the imaging pipeline spends its time in.

The kernels are the mini-pipeline's own (:mod:`.minipipeline`), timed at a fixed small size: the FFT regrid
along frequency (SPLIT), box-kernel gridding of visibilities (INVERT) and the 2-D FFT of image planes (INVERT).
The rates are what the simulator's prediction divides the mini-pipeline's work by.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np

from .minipipeline import SUPPORT, grid_channel, regrid

__all__ = ["kernel_rates", "cpu_probe"]

N_VIS, CHANNELS, GRID = 65536, 8, 256


def _rate(fn, work: float, seconds: float) -> float:
    """Work per second of the fastest of the calls made in ``seconds`` (at least three): on a shared host the
    fastest call is the one least disturbed by other processes."""
    fn()  # warm up
    count, best, t0 = 0, float("inf"), time.perf_counter()
    while time.perf_counter() - t0 < seconds or count < 3:
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
        count += 1
    return work / best


def kernel_rates(seconds: float = 1.0, n_vis: int = N_VIS) -> dict[str, float]:
    """Work units per second on one core: regridded values, gridded visibilities, FFT cells.

    ``n_vis`` sets the working set (visibilities per channel); rates fall once it outgrows the caches, so the
    mini-pipeline's prediction measures them at its own size.
    """
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    N_VIS = n_vis  # noqa: N806 - the module default, overridden
    rng = np.random.default_rng(0)
    block = (rng.standard_normal((CHANNELS, N_VIS), dtype=np.float32)
             + 1j * rng.standard_normal((CHANNELS, N_VIS), dtype=np.float32)).astype(np.complex64)
    u = rng.integers(SUPPORT, GRID - SUPPORT, N_VIS, dtype=np.int32)
    v = rng.integers(SUPPORT, GRID - SUPPORT, N_VIS, dtype=np.int32)
    plane = np.zeros((GRID, GRID), dtype=np.complex64)
    planes = np.zeros((CHANNELS, GRID, GRID), dtype=np.complex64)
    spectrum, regridded = np.empty_like(block), np.empty_like(block)  # reused, as in the pipeline
    return {
        "regrid_values_per_s": _rate(lambda: regrid(block, out=regridded, spectrum=spectrum), CHANNELS * N_VIS, seconds),
        "grid_vis_per_s": _rate(lambda: grid_channel(plane, u, v, block[0], GRID), N_VIS, seconds),
        "fft_cells_per_s": _rate(lambda: np.fft.fft2(planes, axes=(1, 2)), CHANNELS * GRID * GRID, seconds),
    }


def cpu_probe(seconds: float = 1.0, workers: int | None = None) -> dict:
    """Kernel rates on one core, and summed over one process per usable core."""
    single = kernel_rates(seconds)
    workers = workers or len(os.sched_getaffinity(0))
    # separate interpreters, not a process pool: a Celery prefork child is daemonic and may not fork a pool
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    procs = [subprocess.Popen([sys.executable, "-m", __name__, str(seconds)], stdout=subprocess.PIPE, text=True,
                              env=env, cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
                                  os.path.abspath(__file__)))))) for _ in range(workers)]
    each = []
    for proc in procs:
        out, _ = proc.communicate(timeout=seconds * 10 + 60)
        if proc.returncode != 0:
            raise RuntimeError(f"CPU probe process exited with {proc.returncode}")
        each.append(json.loads(out))
    every = {f"{k}_all": sum(r[k] for r in each) for k in single}
    return {**single, **every, "workers": workers, "kernel_size": {"n_vis": N_VIS, "channels": CHANNELS, "grid": GRID}}


if __name__ == "__main__":
    print(json.dumps(kernel_rates(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)))
