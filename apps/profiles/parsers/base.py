"""What every parser shares: the error type naming file and line, chunked reading, progress and cancel."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["ParseError", "Cancelled", "Parsed", "Progress", "read_chunks", "read_byte_chunks", "line_at", "CHUNK_BYTES",
           "last_line"]

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
    line_no = 1
    for _, body in read_byte_chunks(path, progress, chunk_bytes):
        text = body.decode("latin-1")
        yield line_no, text
        line_no += body.count(b"\n")


def read_byte_chunks(path: str | Path, progress: Progress = None, chunk_bytes: int = CHUNK_BYTES,
                     limit: int | None = None) -> Iterator[tuple[int, bytes]]:
    """Yield ``(byte_offset, data)`` for whole lines of ``path`` (its first ``limit`` bytes when given);
    :func:`line_at` names a line on error."""
    total = Path(path).stat().st_size
    size = total if limit is None else min(limit, total)
    done = 0
    offset = 0
    tail = b""
    # the file is read into one buffer, kept from chunk to chunk, after the part line left from the previous
    # read; each chunk is then one copy out of it (reading into fresh bytes, joining the part line and cutting
    # at the last newline made three new chunk-sized objects, whose pages the kernel zeroes each time)
    buf = bytearray(chunk_bytes)
    with open(path, "rb") as f:
        while True:
            want = min(chunk_bytes, size - done)
            if want <= 0:
                break
            if len(tail) + want > len(buf):  # a line longer than a chunk: the buffer grows with it
                buf = bytearray(len(tail) + want)
            view = memoryview(buf)
            view[:len(tail)] = tail
            got = f.readinto(view[len(tail):len(tail) + want])
            view.release()
            if not got:
                break
            done += got
            filled = len(tail) + got
            cut = buf.rfind(b"\n", 0, filled)
            if cut < 0:
                tail = bytes(buf[:filled])
                continue
            with memoryview(buf) as view:
                data = bytes(view[:cut + 1])
                tail = bytes(view[cut + 1:filled])
            yield offset, data
            del data
            offset += cut + 1
            if progress:
                progress(done, total)
    if tail:
        yield offset, tail + b"\n"
    if progress:
        progress(total, total)


def line_at(path: str | Path, byte_offset: int) -> int:
    """The 1-based line number of the line starting at ``byte_offset`` (counted only when an error needs it)."""
    line = 1
    left = byte_offset
    with open(path, "rb") as f:
        while left > 0:
            block = f.read(min(left, CHUNK_BYTES))
            if not block:
                break
            line += block.count(b"\n")
            left -= len(block)
    return line


def last_line(path: str | Path) -> tuple[int, bytes, bool]:
    """The last non-empty line of ``path``: its byte offset, its bytes (without the newline) and whether the
    file ends with a newline after it (a writer killed mid-line leaves none)."""
    size = Path(path).stat().st_size
    with open(path, "rb") as f:
        back = min(size, 64 * 1024)
        while True:
            f.seek(size - back)
            block = f.read(back)
            body = block.rstrip(b"\r\n")
            cut = body.rfind(b"\n")
            if cut >= 0 or back == size:
                return size - back + cut + 1, body[cut + 1:], block.endswith(b"\n")
            back = min(size, back * 4)
