"""strace text (``strace -f -tt -T`` or ``-ttt -T -y``): file accesses classified sequential or random.

Every line is checked against strace's layout (optional PID, a timestamp, then a syscall, an
``<unfinished ...>``/``<... resumed>`` pair, a signal or an exit).  Per open file description
(so ``dup`` and ``fork`` share offsets, as in the kernel) the parser tracks the file offset
through ``open``, ``read``/``write``, ``pread``/``pwrite``, ``lseek`` and ``close``, and
classifies each access:

* **sequential** — it starts where the previous access on that file description ended
  (or at offset 0 for the first one);
* **consecutive** — it re-reads the previous block or skips forward by at most one request
  (near-sequential: counted with sequential in the four classes);
* **random** — anything else.

Accesses to pipes, sockets and terminals are counted but not classified.  Memory-mapped
I/O does not appear in strace and is not seen.  The file is read in chunks; what is kept
are aggregates (per-second bytes per class, request-size and inter-arrival histograms), so
memory does not grow with the file.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np

from .base import Parsed, ParseError, Progress, read_chunks

__all__ = ["parse_strace", "CLASSES", "SIZE_BINS", "IAT_BINS", "looks_like_strace"]

#: the four I/O classes of the paper (§6): sequential/random × read/write
CLASSES = ("seq_read", "rand_read", "seq_write", "rand_write")
#: request-size histogram edges: powers of two from 1 B to 1 GiB
SIZE_BINS = tuple(2.0**k for k in range(0, 31))
#: inter-arrival-time histogram edges (seconds), log-spaced 1e-7 .. 1e3
IAT_BINS = tuple(10.0 ** (k / 4) for k in range(-28, 13))

_PREFIX = r"^(?:\[pid +(\d+)\] |(\d+) +)?(\d+:\d\d:\d\d\.\d+|\d+\.\d+) "
_LINE = re.compile(
    _PREFIX + r"(?:"
    r"(\w+)\((.*)\) += (-?\d+|\?|0x[0-9a-fA-F]+)(.*?)(?: <(\d+\.\d+)>)?"  # complete call
    r"|(\w+)\((.*) <unfinished \.\.\.>"  # unfinished
    r"|<\.\.\. (\w+) resumed>(.*)\) += (-?\d+|\?|0x[0-9a-fA-F]+)(.*?)(?: <(\d+\.\d+)>)?"  # resumed
    r"|(--- .* ---|\+\+\+ .* \+\+\+)"  # signal or exit
    r")$"
)
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')
_FD_PATH = re.compile(r"^(-?\d+)(?:<(.*)>)?")
_LAST_NUM = re.compile(r", (-?\d+)$")

_READS = {"read": False, "readv": False, "pread64": True, "preadv": True, "preadv2": True}
_WRITES = {"write": False, "writev": False, "pwrite64": True, "pwritev": True, "pwritev2": True}
_RW = {**{k: (False, v) for k, v in _READS.items()}, **{k: (True, v) for k, v in _WRITES.items()}}
_OPENS = {"open", "openat", "creat", "openat2"}
_DUPS = {"dup", "dup2", "dup3"}
_FORKS = {"clone", "clone3", "fork", "vfork"}
_SEQ, _CONSEC, _RAND = 0, 1, 2
_NOT_FILE = ("pipe:", "socket:", "anon_inode:", "/dev/")

#: what one strace line must look like, for error messages
EXPECTED = ("a strace line: [PID] TIME syscall(args) = result [<seconds>], "
            "'<unfinished ...>', '<... syscall resumed>', '--- SIGNAL ---' or '+++ exited +++'")


def looks_like_strace(head: str) -> bool:
    """Whether the first lines of a file are strace output with timestamps."""
    lines = [ln for ln in head.splitlines()[:20] if ln.strip()]
    if not lines:
        return False
    if len(lines) > 1:
        lines = lines[:-1]  # the last line of a head may be cut
    return sum(1 for ln in lines if _LINE.match(ln)) >= max(1, int(0.8 * len(lines)))


class _OFD:
    """An open file description: path, current offset and where its last access ended."""

    __slots__ = ("path", "offset", "is_file", "last_start", "last_end", "last_size", "counts")

    def __init__(self, path: str | None, is_file: bool, offset: int | None = 0):
        self.path, self.is_file, self.offset = path, is_file, offset
        self.last_start = self.last_end = self.last_size = None
        self.counts = [0, 0, 0, 0, 0]  # requests per class (CLASSES order) and bytes, not yet added to the file


def _fd_and_path(arg0: str) -> tuple[int, str | None]:
    m = _FD_PATH.match(arg0)
    if not m:
        raise ValueError
    return int(m.group(1)), m.group(2)


class _Tracker:
    """Offset tracking and classification of the cold-path calls; holds the current chunk's accesses."""

    def __init__(self, filename: str):
        self.filename = filename
        self.tables: dict[int, dict[int, _OFD]] = {}  # fd table per pid (shared by CLONE_FILES threads)
        self.pending: dict[int, tuple[str, str, float]] = {}  # pid -> unfinished (name, args, start)
        self.t0: float | None = None
        self.calls: Counter = Counter()
        self.pids: set[int] = set()
        self.signals = 0
        self.exits = 0
        self.other_io_bytes = 0
        self.paths: dict[str, list[int]] = {}
        self.new_chunk()

    def flush(self, o: _OFD) -> None:
        """Add an open file description's counts to its file (at most 1,000 distinct files are kept)."""
        c = o.counts
        if not c[4]:
            return
        key = o.path or "(opened before the trace)"
        row = self.paths.get(key)
        if row is None:
            if len(self.paths) >= 1000:
                return
            row = self.paths[key] = [0, 0, 0, 0, 0]
        for i in range(5):
            row[i] += c[i]
        o.counts = [0, 0, 0, 0, 0]

    def flush_all(self) -> None:
        seen = set()
        for tab in self.tables.values():
            for o in tab.values():
                if id(o) not in seen:
                    seen.add(id(o))
                    self.flush(o)

    def new_chunk(self) -> None:
        self.rows: list[tuple[float, float, int, int, bool]] = []  # (start s, duration s, bytes, kind, write)

    def table(self, pid: int) -> dict[int, _OFD]:
        tab = self.tables.get(pid)
        if tab is None:
            tab = self.tables[pid] = {}
        return tab

    def ofd(self, pid: int, fd: int, path: str | None) -> _OFD:
        tab = self.table(pid)
        o = tab.get(fd)
        if o is None or (path is not None and o.path is not None and o.path != path):
            if path is not None:
                is_file = not path.startswith(_NOT_FILE)
            else:
                is_file = fd > 2
            if o is not None:
                self.flush(o)
            o = tab[fd] = _OFD(path, is_file, None)  # opened before the trace began: offset unknown
        return o

    def call(self, pid: int, name: str, args: str, ret: str, t: float, dur: float, line_no: int) -> None:
        self.calls[name] += 1
        if ret == "?" or ret.startswith("-"):
            return
        try:
            if name in _READS or name in _WRITES:
                write = name in _WRITES
                positional = (_WRITES if write else _READS)[name]
                fd, path = _fd_and_path(args)
                n = int(ret)
                o = self.ofd(pid, fd, path)
                if positional:
                    m = _LAST_NUM.search(args)
                    if not m:
                        raise ValueError
                    offset = int(m.group(1))
                else:
                    offset = o.offset
                    if o.offset is not None:
                        o.offset += n
                if not o.is_file:
                    self.other_io_bytes += n
                    return
                if n <= 0:
                    return
                self.access(o, offset, n, write, t, dur)
            elif name in _OPENS:
                fd, path = _fd_and_path(ret)
                m = _QUOTED.search(args)
                p = path or (m.group(1) if m else None)
                old = self.table(pid).get(fd)
                if old is not None:
                    self.flush(old)
                self.table(pid)[fd] = _OFD(p, p is None or not p.startswith(_NOT_FILE), 0)
            elif name == "lseek":
                fd, path = _fd_and_path(args)
                self.ofd(pid, fd, path).offset = int(ret)
            elif name == "close":
                fd, _ = _fd_and_path(args)
                o = self.table(pid).pop(fd, None)
                if o is not None:
                    self.flush(o)
            elif name in _DUPS or (name == "fcntl" and "F_DUPFD" in args):
                old, path = _fd_and_path(args)
                new, _ = _fd_and_path(ret)
                self.table(pid)[new] = self.ofd(pid, old, path)
            elif name in ("pipe", "pipe2", "socket", "socketpair", "accept", "accept4", "eventfd2", "epoll_create1"):
                for fd in re.findall(r"\d+", ret if name in ("socket", "accept", "accept4", "eventfd2",
                                                            "epoll_create1") else args.split("]")[0]):
                    self.table(pid)[int(fd)] = _OFD(name, False, None)
            elif name in _FORKS:
                child = int(ret.split("<")[0], 0)
                self.pids.add(child)
                if "CLONE_FILES" in args:
                    self.tables[child] = self.table(pid)
                else:
                    self.tables[child] = dict(self.table(pid))
        except (ValueError, IndexError):
            raise ParseError(self.filename, line_no, f"{name}(...) with a file descriptor and numeric arguments "
                                                     f"as strace prints them, got {name}({args[:60]}) = {ret}") from None

    def access(self, o: _OFD, offset: int | None, n: int, write: bool, t: float, dur: float) -> None:
        if o.last_end is None:
            kind = _SEQ if offset in (0, None) else _RAND
        elif offset is None or offset == o.last_end:
            kind = _SEQ
        elif offset == o.last_start or 0 < offset - o.last_end <= max(o.last_size, 4096):
            kind = _CONSEC
        else:
            kind = _RAND
        if offset is not None:
            o.last_start, o.last_end = offset, offset + n
        else:
            o.last_start = o.last_end = None
        o.last_size = n
        c = o.counts
        c[(2 if write else 0) + (kind == _RAND)] += 1
        c[4] += n
        self.rows.append((t, dur, n, kind, write))


class _Aggregates:
    """Per-class aggregates built chunk by chunk with numpy."""

    def __init__(self):
        self.per_second = np.zeros((len(CLASSES), 0))
        self.ops_per_second = np.zeros((len(CLASSES), 0))
        self.size_hist = np.zeros((len(CLASSES), len(SIZE_BINS) + 1), dtype=np.int64)
        self.iat_hist = np.zeros((len(CLASSES), len(IAT_BINS) + 1), dtype=np.int64)
        self.iat_zero = np.zeros(len(CLASSES), dtype=np.int64)
        self.last_end = np.full(len(CLASSES), np.nan)
        self.ops = np.zeros(len(CLASSES), dtype=np.int64)
        self.bytes = np.zeros(len(CLASSES))
        self.busy_s = np.zeros(len(CLASSES))
        self.consecutive = np.zeros(2, dtype=np.int64)

    def add(self, tr: _Tracker) -> None:
        if not tr.rows:
            return
        rows = np.array(tr.rows, dtype=float)
        t, dur, nb = rows[:, 0], rows[:, 1], rows[:, 2]
        kind = rows[:, 3].astype(np.int64)
        write = rows[:, 4].astype(np.int64)
        cls = write * 2 + (kind == _RAND)
        self.consecutive += np.bincount(write[kind == _CONSEC], minlength=2)
        sec = np.maximum(t, 0).astype(np.int64)
        width = int(sec.max()) + 1
        if width > self.per_second.shape[1]:
            grow = width - self.per_second.shape[1]
            self.per_second = np.pad(self.per_second, ((0, 0), (0, grow)))
            self.ops_per_second = np.pad(self.ops_per_second, ((0, 0), (0, grow)))
        size_idx = np.searchsorted(SIZE_BINS, nb, side="right")
        for c in range(len(CLASSES)):
            sel = cls == c
            if not sel.any():
                continue
            self.per_second[c, :width] += np.bincount(sec[sel], weights=nb[sel], minlength=width)
            self.ops_per_second[c, :width] += np.bincount(sec[sel], minlength=width)
            self.size_hist[c] += np.bincount(size_idx[sel], minlength=len(SIZE_BINS) + 1)
            start, end = t[sel], t[sel] + dur[sel]
            prev = np.concatenate(([self.last_end[c]], end[:-1]))
            iat = start - prev
            iat = iat[~np.isnan(iat)]
            self.iat_zero[c] += int((iat <= 0).sum())
            pos = iat[iat > 0]
            self.iat_hist[c] += np.bincount(np.searchsorted(IAT_BINS, pos, side="right"), minlength=len(IAT_BINS) + 1)
            self.last_end[c] = end[-1]
            self.ops[c] += int(sel.sum())
            self.bytes[c] += float(nb[sel].sum())
            self.busy_s[c] += float(dur[sel].sum())


def parse_strace(path: str | Path, filename: str | None = None, progress: Progress = None) -> Parsed:
    """Parse a strace text file into classified-access aggregates (see the module docstring)."""
    filename = filename or Path(path).name
    tr = _Tracker(filename)
    agg = _Aggregates()
    match = _LINE.match
    flags = {"pids": False, "absolute_time": None, "durations": False}
    lines = 0
    base_key, base = None, 0.0  # "HH:MM:" of the previous -tt stamp and its seconds
    calls = tr.calls
    pids = tr.pids
    hot_calls: dict[str, int] = {}
    t0: float | None = None
    t_last = prev_clock = day = 0.0
    last_pid, tab = None, None
    for first, text in read_chunks(path, progress):
        append = tr.rows.append
        for i, line in enumerate(text.splitlines()):
            # fast path (plain string methods): "PID TIME name(fd, ...) = ret <dur>" for reads and writes
            try:
                pid_s, stamp, rest = line.split(None, 2)
                op = rest.find("(")
                name = rest[:op]
                rw = _RW.get(name)
                if rw is None or line[-1] != ">" or line.endswith("<unfinished ...>") or ":" in pid_s:
                    raise ValueError
                args, sep, res = rest.rpartition(") = ")
                ret, _, dur = res.partition(" ")
                if not sep or ret[0] == "-" or ret == "?" or dur[:1] != "<":
                    raise ValueError
                pid = int(pid_s)
                d = float(dur[1:-1])
                if stamp[-7] != ".":
                    raise ValueError
            except (ValueError, IndexError):
                m = match(line)
                if m is None:
                    if not line:
                        continue
                    raise ParseError(filename, first + i, f"{EXPECTED}; got {line[:80]!r}") from None
                (pid_a, pid_b, stamp, name, args, ret, _extra, dur, uname, uargs,
                 rname, rargs, rret, _rextra, rdur, event) = m.groups()
                pid_s = pid_a or pid_b
                pid = int(pid_s) if pid_s else 0
                rw = None
            lines += 1
            try:
                if stamp[2] == ":":
                    key = stamp[:6]
                    if key != base_key:
                        if stamp[5] != ":":
                            raise ValueError
                        base_key, base = key, int(stamp[:2]) * 3600 + int(stamp[3:5]) * 60
                    clock = base + float(stamp[6:])
                    if clock < prev_clock - 43200:
                        day += 86400.0  # passed midnight
                    prev_clock = clock
                    clock += day
                else:
                    clock = float(stamp)
            except (ValueError, IndexError):
                raise ParseError(filename, first + i, f"a time stamp HH:MM:SS.micro or seconds.micro, got {stamp!r}") from None
            if t0 is None:
                t0 = tr.t0 = clock
                flags["absolute_time"] = ":" not in stamp
            t = clock - t0
            if pid != last_pid:
                if pid_s and pid not in pids:
                    pids.add(pid)
                    flags["pids"] = True
                last_pid, tab = pid, tr.tables.get(pid)
            if rw is not None:
                # the hot path: read/write/pread/pwrite inline
                hot_calls[name] = hot_calls.get(name, 0) + 1
                write, positional = rw
                a0, _, rest = args[op + 1:].partition(",")
                path_ = None
                if a0[-1:] == ">":
                    a0, _, path_ = a0[:-1].partition("<")
                try:
                    fd = int(a0)
                    n = int(ret)
                    offset = int(rest.rpartition(", ")[2]) if positional else None
                except ValueError:
                    raise ParseError(filename, first + i, f"{name}(fd, ...) = bytes with numeric fd, count and "
                                                          f"offset, got {line[:80]!r}") from None
                o = tab.get(fd) if tab is not None else None
                if o is None or (path_ is not None and o.path is not None and o.path != path_):
                    o = tr.ofd(pid, fd, path_)
                    tab = tr.tables.get(pid)
                if not positional:
                    offset = o.offset
                    if offset is not None:
                        o.offset = offset + n
                if not o.is_file:
                    tr.other_io_bytes += n
                elif n > 0:
                    last_end = o.last_end
                    if last_end is None:
                        kind = _SEQ if not offset else _RAND
                    elif offset is None or offset == last_end:
                        kind = _SEQ
                    elif offset == o.last_start or 0 < offset - last_end <= max(o.last_size, 4096):
                        kind = _CONSEC
                    else:
                        kind = _RAND
                    if offset is not None:
                        o.last_start, o.last_end = offset, offset + n
                    else:
                        o.last_start = o.last_end = None
                    o.last_size = n
                    append((t, d, n, kind, write))
                    c = o.counts
                    c[(2 if write else 0) + (kind == _RAND)] += 1
                    c[4] += n
                t_last = t
                continue
            if name is not None:
                tr.call(pid, name, args, ret, t, float(dur) if dur else 0.0, first + i)
                if dur is not None:
                    flags["durations"] = True
            elif uname is not None:
                tr.pending[pid] = (uname, uargs, t)
            elif rname is not None:
                started = tr.pending.pop(pid, None)
                if started is None or started[0] != rname:
                    # strace began mid-call or lost the start: count the call, no access to classify
                    calls[rname] += 1
                else:
                    tr.call(pid, started[0], started[1] + rargs, rret, started[2],
                            float(rdur) if rdur else t - started[2], first + i)
            elif event.startswith("---"):
                tr.signals += 1
            elif "exited" in event or "killed" in event:
                tr.exits += 1
            t_last = t
            last_pid = None  # a cold line may have changed the fd tables
        agg.add(tr)
        tr.new_chunk()
    if lines == 0:
        raise ParseError(filename, 1, f"{EXPECTED}; the file is empty")
    tr.flush_all()
    calls.update(hot_calls)
    if hot_calls:
        flags["durations"] = True
    duration = t_last
    start = tr.t0 or 0.0
    meta = {
        "lines": lines,
        "duration_s": duration,
        "start": start if flags["absolute_time"] else None,
        "start_clock_s": start if not flags["absolute_time"] else None,
        "processes": max(len(tr.pids), 1),
        "signals": tr.signals,
        "exits": tr.exits,
        "syscalls": dict(tr.calls.most_common(25)),
        "syscalls_total": int(sum(tr.calls.values())),
        "other_io_bytes": tr.other_io_bytes,
        "top_files": [[p, row[4], *row[:4]] for p, row in sorted(tr.paths.items(), key=lambda kv: -kv[1][4])[:10]],
        "options": {"follow_forks": flags["pids"], "absolute_time": bool(flags["absolute_time"]),
                    "durations": flags["durations"]},
    }
    aggregates = {
        "classes": list(CLASSES),
        "bytes": agg.bytes.tolist(),
        "ops": agg.ops.tolist(),
        "busy_s": agg.busy_s.tolist(),
        "consecutive_ops": {"read": int(agg.consecutive[0]), "write": int(agg.consecutive[1])},
        "bytes_per_second": agg.per_second.tolist(),
        "ops_per_second": agg.ops_per_second.tolist(),
        "size_bins": list(SIZE_BINS),
        "size_hist": agg.size_hist.tolist(),
        "iat_bins": list(IAT_BINS),
        "iat_hist": agg.iat_hist.tolist(),
        "iat_zero": agg.iat_zero.tolist(),
    }
    return Parsed(format="strace", kind="strace", meta=meta, aggregates=aggregates)
