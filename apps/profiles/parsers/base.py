"""What every parser shares: the error type naming file and line, chunked reading, progress and cancel."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["ParseError", "Cancelled", "Parsed", "Progress", "read_chunks", "CHUNK_BYTES"]

#: bytes read per chunk: big enough for vectorised work, small enough to keep memory bounded
CHUNK_BYTES = 8 * 1024 * 1024

#: ``progress(bytes_done, bytes_total)``; may raise :class:`Cancelled` to stop the parse
Progress = Callable[[int, int], None] | None


class ParseError(ValueError):
    """A file is not what its format says: names the file, the line (1-based) and what was expected."""

    def __init__(self, filename: str, line: int | None, expected: str):
        self.filename, self.line, self.expected = filename, line, expected
        where = f"{filename}, line {line}" if line else filename
        super().__init__(f"{where}: {expected}")


class Cancelled(Exception):
    """The caller asked the parse to stop (raised from the progress callback)."""


@dataclass
class Parsed:
    """The result of parsing one file: its format, plain metadata, and the frames of its kind.

    ``kind`` is ``samples`` (per-second process samples: ``samples`` frame), ``strace``
    (``aggregates``: classified accesses binned per second, histograms, totals) or ``fio``
    (``jobs`` frame)."""

    format: str
    kind: str
    meta: dict[str, Any] = field(default_factory=dict)
    samples: pd.DataFrame | None = None
    aggregates: dict[str, Any] = field(default_factory=dict)
    jobs: pd.DataFrame | None = None


def read_chunks(path: str | Path, progress: Progress = None, chunk_bytes: int = CHUNK_BYTES) -> Iterator[tuple[int, str]]:
    """Yield ``(first_line_number, text)`` for whole lines of ``path``, ``chunk_bytes`` at a time.

    Text is decoded as Latin-1 (every byte is a character, so no decode error can occur;
    the formats we read are ASCII).  Memory stays at about two chunks whatever the file size."""
    total = Path(path).stat().st_size
    done = 0
    line_no = 1
    tail = b""
    with open(path, "rb") as f:
        while True:
            block = f.read(chunk_bytes)
            if not block:
                break
            done += len(block)
            block = tail + block
            cut = block.rfind(b"\n")
            if cut < 0:
                tail = block
                continue
            tail = block[cut + 1:]
            text = block[: cut + 1].decode("latin-1")
            yield line_no, text
            line_no += text.count("\n")
            if progress:
                progress(done, total)
    if tail:
        yield line_no, tail.decode("latin-1") + "\n"
    if progress:
        progress(total, total)
