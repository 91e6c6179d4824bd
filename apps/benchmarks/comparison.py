"""Model vs measurement for the mini-pipeline on this host, without the ORM.

The prediction's inputs are measured separately from the timed run, on the same code paths the pipeline takes:

* its kernels, called as the pipeline calls them, at its own sizes (:func:`~.probes.cpu.kernel_rates`);
* the first touch of new memory the size of its largest buffers (:func:`~.probes.memory.first_touch_rate`);
* its own file operations at its file sizes and volumes (:func:`~.probes.minipipeline.file_io_rates`): copying a
  cached file to a new one, writing new files, reading cached files — all through the page cache, as the
  pipeline's files fit in memory.  fio's figures (O_DIRECT, or rewriting cached pages) measure other paths:
  on this project's VM, writing new files through the page cache ran at 0.4–0.8 GB/s where fio rewrote cached
  pages at 3.7 GB/s.

Both the file-operation probes and the timed pipeline start from free memory *at rest*
(:func:`~.probes.memory.at_rest`): on a virtual machine that hands freed memory back to its hypervisor, a new
page-cache page costs ten times more once the memory it takes was reported free, so the probes and the run must
find the same state for their rates to carry over.

The page-cache rates hold while the pipeline's unwritten (dirty) data stays under the kernel's background
writeback threshold; past it the kernel writes back to the device while the pipeline runs, which the model does
not include — the result then says so (``notes``).

The worker's benchmark service and ``bench/minipipeline.py`` both call these functions.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from .prediction import predict_minipipeline
from .probes.cpu import kernel_rates
from .probes.minipipeline import Layout, file_io_rates, split_buffer_bytes, work_counts

__all__ = ["prediction_inputs", "compare", "background_writeback_bytes", "stage_rows", "input_rows", "stage_order"]



def prediction_inputs(scratch: str, lay: Layout, *, kernel_seconds: float = 1.0,
                      progress: Callable[[int, int], None] | None = None) -> dict:
    """Measure what the prediction divides the pipeline's work by: kernel, new-memory and file-operation rates."""
    rates = kernel_rates(seconds=kernel_seconds, n_vis=lay.n_vis)
    if progress:
        progress(1, 3)
    # file operations and new array memory from memory at rest, as the timed pipeline finds it
    io = file_io_rates(scratch, lay, first_touch_bytes=split_buffer_bytes(lay))
    rates["copy_bytes_per_s"] = io["copy_bytes_per_s"]
    if progress:
        progress(2, 3)
    memory = io["memory"]
    rates["first_touch_bytes_per_s"] = memory["first_touch_bytes_per_s"]
    if progress:
        progress(3, 3)
    storage = {"tool": io["tool"], "direct_io": False, "directory": scratch, "points": [
        {"pattern": "seq_read", "jobs": 1, "bytes_per_s": io["read_bytes_per_s"], "iops": None},
        {"pattern": "seq_write", "jobs": 1, "bytes_per_s": io["write_bytes_per_s"], "iops": None}]}
    return {"storage": storage, "kernel_rates": rates, "memory": memory}


def background_writeback_bytes() -> int | None:
    """Dirty page-cache bytes past which the kernel starts writing back in the background (Linux), else None."""
    try:
        with open("/proc/vmstat") as fh:
            for line in fh:
                if line.startswith("nr_dirty_background_threshold "):
                    return int(line.split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return None
    return None


def _pct(predicted: float, measured: float) -> float | None:
    return 100.0 * (predicted - measured) / measured if measured > 0 else None


def compare(slug: str, host: dict, inputs: dict, measured: dict, lay: Layout) -> dict:
    """The simulator's prediction beside the timed run, per stage and in total, with the error in percent.

    The prediction is for the host to itself; where other processes held the CPU the measured time includes
    their share (the run-queue wait), so each stage is compared both with its wall-clock time and with that
    time less the run-queue wait (``dedicated_s``)."""
    predicted = predict_minipipeline(slug, host, inputs["storage"], inputs["kernel_rates"], lay)
    stages = {}
    for name, m in measured["stages"].items():
        measured_s = m["end_s"] - m["start_s"]
        dedicated_s = measured_s - m.get("runqueue_wait_s", 0.0)
        predicted_s = predicted["stages"].get(name, {}).get("task_seconds", 0.0)
        stages[name] = {"measured_s": measured_s, "dedicated_s": dedicated_s, "predicted_s": predicted_s,
                        "error_pct": _pct(predicted_s, measured_s),
                        "dedicated_error_pct": _pct(predicted_s, dedicated_s)}
    notes = []
    dirty_bytes = sum(c["write"] * c["n_tasks"] for c in work_counts(lay).values())
    threshold = background_writeback_bytes()
    if threshold is not None and dirty_bytes >= threshold:
        notes.append(f"the pipeline writes {dirty_bytes / 2**30:.2f} GiB, past this host's background writeback "
                     f"threshold ({threshold / 2**30:.2f} GiB): the kernel writes back to the device during the run, "
                     f"which the prediction (page-cache rates) does not include")
    total = predicted["sequential_s"]
    dedicated = measured["makespan_s"] - measured.get("runqueue_wait_s", 0.0)
    return {"predicted": predicted, "stages": stages, "measured_dedicated_s": dedicated, "notes": notes,
            "prediction_error_pct": _pct(total, measured["makespan_s"]),
            "dedicated_error_pct": _pct(total, dedicated)}


def stage_order(result: dict) -> list[str]:
    """The stages in the order they ran (a stored result's keys come back in PostgreSQL's JSONB order)."""
    measured = result.get("measured", {}).get("stages", {})
    return sorted(result.get("stages", measured), key=lambda name: measured.get(name, {}).get("start_s", 0.0))


#: prediction inputs for display: key -> (label, scale, unit)
_INPUT_LABELS = {
    "regrid_values_per_s": ("FFT regrid (SPLIT), one core", 1e6, "M values/s"),
    "grid_vis_per_s": ("gridding (INVERT), one core", 1e6, "M visibilities/s"),
    "fft_cells_per_s": ("2-D FFT (INVERT), one core", 1e6, "M cells/s"),
    "copy_bytes_per_s": ("copy of a cached file to a new one (COPY)", 1e6, "MB/s"),
    "first_touch_bytes_per_s": ("first touch of new array memory", 1e6, "MB/s"),
    "seq_write": ("writing new files (SPLIT, INVERT, CONCAT)", 1e6, "MB/s"),
    "seq_read": ("reading cached files", 1e6, "MB/s"),
}


def input_rows(result: dict) -> list[dict]:
    """The rates a stored mini-pipeline prediction divided the work by, labelled, in MB/s or millions per second."""
    values = dict(result.get("kernel_rates", {}))
    values.update({p["pattern"]: p["bytes_per_s"] for p in result.get("storage", {}).get("points", [])})
    return [{"label": label, "value": values[key] / scale, "unit": unit}
            for key, (label, scale, unit) in _INPUT_LABELS.items() if values.get(key) is not None]


def stage_rows(result: dict) -> list[dict]:
    """A stored mini-pipeline result's comparison, one row per stage (in run order) with its predicted parts."""
    predicted = result.get("predicted", {}).get("stages", {})
    rows = []
    for name in stage_order(result):
        st = result["stages"][name]
        parts = predicted.get(name, {}).get("parts", {})
        rows.append({**st, "name": name, "parts": [
            {"name": part.split(":", 1)[-1], "task_seconds": x["task_seconds"], "bound": x.get("bound", "")}
            for part, x in parts.items()]})
    return rows
