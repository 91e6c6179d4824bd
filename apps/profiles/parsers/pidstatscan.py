"""Vectorised reading of pidstat text: a chunk's data lines grouped by the header they sit under, each
group read at once by pandas' C reader (whitespace-separated), times decoded with numpy.

:func:`read_chunk` returns the chunk's rows in file order as one frame (``line``, ``clock``, ``epoch``,
``pid`` and the wanted columns in base units), or ``None`` when the chunk holds anything it does not
know for certain (a short or long row, a command line with spaces from ``-l``, a value that is not a
finite number) — the caller then reads the file line by line, which names the line at fault.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

__all__ = ["read_chunk", "ID_COLUMNS"]

#: the column after the time in every pidstat report header (UID, USER with -U) or the process's id
ID_COLUMNS = (b"UID", b"USER", b"PID", b"TGID")
#: what marks a line that may be a header: " UID ", " PID " and " TGID " all hold "ID ", and pidstat prints
#: PID or TGID after USER, so one pass over the chunk finds every header (lines marked that are not headers
#: are data, as before; a header the mark misses fails to read as data and sends the file line by line)
_MARKS = (b"ID ",)


def _header(tokens: list[bytes]) -> list[str] | None:
    """Column names from a header line's tokens (the time token(s) first); None when it is not one."""
    rest = tokens[1:]
    if rest[:1] in ([b"AM"], [b"PM"]):
        rest = rest[1:]
    if not rest or rest[0] not in ID_COLUMNS:
        return None
    return ["Time"] + [t.decode("latin-1") for t in rest]


def read_chunk(data: bytes, header: list[str] | None, wanted: dict[str, tuple[str, float]]
               ) -> tuple[pd.DataFrame | None, list[str] | None, list[bytes]]:
    """The rows of a chunk of whole lines (see the module docstring), the header in force at its end, and the
    banner lines (``Linux ...``) it holds."""
    banners: list[bytes] = []
    buf = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(buf == 10)
    if not len(ends) or ends[-1] != len(data) - 1:
        return None, header, banners
    starts = np.r_[0, ends[:-1] + 1]
    nonempty = ends > starts
    starts, ends = starts[nonempty], ends[nonempty]
    first = buf[starts]
    digit = (first >= 48) & (first <= 57)
    # the few lines that are not data: headers ('#', or a time then UID/USER/PID/TGID), the banner, averages
    special = np.flatnonzero(~digit)
    marks = set()
    for word in _MARKS:
        at = data.find(word)
        while at >= 0:
            marks.add(at)
            at = data.find(word, at + 1)
    candidates = np.unique(np.r_[special, np.searchsorted(starts, np.array(sorted(marks), dtype=np.int64),
                                                          side="right") - 1]).astype(np.int64)
    header_at: list[int] = []
    header_names: list[list[str] | None] = []
    is_data = digit.copy()
    for i in candidates.tolist():
        line = data[starts[i]:ends[i]]
        if line[:1] == b"#":
            tokens = line[1:].split()
            names = _header(tokens) if tokens[:1] == [b"Time"] else None
            if names is None:
                return None, header, banners
        elif line[:1].isdigit():
            names = _header(line.split())
            if names is None:
                continue  # a data line whose command names a column
        elif line.startswith(b"Linux "):
            banners.append(line)
            is_data[i] = False
            continue
        elif line.startswith(b"Average:") or not line.strip():
            is_data[i] = False
            continue
        else:
            return None, header, banners
        is_data[i] = False
        header_at.append(i)
        header_names.append(names)
    rows = np.flatnonzero(is_data)
    if not len(rows):
        return pd.DataFrame(), header_names[-1] if header_names else header, banners
    # each data line belongs to the last header before it (the chunk's first lines: the header carried in)
    which = np.searchsorted(np.array(header_at, dtype=np.int64), rows, side="right") - 1
    keys = [tuple(header)] if header else [None]
    keys += [tuple(n) for n in header_names]
    group_of = which + 1
    if keys[0] is None and (group_of == 0).any():
        return None, header, banners
    by_key: dict[tuple[str, ...], list[np.ndarray]] = {}
    for g in np.unique(group_of).tolist():
        by_key.setdefault(keys[g], []).append(rows[group_of == g])
    frames = []
    for names, parts in by_key.items():
        members = np.sort(np.concatenate(parts)) if len(parts) > 1 else parts[0]
        first_line = data[starts[members[0]]:ends[members[0]]]
        others = np.ones(len(starts), dtype=bool)
        others[members] = False
        frame = _read_group(list(names), _group_text(buf, starts[others], ends[others]), first_line,
                            members, wanted, _clock_bytes(buf, starts[members], ends[members]))
        if frame is None:
            return None, header, banners
        frames.append(frame)
    out = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    end_header = header_names[-1] if header_names else header
    return out.sort_values("line", kind="stable", ignore_index=True), end_header, banners


def _clock_bytes(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """The ``HH:MM:SS`` stamps opening the lines ``[starts, ends)``, as an (n, 8) array of bytes, when every
    line opens with eight bytes, colons third and sixth, then a space (else None: the time is read as text)."""
    if not len(starts) or (ends - starts < 9).any():
        return None
    if not ((buf[starts + 2] == 58) & (buf[starts + 5] == 58) & (buf[starts + 8] == 32)).all():
        return None
    return buf[starts[:, None] + np.arange(8)]


def _group_text(buf: np.ndarray, skip_starts: np.ndarray, skip_ends: np.ndarray) -> tuple[bytes, str]:
    """The lines of ``buf`` but those ``[skip_starts, skip_ends)`` (left as empty lines, which pandas skips) as
    one text for pandas, and its separator.

    pidstat pads its columns with runs of spaces; pandas' whitespace reader tokenises them byte by byte, so
    each run becomes one space (and spaces ending a line go), all at once with numpy, and the text
    is read with a one-space separator: the same fields, about a third fewer bytes, a faster reader.  A text
    holding a tab or a carriage return keeps its spaces and the whitespace separator."""
    drop = np.zeros(len(buf), dtype=bool)
    if len(skip_starts) > 1000:  # many lines of other headers: mark them at once
        delta = np.zeros(len(buf) + 1, dtype=np.int8)
        delta[skip_starts] = 1
        delta[skip_ends] -= 1
        drop = np.cumsum(delta[:-1], dtype=np.int8).view(bool)
    else:
        for a, b in zip(skip_starts.tolist(), skip_ends.tolist(), strict=True):
            drop[a:b] = True
    if ((buf == 9).any() or (buf == 13).any()) and (((buf == 9) | (buf == 13)) & ~drop).any():
        return buf[~drop].tobytes(), r"\s+"
    # each run of spaces keeps its last one, unless the line ends there (the lines read open with a digit)
    space = buf == 32
    drop[:-1] |= space[:-1] & (space[1:] | (buf[1:] == 10))
    return buf[~drop].tobytes(), " "


def _read_group(names: list[str], group: tuple[bytes, str], first_line: bytes, where: np.ndarray,
                wanted: dict[str, tuple[str, float]], stamps: np.ndarray | None) -> pd.DataFrame | None:
    """One header's data lines as rows (``group``: their text and separator from :func:`_group_text`;
    ``stamps``: their ``HH:MM:SS`` bytes from :func:`_clock_bytes`, so pandas need not read the times as
    text); None when a value does not read as the per-line parser would."""
    text, sep = group
    ampm = first_line.split(None, 2)[1:2] in ([b"AM"], [b"PM"])
    cols = ["Time", "AMPM", *names[1:]] if ampm else names
    if len(set(cols)) != len(cols):
        return None
    if ampm:
        stamps = None
    pid_col = "PID" if "PID" in cols else "TGID" if "TGID" in cols else None
    use = ([] if stamps is not None else ["Time"]) + (["AMPM"] if ampm else []) + ([pid_col] if pid_col else []) \
        + (["TID"] if "TID" in cols else [])
    metrics = [c for c in wanted if c in cols]
    try:
        frame = pd.read_csv(io.BytesIO(text), sep=sep, header=None, names=cols,
                            usecols=use + metrics, dtype={**{c: str for c in use}, **{c: float for c in metrics}},
                            engine="c", na_filter=False)
    except (ValueError, pd.errors.ParserError):
        return None
    if len(frame) != len(where):
        return None
    values = {c: frame[c].to_numpy(dtype=float) for c in metrics}
    if any(not np.isfinite(v).all() for v in values.values()):
        return None
    keep = np.ones(len(frame), dtype=bool)
    if "TID" in cols:
        keep = frame["TID"].to_numpy() == "-"  # -t: the process rows; its threads' rows are parts of them
    if stamps is not None:
        raw = np.concatenate([stamps, np.zeros((len(stamps), 1), dtype=np.uint8)], axis=1)
    else:
        raw = np.frombuffer(frame["Time"].to_numpy().astype("S9").tobytes(), dtype=np.uint8).reshape(-1, 9)
    digits = raw.astype(np.int64) - 48
    clock_like = (raw[:, 2] == 58) & (raw[:, 5] == 58) & (raw[:, 8] == 0)
    if clock_like.all():
        d = digits[:, [0, 1, 3, 4, 6, 7]]
        if ((d < 0) | (d > 9)).any():
            return None
        hours = d[:, 0] * 10 + d[:, 1]
        if ampm:
            tag = frame["AMPM"].to_numpy()
            if not np.isin(tag, ["AM", "PM"]).all():
                return None
            hours = hours % 12 + 12 * (tag == "PM")
        clock = (hours * 3600 + (d[:, 2] * 10 + d[:, 3]) * 60 + d[:, 4] * 10 + d[:, 5]).astype(float)
        epoch = False
    else:
        text = frame["Time"]
        if not text.str.isdigit().all():
            return None
        clock = text.to_numpy(dtype=float)
        epoch = True
    out = {"line": np.asarray(where, dtype=np.int64)[keep], "clock": clock[keep],
           "epoch": np.full(int(keep.sum()), epoch), "pid": frame[pid_col].to_numpy()[keep] if pid_col else None}
    for src, v in values.items():
        dst, factor = wanted[src]
        out[dst] = v[keep] * factor
    if out["pid"] is None:
        out["pid"] = np.full(int(keep.sum()), "")
    return pd.DataFrame(out)
