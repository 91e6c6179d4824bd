"""Impossible values in a parsed profile, refused before anything is saved (naming the file and, where the
format has lines, the line).

The parsers read what a file says; this is the boundary where the import checks that what they read can be
true: no negative, NaN or infinite duration, no system call far longer than the whole trace, no size a
system call cannot return (over ``SSIZE_MAX``), and — for every format — no number in the analysis that is
not finite or that PostgreSQL could not hold.  Without it a trace line ``read(3, ..., 4096) = 4096 <-5.0>``
or ``= 18446744073709551616`` was imported (busy 1e11 s in a 3 s trace) and ``<nan>`` failed with the raw
database error.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from apps.profiles.parsers import Parsed, ParseError
from apps.profiles.parsers.base import read_byte_chunks

__all__ = ["check_parsed", "check_analysis", "SSIZE_MAX"]

#: the largest byte count a read or write can ask for or return (``ssize_t`` on 64-bit Linux)
SSIZE_MAX = 2**63 - 1

# a line's ``<duration>`` worth a closer look: a sign, a letter (nan, inf, an exponent) or one second or more
# (strace's own "<unfinished ...>" and "<detached ...>" end lines too: they are not durations)
_ODD_DURATION = re.compile(
    rb"<(?!unfinished \.\.\.>|detached \.\.\.>)(-[^<>\n]*|[^<>\n]*[A-Za-z][^<>\n]*|\+[^<>\n]*|[1-9][0-9]*\.[0-9]*)>\r?$",
    re.M)
# a size argument or result of 19 digits or more (SSIZE_MAX has 19)
_LONG_SIZE = re.compile(rb"(?:, ([0-9]{19,})\) = -?[0-9]+|\) = ([0-9]{19,}))(?: <[^<>\n]*>)?\r?$", re.M)


def _longest_call_s(span_s: float) -> float:
    """The longest call a trace whose stamps span ``span_s`` can hold.  A line is stamped with its call's start, so
    the last call may outlast the stamps; the margin is generous (only the absurd is refused)."""
    return 2.0 * span_s + 60.0


def _line(data: bytes, at: int, first_line: int) -> int:
    return first_line + data.count(b"\n", 0, at)


def _check_strace(path: str | Path, filename: str, span_s: float) -> None:
    """Scan a trace for durations and sizes no system call can have; raises ParseError naming the first."""
    first_line = 1
    for _, data in read_byte_chunks(path):
        for m in _ODD_DURATION.finditer(data):
            text = m.group(1).decode("latin-1")
            try:
                seconds = float(text)
            except ValueError:
                seconds = math.nan
            if not math.isfinite(seconds) or seconds < 0:
                raise ParseError(filename, _line(data, m.start(), first_line),
                                 f"a system call duration of zero or more seconds, got <{text}>")
            if seconds > _longest_call_s(span_s):
                raise ParseError(filename, _line(data, m.start(), first_line),
                                 f"a system call duration the trace can hold (its lines span {span_s:.6g} s), "
                                 f"got <{text}>")
        for m in _LONG_SIZE.finditer(data):
            text = (m.group(1) or m.group(2)).decode("ascii")
            if int(text) > SSIZE_MAX:
                raise ParseError(filename, _line(data, m.start(), first_line),
                                 f"a size a system call can take or return (at most {SSIZE_MAX} bytes), got {text}")
        first_line += data.count(b"\n")


def check_parsed(parsed: Parsed, path: str | Path, filename: str) -> None:
    """Refuse a parse holding impossible values (ParseError naming file and line)."""
    if parsed.kind == "strace":
        span = parsed.meta.get("duration_s") or parsed.aggregates.get("duration_s") or 0.0
        _check_strace(path, filename, float(span) if math.isfinite(float(span)) else 0.0)


def _bad_numbers(value: Any, where: str):
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        if not math.isfinite(value) or abs(value) > SSIZE_MAX:
            yield where, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _bad_numbers(v, f"{where}.{k}" if where else str(k))
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            yield from _bad_numbers(v, f"{where}[{i}]")


def check_analysis(analysis: dict, filename: str) -> None:
    """Refuse an analysis with a number that is not finite or past what can be stored (the last guard before
    the database: whatever a parser let through, the user sees the file and the value, never a database
    error)."""
    for where, value in _bad_numbers(analysis, ""):
        raise ParseError(filename, None, f"finite values of a plausible size; its analysis has {where} = {value!r}")
