"""What a run's tasks achieved from storage: read and write bandwidth and random-I/O rates per task, as the run
gave them.

A task's *read seconds* are, summed over its phases, the time from the phase's start until its last read flow
ended (the runner times them, :func:`simulator.runner.run` ``timed_flows``); its read bytes are what its read
flows move (before the per-task storage variability, which models a slower rate, not more bytes).  Its achieved
read bandwidth is bytes / read seconds, so contention on a shared tier, a busy NIC or a per-client cap all show.
Writes likewise (``seq_write``, ``output_write``…, and a stage-out copy, which writes the outputs to their tier):
bytes written / the seconds from each phase's start until its last write flow ended.  Random I/O likewise:
requests / the seconds its random-I/O flows took.

The run's figure is the **median over the tasks that read** (write, or do random I/O): the rate a typical job got,
which a few stragglers or a few tiny reads do not move.  The seconds-weighted mean (all bytes / all read seconds)
is kept beside it.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from simulator.graph import Task

__all__ = ["READ", "WRITE", "OPS", "io_timer", "AchievedIO", "io_amounts", "achieved_io"]

READ = "read"
WRITE = "write"
OPS = "ops"


def io_timer(label: str) -> str | None:
    """The timer of a flow label: random I/O (``rand_write``, ``input_ops``…, ``rand_io``), reads (``seq_read``,
    ``input_read``, ``flag_read``…, and a stage-in copy, which reads the inputs from their tier), writes
    (``seq_write``, ``output_write``…, and a stage-out copy, which writes the outputs to their tier), else ``None``
    (the WAN transfer, shared cores)."""
    if label.endswith("_ops") or label.startswith("rand_"):
        return OPS
    if label.endswith("_read") or label == "stage_in":
        return READ
    if label.endswith("_write") or label == "stage_out":
        return WRITE
    return None


@dataclass(frozen=True)
class AchievedIO:
    """Per-task storage rates a run achieved (``None`` when no task did that kind of I/O).  The write fields come
    last with defaults, so a result stored before writes were timed reads back with them unknown (``None``)."""

    read_tasks: int
    read_bytes: float
    read_seconds: float
    read_bytes_per_s_median: float | None
    read_bytes_per_s_mean: float | None  # all bytes / all read seconds
    ops_tasks: int
    ops: float
    ops_seconds: float
    ops_per_s_median: float | None
    ops_per_s_mean: float | None
    write_tasks: int | None = None
    write_bytes: float | None = None
    write_seconds: float | None = None
    write_bytes_per_s_median: float | None = None
    write_bytes_per_s_mean: float | None = None  # all bytes / all write seconds


def io_amounts(tasks: Sequence[Task]) -> tuple[list[float], list[float], list[float]]:
    """Bytes read, random requests and bytes written per task, from its flows' labels (phase tuples shared by tasks
    read once).  The same for every replication of a model built once (:func:`achieved_io` takes them made)."""
    memo: dict[int, tuple[float, float, float]] = {}
    reads, ops, writes = [0.0] * len(tasks), [0.0] * len(tasks), [0.0] * len(tasks)
    for i, t in enumerate(tasks):
        got = memo.get(id(t.phases))
        if got is None:
            r = o = w = 0.0
            for ph in t.phases:
                for f in ph.flows:
                    kind = io_timer(f.label)
                    if kind == READ:
                        r += f.amount
                    elif kind == OPS:
                        o += f.amount
                    elif kind == WRITE:
                        w += f.amount
            got = memo[id(t.phases)] = (r, o, w)
        reads[i], ops[i], writes[i] = got
    return reads, ops, writes


def _rates(amounts: list[float], seconds: Sequence[float] | None) -> tuple[int, float, float, float | None,
                                                                            float | None]:
    if seconds is None:
        return 0, 0.0, 0.0, None, None
    rates, total, secs = [], 0.0, 0.0
    for a, s in zip(amounts, seconds, strict=True):
        if a > 0 and s > 0:
            rates.append(a / s)
            total += a
            secs += s
    if not rates:
        return 0, 0.0, 0.0, None, None
    return len(rates), total, secs, statistics.median(rates), total / secs


def achieved_io(tasks: Sequence[Task], flow_seconds: dict[str, Sequence[float]],
                amounts: tuple[list[float], list[float], list[float]] | None = None) -> AchievedIO:
    """The run's :class:`AchievedIO` from its graph's tasks (the amounts: ``amounts``, :func:`io_amounts` of
    ``tasks``, when already made) and the runner's timers (the seconds)."""
    reads, ops, writes = io_amounts(tasks) if amounts is None else amounts
    return AchievedIO(*_rates(reads, flow_seconds.get(READ)), *_rates(ops, flow_seconds.get(OPS)),
                      *_rates(writes, flow_seconds.get(WRITE)))
