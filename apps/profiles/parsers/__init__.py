"""Profile parsers: format detection and one entry point, :func:`parse`.

Each parser reads its file in chunks (memory bounded by the chunk size and the kept
aggregates), reports progress through a callback, and raises :class:`ParseError` naming the
file, the line and what was expected.  Nothing here touches Django.
"""

from __future__ import annotations

from pathlib import Path

from .base import Cancelled, Parsed, ParseError, Progress
from .darshan import looks_like_darshan, parse_darshan
from .fio import parse_fio
from .samples import CHILES_HEADER, SKYPLAN_COLUMNS, SKYPLAN_MARKER, parse_chiles_csv, parse_pidstat, parse_skyplan_csv
from .strace import RELATIVE, looks_like_strace, looks_relative, parse_strace

__all__ = ["FORMATS", "FORMAT_LABELS", "detect_format", "parse", "ParseError", "Cancelled", "Parsed"]

PARSERS = {
    "skyplan_csv": parse_skyplan_csv,
    "chiles_csv": parse_chiles_csv,
    "pidstat": parse_pidstat,
    "strace": parse_strace,
    "fio": parse_fio,
    "darshan": parse_darshan,
}
FORMAT_LABELS = {
    "auto": "detect from the content",
    "skyplan_csv": "Skyplan per-second CSV",
    "chiles_csv": "CHILES tracer CSV",
    "pidstat": "pidstat text (-u, -r, -d, -t..., with or without -h)",
    "strace": "strace -f -tt -T / -ttt -T -y text (-o FILE or the terminal's layout)",
    "fio": "fio JSON",
    "darshan": "Darshan 3.x log (read with PyDarshan)",
}
FORMATS = tuple(PARSERS)
HEAD_BYTES = 64 * 1024


def _pidstat_header(line: str) -> bool:
    """A pidstat report header: ``# Time UID PID ...`` (-h) or ``HH:MM:SS [AM] UID PID ...`` (without -h)."""
    tokens = line.lstrip("#").split()
    if tokens[:1] == ["Time"]:
        tokens = tokens[1:]
    elif tokens and tokens[0].count(":") == 2:
        tokens = tokens[2:] if tokens[1:2] in (["AM"], ["PM"]) else tokens[1:]
    else:
        return False
    return bool(tokens) and tokens[0] in ("UID", "USER", "PID", "TGID")


def detect_format(path: str | Path, filename: str | None = None) -> str:
    """The format of a file from its first 64 KiB; raises ParseError when none fits."""
    filename = filename or Path(path).name
    with open(path, "rb") as f:
        raw = f.read(HEAD_BYTES)
    if not raw.strip():
        raise ParseError(filename, 1, "a profile; the file is empty")
    if looks_like_darshan(raw):
        return "darshan"
    if b"\0" in raw[:4096]:
        raise ParseError(filename, 1, f"a profile ({', '.join(FORMAT_LABELS[f] for f in FORMATS)}); this file is "
                                      "binary but does not start like a Darshan log (version string, magic 6567223)")
    head = raw.decode("latin-1")
    lines = [ln.strip() for ln in head.splitlines() if ln.strip()]
    if not lines:
        raise ParseError(filename, 1, "a profile; the file holds only blank lines and line separators")
    first = lines[0]
    if '"fio version"' in head[:4096]:
        return "fio"
    if first.strip('",') == SKYPLAN_MARKER or first.split(",")[0].strip() == SKYPLAN_COLUMNS[0]:
        return "skyplan_csv"
    if [c.strip().lower() for c in first.split(",")] == [c.lower() for c in CHILES_HEADER]:
        return "chiles_csv"
    if (first.startswith("Linux ") and any(_pidstat_header(ln) for ln in lines[1:6])) or _pidstat_header(first):
        return "pidstat"
    if looks_like_strace(head):
        return "strace"
    if looks_relative(head):
        raise ParseError(filename, 1, RELATIVE)
    raise ParseError(filename, 1, "one of: " + "; ".join(FORMAT_LABELS[f] for f in FORMATS)
                     + f" (see docs/profiles.md); the first line is {first[:80]!r}")


def parse(path: str | Path, fmt: str = "auto", *, filename: str | None = None, progress: Progress = None) -> Parsed:
    """Parse ``path`` as ``fmt`` (``auto`` detects it); ``filename`` names the file in errors."""
    filename = filename or Path(path).name
    if fmt == "auto":
        fmt = detect_format(path, filename)
    if fmt not in PARSERS:
        raise ParseError(filename, None, f"a format among auto, {', '.join(FORMATS)}; got {fmt!r}")
    return PARSERS[fmt](path, filename, progress)
