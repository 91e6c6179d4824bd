"""strace text (``strace -f -tt -T`` or ``-ttt -T -y``): file accesses classified sequential or random.

Every line is checked against strace's layout (optional PID, a timestamp, then a syscall, an
``<unfinished ...>``/``<... resumed>`` pair, a signal or an exit).  Per open file description
(so ``dup`` and ``fork`` share offsets, as in the kernel) the parser tracks the file offset
through ``open``, ``read``/``write``, ``pread``/``pwrite``, ``lseek`` and ``close``, and
classifies each access against the previous one of its stream (a read/write at the shared offset: the
description's previous access, by any process; a pread/pwrite: the same process's previous access on
that description, so forked children reading their own regions are each followed on their own):

* **sequential** — it starts where the previous access of its stream ended (a stream's first access:
  at offset 0, or where the stream's next access continues it);
* **consecutive** — it re-reads the previous block or skips forward by at most one request
  (near-sequential: counted with sequential in the four classes);
* **random** — anything else.

Accesses to pipes, sockets and terminals are counted but not classified.  Memory-mapped
I/O does not appear in strace and is not seen.  The file is read in chunks; what is kept
are aggregates (per-second bytes per class, request-size and inter-arrival histograms), so
memory does not grow with the file.  Each chunk's plain reads and writes are tokenised at once
with numpy (:mod:`.stracescan`); the other lines, and chunks in other layouts, line by line.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path

import numpy as np

from .base import Parsed, ParseError, Progress, last_line, read_byte_chunks
from .stracescan import HOT_NAMES, Scan, plain_results, scan
from .stracescan import PAD as SCAN_PAD

__all__ = ["parse_strace", "CLASSES", "SIZE_BINS", "IAT_BINS", "looks_like_strace", "looks_relative", "RELATIVE"]

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
_START = re.compile(_PREFIX + r"(?:\w+\(|<\.\.\. )")
_STAMP = re.compile(r"\d+:\d\d:\d\d\.\d+|\d+\.\d+").fullmatch
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
#: values per access row: ofd index, type, offset, bytes, start s, duration s, write, pid
ROW_FIELDS = 8
_NOT_FILE = ("pipe:", "socket:", "anon_inode:", "/dev/")

#: what one strace line must look like, for error messages
EXPECTED = ("a strace line: [PID] TIME syscall(args) = result [<seconds>], "
            "'<unfinished ...>', '<... syscall resumed>', '--- SIGNAL ---' or '+++ exited +++'")


#: a strace -r line: seconds since the previous line (space-padded), no clock
_RELATIVE = re.compile(r"^(?:\[pid +\d+\] |\d+ +)? *\d{1,7}\.\d{6} (?:\w+\(|<\.\.\. |--- |\+\+\+ )")
#: the earliest -ttt stamp taken as a clock (1973): smaller ones are -r offsets
MIN_EPOCH_S = 1e8
RELATIVE = ("absolute time stamps (strace -tt or -ttt); these are relative ones (strace -r: seconds since the "
            "previous line), which cannot place the calls in time: record with strace -f -ttt -T -y -o FILE")


def looks_relative(head: str) -> bool:
    """Whether the first lines of a file are ``strace -r`` output (relative time stamps)."""
    lines = [ln for ln in head.splitlines()[:20] if ln.strip()][:-1] or head.splitlines()[:1]
    return bool(lines) and sum(1 for ln in lines if _RELATIVE.match(ln)) >= max(1, int(0.8 * len(lines)))


def _cut_last_line(path: str | Path, filename: str) -> tuple[int | None, str | None]:
    """Where to stop reading so that a last line strace did not finish is left out (its byte offset), and
    that line; ``(None, None)`` when the last line is whole.  A line is unfinished when it is not a strace
    line but starts as one (or the file ends without a newline), or when the file ends without a newline
    and the line lacks the ``<seconds>`` the line before it has (strace -T)."""
    offset, tail, ends_nl = last_line(path)
    text = tail.decode("latin-1").rstrip("\r")
    if not text.strip() or offset == 0:
        return None, None
    if not _LINE.match(text):
        # whole lines that are not strace's are damage, refused as anywhere else; a cut one starts as strace's
        return (offset, text) if not ends_nl or _START.match(text) else (None, None)
    if not ends_nl and not text.endswith((">", "---", "+++")):
        with open(path, "rb") as f:
            f.seek(max(0, offset - 2))
            before = f.read(2).rstrip(b"\r\n")
        if before.endswith(b">"):
            return offset, text
    return None, None


def looks_like_strace(head: str) -> bool:
    """Whether the first lines of a file are strace output with timestamps."""
    lines = [ln for ln in head.splitlines()[:20] if ln.strip()]
    if not lines:
        return False
    if len(lines) > 1:
        lines = lines[:-1]  # the last line of a head may be cut
    return sum(1 for ln in lines if _LINE.match(ln)) >= max(1, int(0.8 * len(lines)))


class _OFD:
    """An open file description: path, current offset and, per access stream, where its last access was.

    Stream -1 is every access of the description in trace order (a read/write at the shared offset is
    compared with it: whichever process makes them, they continue one another, as in the kernel); stream
    PID is one process's accesses (its preads/pwrites are compared with it, so forked processes reading
    their own regions are each followed on their own)."""

    __slots__ = ("idx", "path", "offset", "is_file", "streams", "counts")

    def __init__(self, idx: int, path: str | None, is_file: bool, offset: float = 0.0):
        self.idx, self.path, self.is_file, self.offset = idx, path, is_file, offset  # offset NaN: unknown
        self.streams: dict[int, tuple[float, float, float]] = {}  # key -> last (start, end, size)
        # requests per class (CLASSES order) and bytes, not yet added to the file (a new list once there are some)
        self.counts: list[int] | tuple[int, ...] = _NO_COUNTS


#: the counts of a description with none not yet added to its file (shared: replaced, never changed in place)
_NO_COUNTS = (0, 0, 0, 0, 0)


def _fd_and_path(arg0: str) -> tuple[int, str | None]:
    head = arg0.partition(",")[0]
    if head.isdecimal() and head.isascii():  # the common case, "3" or "3, ...": what the pattern would find
        return int(head), None
    m = _FD_PATH.match(arg0)
    if not m:
        raise ValueError
    return int(m.group(1)), m.group(2)


class _Tracker:
    """File-descriptor tables and open file descriptions; collects the chunk's access and seek rows.

    Rows are ``(ofd index, type, offset, bytes, start s, duration s, write)`` with type 0 for a
    read/write at the current offset, 1 for a positional one (pread/pwrite: ``offset`` given)
    and 2 for a seek (``offset`` is the new position).  :func:`_classify` turns a chunk of
    rows into offsets and classes with numpy, in trace order per open file description."""

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
        self.live: dict[int, _OFD] = {}  # ofd index -> open file description with rows in this chunk or open
        self.closed: list[_OFD] = []
        self.next_idx = 0
        self.new_chunk()

    def new_ofd(self, path: str | None, is_file: bool, offset: float) -> _OFD:
        o = _OFD(self.next_idx, path, is_file, offset)
        self.next_idx += 1
        if is_file:
            self.live[o.idx] = o
        return o

    def retire(self, o: _OFD | None) -> None:
        """An fd stopped pointing at ``o``; its counts go to its file at the end of the chunk."""
        if o is not None and o.is_file:
            self.closed.append(o)

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
        o.counts = _NO_COUNTS

    def end_chunk(self, final: bool = False) -> None:
        """Retired descriptions whose counts are in: flush them and forget those no fd points at."""
        open_ids = set()
        for tab in self.tables.values():
            for o in tab.values():
                open_ids.add(id(o))
        live, flush = self.live, self.flush
        for o in self.closed:
            if o.counts[4]:
                flush(o)
            if id(o) not in open_ids:
                live.pop(o.idx, None)
        self.closed = []
        if final:
            for o in self.live.values():
                self.flush(o)

    def new_chunk(self) -> None:
        self.rows: list = []  # flat: ROW_FIELDS values per row (rebound per chunk: take it afresh)

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
            self.retire(o)
            o = tab[fd] = self.new_ofd(path, is_file, math.nan)  # opened before the trace began: offset unknown
        return o

    def call(self, pid: int, name: str, args: str, ret: str, t: float, dur: float, line_no: int) -> None:
        self.calls[name] += 1
        if ret == "?" or ret.startswith("-"):
            return
        # the commonest calls in their plainest form first (a trace of many small files is mostly opens and
        # closes): what the general code below does, with the checks that send anything else to it
        if name == "close":
            head = args.partition(",")[0]
            if head.isdecimal() and head.isascii():
                tab = self.tables.get(pid)
                if tab is None:
                    tab = self.table(pid)
                o = tab.pop(int(head), None)
                if o is not None and o.is_file:
                    self.closed.append(o)
                return
        elif name in _OPENS and ret.isdecimal() and ret.isascii():
            i = args.find('"')
            j = args.find('"', i + 1) if i >= 0 else -1
            if i < 0 or (j >= 0 and args.find("\\", i + 1, j) < 0):  # no quoted path, or one without escapes
                p = args[i + 1:j] if i >= 0 else None
                fd = int(ret)
                tab = self.tables.get(pid)
                if tab is None:
                    tab = self.table(pid)
                o = tab.get(fd)
                if o is not None and o.is_file:
                    self.closed.append(o)
                is_file = p is None or not p.startswith(_NOT_FILE)
                idx = self.next_idx
                self.next_idx = idx + 1
                o = tab[fd] = _OFD(idx, p, is_file, 0.0)
                if is_file:
                    self.live[idx] = o
                return
        try:
            if name in _READS or name in _WRITES:
                write = name in _WRITES
                positional = (_WRITES if write else _READS)[name]
                fd, path = _fd_and_path(args)
                n = int(ret)
                o = self.ofd(pid, fd, path)
                offset = math.nan
                if positional:
                    m = _LAST_NUM.search(args)
                    if not m:
                        raise ValueError
                    offset = float(m.group(1))
                if not o.is_file:
                    self.other_io_bytes += n
                elif n > 0:
                    self.rows.extend((o.idx, 1 if positional else 0, offset, n, t, dur, write, pid))
            elif name in _OPENS:
                fd, path = _fd_and_path(ret)
                m = _QUOTED.search(args)
                p = path or (m.group(1) if m else None)
                tab = self.table(pid)
                self.retire(tab.get(fd))
                tab[fd] = self.new_ofd(p, p is None or not p.startswith(_NOT_FILE), 0.0)
            elif name == "lseek":
                fd, path = _fd_and_path(args)
                o = self.ofd(pid, fd, path)
                if o.is_file:
                    self.rows.extend((o.idx, 2, float(int(ret)), 0, t, 0.0, False, pid))
            elif name == "close":
                fd, _ = _fd_and_path(args)
                self.retire(self.table(pid).pop(fd, None))
            elif name in _DUPS or (name == "fcntl" and "F_DUPFD" in args):
                old, path = _fd_and_path(args)
                new, _ = _fd_and_path(ret)
                tab = self.table(pid)
                src = self.ofd(pid, old, path)
                if tab.get(new) is not src:
                    self.retire(tab.get(new))
                tab[new] = src
            elif name in ("pipe", "pipe2", "socket", "socketpair", "accept", "accept4", "eventfd2", "epoll_create1"):
                for fd in re.findall(r"\d+", ret if name in ("socket", "accept", "accept4", "eventfd2",
                                                             "epoll_create1") else args.split("]")[0]):
                    tab = self.table(pid)
                    self.retire(tab.get(int(fd)))
                    tab[int(fd)] = self.new_ofd(name, False, math.nan)
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


def _classify(tr: _Tracker, rows: np.ndarray | None) -> tuple[np.ndarray, ...] | None:
    """Offsets and classes of the chunk's rows (see :class:`_Tracker`), vectorised per open file description.

    Returns ``(t, dur, bytes, kind, write)`` of the accesses in trace order, and updates each
    description's offset, last access and per-class counts."""
    if rows is None or not len(rows):
        return None
    idx = rows[:, 0].astype(np.int64)
    order = np.argsort(idx, kind="stable")
    g, typ, val, n = idx[order], rows[order, 1], rows[order, 2], rows[order, 3]
    m = len(g)
    first = np.ones(m, dtype=bool)
    first[1:] = g[1:] != g[:-1]
    group_ids = g[first]
    ofds = [tr.live[i] for i in group_ids.tolist()]
    group = np.cumsum(first) - 1
    carry_offset = np.array([o.offset for o in ofds], dtype=float)
    # offsets of reads/writes at the current position: a segmented sum of the bytes moved since the last seek
    seg_start = first | (typ == 2)
    seg = np.cumsum(seg_start) - 1
    inc = np.where(typ == 0, n, 0.0)
    before = np.cumsum(inc) - inc
    seg_first_row = np.flatnonzero(seg_start)
    seg_base = np.where(typ[seg_first_row] == 2, val[seg_first_row], carry_offset[group[seg_first_row]])
    cur = seg_base[seg] + (before - before[seg_first_row][seg])
    offset = np.where(typ == 1, val, cur)
    # state after the chunk: the offset where each description's last segment has moved it
    last_row = np.r_[np.flatnonzero(first)[1:] - 1, m - 1]
    new_offset = cur[last_row] + inc[last_row]
    new_offset = np.where(typ[last_row] == 2, val[last_row], new_offset)
    # classification of each access against the previous access of its stream (see _OFD)
    acc = typ != 2
    a_rows = np.flatnonzero(acc)
    a_off, a_n, a_group = offset[acc], n[acc], group[acc]
    a_pos = typ[acc] == 1
    a_pid = rows[order, 7][acc]
    end = a_off + a_n
    prev_start, prev_end, prev_size, next_start, a_last_ofd = _stream_prev(
        a_group, np.full(len(a_group), -1.0), a_off, end, a_n, ofds)
    by_pid = np.lexsort((a_pid, a_group))  # stable: trace order inside each (description, process)
    p_start, p_end, p_size, p_next, p_last = _stream_prev(a_group[by_pid], a_pid[by_pid], a_off[by_pid],
                                                          end[by_pid], a_n[by_pid], ofds)
    sel = a_pos[by_pid]  # positional accesses follow their process's stream
    at = by_pid[sel]
    prev_start[at], prev_end[at], prev_size[at], next_start[at] = p_start[sel], p_end[sel], p_size[sel], p_next[sel]
    unknown_prev = np.isnan(prev_end)
    unknown_off = np.isnan(a_off)
    kind = np.full(len(a_off), _RAND, dtype=np.int64)
    with np.errstate(invalid="ignore"):
        gap = a_off - prev_end
        consec = (~unknown_prev & ~unknown_off & ((a_off == prev_start) |
                                                   ((gap > 0) & (gap <= np.maximum(prev_size, 4096.0)))))
        kind[consec] = _CONSEC
        # a stream's first access starts a sequential run at offset 0 or when the stream's next access continues it
        opens_run = unknown_off | (a_off == 0) | (next_start == end)
        kind[(unknown_prev & opens_run) | (~unknown_prev & (unknown_off | (gap == 0)))] = _SEQ
    # (read out as lists first: a description per opened file makes these loops long in traces of many files)
    r = a_last_ofd
    for g, start, stop, size in zip(a_group[r].tolist(), a_off[r].tolist(), end[r].tolist(), a_n[r].tolist(),
                                    strict=True):
        ofds[g].streams[-1] = (start, stop, size)
    r = by_pid[p_last]
    for g, p, start, stop, size in zip(a_group[r].tolist(), a_pid[r].tolist(), a_off[r].tolist(), end[r].tolist(),
                                       a_n[r].tolist(), strict=True):
        ofds[g].streams[int(p)] = (start, stop, size)
    # carry the state forward
    write = rows[order, 6][a_rows].astype(np.int64)
    cls = write * 2 + (kind == _RAND)
    counts = np.zeros((len(ofds), 5))
    np.add.at(counts, (a_group, cls), 1)
    np.add.at(counts, (a_group, 4), a_n)
    for o, offset, added in zip(ofds, new_offset.tolist(), counts.tolist(), strict=True):
        o.offset = offset
        c = o.counts  # int(): exact past 2**63 too
        o.counts = list(map(int, added)) if c is _NO_COUNTS else [x + int(a) for x, a in zip(c, added, strict=True)]
    # back to trace order
    pos = order[a_rows]
    back = np.argsort(pos, kind="stable")
    t = rows[pos[back], 4]
    dur = rows[pos[back], 5]
    return t, dur, a_n[back], kind[back], write[back]


def _stream_prev(group: np.ndarray, key: np.ndarray, off: np.ndarray, end: np.ndarray, size: np.ndarray,
                 ofds: list[_OFD]) -> tuple[np.ndarray, ...]:
    """For accesses sorted by stream (description ``group``, stream ``key``; trace order within): the start, end
    and size of each one's previous access in its stream (carried over from earlier chunks), the start of its
    next one in this chunk (NaN for the last) and the index of each stream's last access."""
    m = len(group)
    first = np.ones(m, dtype=bool)
    first[1:] = (group[1:] != group[:-1]) | (key[1:] != key[:-1])
    firsts = np.flatnonzero(first)
    carried = [ofds[g].streams.get(int(k), (math.nan, math.nan, 0.0))
               for g, k in zip(group[firsts].tolist(), key[firsts].tolist(), strict=True)]
    carry = np.array(carried, dtype=float).reshape(-1, 3)
    prev_start, prev_end, prev_size = np.r_[np.nan, off[:-1]], np.r_[np.nan, end[:-1]], np.r_[0.0, size[:-1]]
    prev_start[firsts], prev_end[firsts], prev_size[firsts] = carry[:, 0], carry[:, 1], carry[:, 2]
    last = np.r_[firsts[1:] - 1, m - 1] if m else np.array([], dtype=np.int64)
    next_start = np.r_[off[1:], np.nan]
    next_start[last] = np.nan
    return prev_start[:m], prev_end[:m], prev_size[:m], next_start[:m], last


class _Aggregates:
    """Per-class aggregates built chunk by chunk with numpy."""

    def __init__(self, filename: str):
        self.filename = filename
        self.per_second = np.zeros((len(CLASSES), 0))
        self.ops_per_second = np.zeros((len(CLASSES), 0))
        self.busy_per_second = np.zeros(0)  # seconds inside reads and writes started in each second
        self.size_hist = np.zeros((len(CLASSES), len(SIZE_BINS) + 1), dtype=np.int64)
        self.iat_hist = np.zeros((len(CLASSES), len(IAT_BINS) + 1), dtype=np.int64)
        self.iat_zero = np.zeros(len(CLASSES), dtype=np.int64)
        self.last_end = np.full(len(CLASSES), np.nan)
        self.ops = np.zeros(len(CLASSES), dtype=np.int64)
        self.bytes = np.zeros(len(CLASSES))
        self.busy_s = np.zeros(len(CLASSES))
        self.consecutive = np.zeros(2, dtype=np.int64)
        self.busy_union_s = 0.0  # time inside at least one read or write (overlapping calls counted once)
        self.busy_until = -math.inf

    def add(self, accesses: tuple[np.ndarray, ...] | None) -> None:
        if accesses is None or not len(accesses[0]):
            return
        t, dur, nb, kind, write = accesses
        cls = write * 2 + (kind == _RAND)
        self.consecutive += np.bincount(write[kind == _CONSEC], minlength=2)
        # the union of the calls' intervals: sorted by start, each adds what lies past every earlier end
        by_start = np.argsort(t, kind="stable")
        starts, ends = t[by_start], (t + dur)[by_start]
        reach = np.maximum.accumulate(np.r_[self.busy_until, ends])
        self.busy_union_s += float(np.maximum(0.0, ends - np.maximum(starts, reach[:-1])).sum())
        self.busy_until = float(reach[-1])
        sec = np.maximum(t, 0).astype(np.int64)
        width = int(sec.max()) + 1
        if width > MAX_SPAN_S + 1:
            raise _span_error(self.filename, float(t.max()))
        if width > self.per_second.shape[1]:
            grow = width - self.per_second.shape[1]
            self.per_second = np.pad(self.per_second, ((0, 0), (0, grow)))
            self.ops_per_second = np.pad(self.ops_per_second, ((0, 0), (0, grow)))
            self.busy_per_second = np.pad(self.busy_per_second, (0, grow))
        self.busy_per_second[:width] += np.bincount(sec, weights=dur, minlength=width)
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


#: longest trace accepted: the per-second aggregates hold one column per second of the trace
MAX_SPAN_S = 7 * 86400


def _mixed_clocks(absolute: bool, stamp: str) -> str:
    style = "seconds.micro (-ttt)" if absolute else "HH:MM:SS.micro (-tt)"
    return f"time stamps all in one style, {style} as on the first line; got {stamp!r}"


def _span_error(filename: str, seconds: float) -> ParseError:
    return ParseError(filename, None, f"a trace spanning at most {MAX_SPAN_S // 86400} days between its first and "
                                      f"last lines; its time stamps span {seconds / 86400:.1f} days")


class _State:
    """Where the parse is between chunks: the first clock, midnight roll-over, the last time, counts."""

    def __init__(self):
        self.t0: float | None = None
        self.prev_clock = 0.0
        self.day = 0.0
        self.t_last = 0.0
        self.lines = 0
        self.base_key: str | None = None  # "HH:MM:" of the previous -tt stamp and its seconds
        self.base = 0.0
        self.flags = {"pids": False, "absolute_time": None, "durations": False, "terminal": False}
        #: terminal layout ("[pid N] " only while several processes are traced): the first process's PID, once
        #: a prefixed line shows it, and the PIDs strace reported attaching ("strace: Process N attached")
        self.main: int | None = None
        self.attached: set[int] = set()


def _event_line(tr: _Tracker, st: _State, m: re.Match, pid: int, t: float, line_no: int) -> None:
    """A line other than a plain read/write (a call, its unfinished or resumed half, a signal or an exit)."""
    (_pid_a, _pid_b, _stamp, name, args, ret, _extra, dur, uname, uargs,
     rname, rargs, rret, _rextra, rdur, event) = m.groups()
    if name is not None:
        tr.call(pid, name, args, ret, t, float(dur) if dur else 0.0, line_no)
        if dur is not None:
            st.flags["durations"] = True
    elif uname is not None:
        tr.pending[pid] = (uname, uargs, t)
    elif rname is not None:
        started = tr.pending.pop(pid, None)
        if started is None or started[0] != rname:
            # strace began mid-call or lost the start: count the call, no access to classify
            tr.calls[rname] += 1
        else:
            tr.call(pid, started[0], started[1] + rargs, rret, started[2],
                    float(rdur) if rdur else t - started[2], line_no)
    elif event.startswith("---"):
        tr.signals += 1
    elif "exited" in event or "killed" in event:
        tr.exits += 1


def _first_process_is(tr: _Tracker, st: _State, pid: int) -> None:
    """Terminal layout: the lines without a PID before the first fork were the first process, now seen as ``pid``."""
    st.main = pid
    st.flags["terminal"] = st.flags["pids"] = True
    if 0 in tr.tables:
        tr.tables[pid] = tr.tables.pop(0)
        tr.pids.discard(0)
        for o in tr.live.values():
            if 0 in o.streams:
                o.streams[pid] = o.streams.pop(0)
    tr.pids.add(pid)


#: what strace prints about tracees among the trace when it writes to the terminal; it may cut a line in two
_ATTACHED_MID = re.compile(rb"(?<=[^\n])strace: Process (\d+) (?:attached|detached)\n([^\n]*\n)")
_ATTACHED_LINE = re.compile(rb"(?m)^strace: Process (\d+) (?:attached|detached)(?= *$)")


def _terminal_notes(chunks, st: _State):
    """Chunks with strace's "Process N attached/detached" notes taken out (a note cutting a line is joined
    back and leaves an empty line, so line numbers stay those of the file); the PIDs go to ``st.attached``."""
    carry = b""
    for offset, data in chunks:
        if carry:
            data, carry = carry + data, b""
        if b"strace: Process " in data:  # every note starts so (the longer needle is the quicker search)
            st.attached.update(int(p) for p in re.findall(rb"strace: Process (\d+) attached", data))
            data = _ATTACHED_MID.sub(rb"\2\n", data)
            data = _ATTACHED_LINE.sub(b"", data)
            last = data.rfind(b"\n", 0, len(data) - 1) + 1
            if data[last:].find(b"strace: Process ") > 0:
                carry, data = data[last:], data[:last]  # the rest of the cut line is in the next chunk
                if not data:
                    continue
        yield offset, data
    if carry:
        yield -1, carry


def _chunk_by_lines(tr: _Tracker, st: _State, hot_calls: dict, lines_: list[str], first: int,
                    t_given: float | None = None) -> None:
    """Parse lines one by one (any layout strace writes; errors name the line); ``first`` is the
    first one's line number.  With ``t_given`` (one line whose time the scan has computed) the
    time stamp is not read again."""
    filename = tr.filename
    match = _LINE.match
    flags = st.flags
    pids = tr.pids
    nan = math.nan
    tables_get = tr.tables.get
    extend = tr.rows.extend
    t0, prev_clock, day, t_last, lines = st.t0, st.prev_clock, st.day, st.t_last, st.lines
    absolute = flags["absolute_time"]
    base_key, base = st.base_key, st.base
    try:
        for i, line in enumerate(lines_):
            # fast path (plain string methods): "PID TIME name(fd, ...) = ret <dur>" for reads and writes
            rw = None
            parts = line.split(None, 2)
            if len(parts) == 3:
                pid_s, stamp, rest = parts
                op = rest.find("(")
                rw = _RW.get(rest[:op])
                if rw is not None:
                    args, sep, res = rest.rpartition(") = ")
                    ret, _, dur = res.partition(" ")
                    if (sep and ret.isdecimal() and dur[:1] == "<" and line[-1] == ">" and pid_s.isdecimal()
                            and not line.endswith("<unfinished ...>")):
                        try:
                            d = float(dur[1:-1])
                        except ValueError:
                            rw = None
                        else:
                            name = rest[:op]
                            pid = int(pid_s)
                            if not _STAMP(stamp):  # float() would take "1e400", "inf", "1_0"
                                raise ParseError(filename, first + i, "a time stamp HH:MM:SS.micro or "
                                                                      f"seconds.micro, got {stamp!r}")
                    else:
                        rw = None
            if rw is None:
                m = match(line)
                if m is None:
                    if not line:
                        continue
                    if t0 is None and _RELATIVE.match(line):
                        raise ParseError(filename, first + i, RELATIVE)
                    raise ParseError(filename, first + i, f"{EXPECTED}; got {line[:80]!r}")
                pid_s = m.group(1) or m.group(2)
                stamp = m.group(3)
                if m.group(1) is not None:  # terminal layout: "[pid N] "
                    pid = int(pid_s)
                    if st.main is None and pid not in pids and pid not in st.attached:
                        _first_process_is(tr, st, pid)
                else:
                    pid = int(pid_s) if pid_s else (st.main or 0)
            lines += 1
            if t_given is not None:
                t = t_given
            else:
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
                    if ":" not in stamp and clock < MIN_EPOCH_S:
                        raise ParseError(filename, first + i, RELATIVE)
                    t0 = tr.t0 = clock
                    flags["absolute_time"] = absolute = ":" not in stamp
                elif (stamp[2] != ":") is not absolute:
                    raise ParseError(filename, first + i, _mixed_clocks(absolute, stamp))
                t = clock - t0
            tab = tables_get(pid)
            if tab is None:
                if pid_s:
                    flags["pids"] = True
                pids.add(pid)
                tab = tr.table(pid)
            if rw is not None:
                # the hot path: read/write/pread/pwrite inline
                hot_calls[name] += 1
                write, positional = rw
                a0 = args[op + 1:args.find(",", op)]
                path_ = None
                if a0[-1:] == ">":
                    a0, _, path_ = a0[:-1].partition("<")
                try:
                    fd = int(a0)
                    n = int(ret)
                    offset = int(args[args.rfind(", ") + 2:]) if positional else nan
                except ValueError:
                    raise ParseError(filename, first + i, f"{name}(fd, ...) = bytes with numeric fd, count and "
                                                          f"offset, got {line[:80]!r}") from None
                o = tab.get(fd)
                if o is None or (path_ is not None and o.path is not None and o.path != path_):
                    o = tr.ofd(pid, fd, path_)
                if not o.is_file:
                    tr.other_io_bytes += n
                elif n > 0:
                    extend((o.idx, positional, offset, n, t, d, write, pid))
                t_last = t
                continue
            _event_line(tr, st, m, pid, t, first + i)
            t_last = t
    finally:
        st.t0, st.prev_clock, st.day, st.t_last, st.lines = t0, prev_clock, day, t_last, lines
        st.base_key, st.base = base_key, base


def _scan_pairs(sc: Scan, h: np.ndarray, hot: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Group the hot lines ``h`` by (stretch between two other lines, PID, fd, ``-y`` path): returns each
    group's first line (in trace order), and each hot line's group; None when two paths of a group differ
    in bytes its fingerprint does not cover (the caller then parses the chunk line by line)."""
    pid_h, fd_h = sc.pid[h], sc.fd[h]
    seg = np.cumsum(~hot & ~sc.skip & ~sc.quiet)[h]
    key = ((pid_h << 24) | fd_h).view(np.uint64)
    plen = (sc.path_end - sc.path_start)[h]
    if plen.any():  # -y: the path is part of the key, by a hash of its length and first and last 8 bytes
        ps = sc.path_start[h]
        w1 = np.where(plen > 0, sc.words_at(ps), np.uint64(0))
        w2 = np.where(plen > 0, sc.words_at(np.maximum(ps + plen - 8, ps)), np.uint64(0))
        with np.errstate(over="ignore"):
            key = (key * _H[0]) ^ (plen.view(np.uint64) * _H[1]) ^ (w1 * _H[2]) ^ (w2 * _H[3])
    keys, key_of = np.unique(key, return_inverse=True)
    _, first_at, pair_of = np.unique(seg * len(keys) + key_of.reshape(-1), return_inverse=True, return_index=True)
    if plen.any():
        # one descriptor showing two paths in a stretch was closed and reopened untraced: each change
        # of path starts a new open file description, which the line-by-line parser follows
        fd_key = ((pid_h << 24) | fd_h).view(np.uint64)
        fds, fd_of = np.unique(fd_key, return_inverse=True)
        if len(np.unique(seg * len(fds) + fd_of.reshape(-1))) != len(first_at):
            return None
        # check, byte for byte, that each line's descriptor and path are its group's
        rep = first_at[pair_of]
        same = (pid_h == pid_h[rep]) & (fd_h == fd_h[rep]) & (plen == plen[rep]) & (w1 == w1[rep]) & (w2 == w2[rep])
        for k in range(8, int(plen.max()) - 8, 8):
            m = plen > k + 8
            same[m] &= sc.words_at(ps[m] + k) == sc.words_at(ps[rep[m]] + k)
        if not same.all():
            return None
    return seg, first_at, pair_of


#: odd multipliers mixing the parts of a hot line's key (descriptor, path length, path bytes)
_H = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93], dtype=np.uint64)


#: calls the tracker acts on (descriptor tables, offsets, processes): never counted without being read
_FOLLOWED = set(_RW) | _OPENS | _DUPS | _FORKS | {"close", "lseek", "fcntl", "pipe", "pipe2", "socket", "socketpair",
                                                  "accept", "accept4", "eventfd2", "epoll_create1"}


def _quiet_calls(sc: Scan, data: bytes) -> tuple[np.ndarray, dict[str, int]]:
    """Whole lines of calls the tracker does not follow (stat, mmap, chmod, ...), to be counted by name at once
    rather than read line by line: their mask (also kept as ``sc.quiet``) and the count per name."""
    quiet = np.zeros(sc.n, dtype=bool)
    counted: dict[str, int] = {}
    if sc.whole is None:
        sc.quiet = quiet
        return quiet, counted
    # whole calls, and resumed halves joined to their start (the call counted once, at its end)
    cand = np.flatnonzero(sc.whole | (sc.pair_prev >= 0))
    if len(cand):
        keys, first, counts = np.unique(sc.name_key[cand], return_index=True, return_counts=True)
        names = [data[a - SCAN_PAD:b - SCAN_PAD].decode("latin-1")
                 for a, b in zip(sc.name_start[cand[first]].tolist(), sc.name_end[cand[first]].tolist(), strict=True)]
        keep = np.array([nm not in _FOLLOWED and nm.replace("_", "").isalnum() for nm in names], dtype=bool)
        if keep.any():
            chosen = cand[np.isin(sc.name_key[cand], keys[keep])]
            quiet[chosen] = True
            starts = sc.pair_prev[chosen]
            quiet[starts[starts >= 0]] = True
            counted = {nm: c for nm, c, k in zip(names, counts.tolist(), keep.tolist(), strict=True) if k}
    sc.quiet = quiet
    return quiet, counted


def _chunk_by_scan(tr: _Tracker, st: _State, hot_calls: dict, sc: Scan, data: bytes, first: int) -> np.ndarray | None:
    """Parse a chunk :func:`~.stracescan.scan` has tokenised: its plain reads and writes at once with numpy,
    the other lines one by one in trace order between them.  Returns the chunk's access rows (see
    :class:`_Tracker`) in trace order, or None (nothing done) when the chunk must go line by line."""
    hot = sc.hot
    h = np.flatnonzero(hot)
    quiet, quiet_counts = _quiet_calls(sc, data)
    pairs = _scan_pairs(sc, h, hot)
    if pairs is None:
        return None
    for nm, count in quiet_counts.items():
        hot_calls[nm] = hot_calls.get(nm, 0) + count
    _seg, first_at, pair_of = pairs
    clock = sc.clock
    if not sc.absolute:  # -tt: seconds of the day; a step back of more than 12 h is the next day
        prev = np.empty_like(clock)
        prev[0] = st.prev_clock
        prev[1:] = clock[:-1]
        days = st.day + 86400.0 * np.cumsum(clock < prev - 43200)
        st.prev_clock, st.day = float(clock[-1]), float(days[-1])
        clock = clock + days
    if st.t0 is None:
        if sc.absolute and clock[0] < MIN_EPOCH_S:
            raise ParseError(tr.filename, first, RELATIVE)
        st.t0 = tr.t0 = float(clock[0])
        st.flags["absolute_time"] = sc.absolute
    elif st.flags["absolute_time"] is not sc.absolute:
        stamp = data[:data.find(b"\n")].split()[1].decode("latin-1")
        raise ParseError(tr.filename, first, _mixed_clocks(st.flags["absolute_time"], stamp))
    t = clock - st.t0
    for pid in set(np.unique(sc.pid[quiet]).tolist()) - tr.pids:  # processes seen only in quiet lines so far
        st.flags["pids"] = True
        tr.pids.add(pid)
        tr.table(pid)
    other = np.flatnonzero(~hot & ~sc.skip & ~quiet)
    # the open file description of each hot line, from the descriptor tables as they stand at that line:
    # one lookup per (stretch between two other lines, pid, fd, path), in trace order
    pid_h, fd_h = sc.pid[h], sc.fd[h]
    order = np.argsort(first_at)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    rep_lines = h[first_at[order]]
    pair_line = rep_lines.tolist()
    pair_pid, pair_fd = pid_h[first_at[order]].tolist(), fd_h[first_at[order]].tolist()
    pair_path = [None if a == b else data[a - SCAN_PAD:b - SCAN_PAD].decode("latin-1")
                 for a, b in zip(sc.path_start[rep_lines].tolist(), sc.path_end[rep_lines].tolist(), strict=True)]
    ofd_idx = np.empty(len(order), dtype=np.int64)
    ofd_file = np.empty(len(order), dtype=bool)
    tables_get = tr.tables.get
    flags = st.flags
    p, npairs = 0, len(order)
    row_lines: list[int] = []
    rows = tr.rows
    o_start, o_end = sc.starts[other] - SCAN_PAD, sc.ends[other] - SCAN_PAD
    o_t = t[other]
    text = data.decode("latin-1")  # one character per byte: the scan's positions index it
    plain = _plain_calls(sc, text, other, o_start, o_end, o_t)
    # the first halves of the pairs read at their second are not visited: their second half (the same process's
    # next line of a call: none of its lines between) forgets what that process had pending in their place
    started = [k for k, v in plain.items() if v is _STARTED]
    visit = np.ones(len(other), dtype=bool)
    visit[started] = False
    at = np.flatnonzero(visit)
    ks, others, o_pid = at.tolist(), other[at].tolist(), sc.pid[other[at]].tolist()
    st.lines += len(plain)  # each line read without the pattern (the others are counted as they are read)
    match = _LINE.match
    tr_tables = tr.tables
    pending = tr.pending
    for k, j, line_pid in zip(ks + [-1], others + [sc.n], o_pid + [0], strict=True):
        while p < npairs and pair_line[p] < j:
            pid, fd = pair_pid[p], pair_fd[p]
            tab = tables_get(pid)
            if tab is None:
                flags["pids"] = True
                tr.pids.add(pid)
                tab = tr.table(pid)
            o = tab.get(fd)
            path = pair_path[p]
            if o is None or (path is not None and o.path is not None and o.path != path):
                o = tr.ofd(pid, fd, path)
            ofd_idx[p], ofd_file[p] = o.idx, o.is_file
            p += 1
        if k < 0:
            break
        before = len(rows)
        pid = line_pid
        call = plain.get(k)
        if call is not None:  # a followed call read without the pattern (see _plain_calls)
            if pid not in tr_tables:
                flags["pids"] = True
                tr.pids.add(pid)
                tr.table(pid)
            name, args, ret, t_call, dur, whole = call
            if whole:
                flags["durations"] = True
            else:  # the second half of a pair: its first half's start replaced what was pending
                pending.pop(pid, None)
            tr.call(pid, name, args, ret, t_call, dur, first + j)
        else:
            line = text[int(o_start[k]):int(o_end[k])]
            m = match(line)
            if m is None or m.group(1) is not None:  # let the per-line parser name the problem
                _chunk_by_lines(tr, st, hot_calls, [line], first + j, float(o_t[k]))
            else:  # "PID TIME ...": the scan has read the PID and the time
                if pid not in tr_tables:
                    flags["pids"] = True
                    tr.pids.add(pid)
                    tr.table(pid)
                _event_line(tr, st, m, pid, float(o_t[k]), first + j)
                st.lines += 1
        if len(rows) > before:
            row_lines.extend([j] * ((len(rows) - before) // ROW_FIELDS))
    st.lines += len(h) + int(np.count_nonzero(sc.skip)) + int(np.count_nonzero(quiet))
    st.t_last = float(t[-1])
    # the hot lines' rows
    pair = rank[pair_of]
    idx, is_file = ofd_idx[pair], ofd_file[pair]
    n_bytes = sc.ret[h]
    tr.other_io_bytes += int(n_bytes[~is_file].sum())
    name = sc.name[h]
    for code, count in enumerate(np.bincount(name, minlength=len(HOT_NAMES)).tolist()):
        if count:
            hot_calls[HOT_NAMES[code]] += count
    keep = is_file & (n_bytes > 0)
    k = np.flatnonzero(keep)
    positional = name[k] >= 2
    hot_rows = np.column_stack([
        idx[k], positional, np.where(positional, sc.offset[h][k], np.nan), n_bytes[k], t[sc.partner[h]][k], sc.dur[h][k],
        name[k] % 2, pid_h[k],
    ]).astype(float)
    if not rows:
        return hot_rows
    other_rows = np.array(rows, dtype=float).reshape(-1, ROW_FIELDS)
    lines_of = np.concatenate([h[k], np.array(row_lines, dtype=np.int64)])
    return np.concatenate([hot_rows, other_rows])[np.argsort(lines_of, kind="stable")]


#: a first half that :func:`_plain_calls` reads with its second
_STARTED = ("started",)
_UNFINISHED = " <unfinished ...>"


def _plain_calls(sc: Scan, text: str, other: np.ndarray, o_start: np.ndarray | list[int],
                 o_end: np.ndarray | list[int], o_t: np.ndarray | list[float]) -> dict[int, tuple]:
    """Among a scanned chunk's other lines (``other``; ``text`` the chunk decoded), the calls the tracker follows
    (opens, closes, seeks, dups...) in their plainest form, cut at the positions the scan found rather than read
    with the line pattern: whole calls, and ``<unfinished ...>``/``<... resumed>`` pairs the scan joined, whose
    result and duration are plain digits (:func:`~.stracescan.plain_results`).  Keyed by the position in ``other``: ``(name, args, result, start s, duration s,
    whole)`` (what :func:`_event_line` would pass to the tracker), or :data:`_STARTED` for a pair's first half.
    Lines in any other form are left out (the pattern reads them, and names the line of a problem)."""
    out: dict[int, tuple] = {}
    if sc.name_start is None or not len(other):
        return out
    whole = sc.whole[other]
    prev = sc.pair_prev[other]
    cand = np.flatnonzero(whole | (prev >= 0))
    if not len(cand):
        return out
    # only the names the tracker follows: each distinct name (by the scan's key) decoded once
    keys, first = np.unique(sc.name_key[other[cand]], return_index=True)
    named = [text[a - SCAN_PAD:b - SCAN_PAD] for a, b in zip(sc.name_start[other[cand[first]]].tolist(),
                                                             sc.name_end[other[cand[first]]].tolist(), strict=True)]
    followed = keys[[nm in _FOLLOWED for nm in named]]
    cand = cand[np.isin(sc.name_key[other[cand]], followed)]
    if not len(cand):
        return out
    lines = other[cand]
    is_whole = whole[cand]
    ok, seconds = plain_results(sc, lines, np.where(is_whole, sc.name_end[lines] + 1, sc.name_end[lines] + 9))
    cand, lines, is_whole, seconds = cand[ok], lines[ok], is_whole[ok], seconds[ok]
    first_half = np.searchsorted(other, np.maximum(prev[cand], 0))
    first_half = np.minimum(first_half, len(other) - 1)
    starts_at = other[first_half]
    joined = (prev[cand] >= 0) & (starts_at == prev[cand])  # the first half is among the other lines
    o_t, o_end = np.asarray(o_t), np.asarray(o_end)
    p = SCAN_PAD
    # the whole calls, then the pairs (in trace order: a first half is taken by the first pair that claims it)
    sel = np.flatnonzero(is_whole)
    at, ln = cand[sel], lines[sel]
    for k, a, b, c, e, lt, sec, t_k in zip(
            at.tolist(), (sc.name_start[ln] - p).tolist(), (sc.name_end[ln] - p).tolist(),
            (sc.close_at[ln] - p).tolist(), (sc.eq[ln] - p).tolist(), (sc.lt[ln] - p).tolist(),
            seconds[sel].tolist(), o_t[at].tolist(), strict=True):
        name = text[a:b]
        if name in _FOLLOWED:
            out[k] = (name, text[b + 1:c], text[e + 2:lt - 1], t_k, sec, True)
    # "<... name resumed>rest": its first half is the pid's previous split line, "name(args <unfinished ...>"
    sel = np.flatnonzero(~is_whole & joined & (first_half < cand))
    at, ln, u_at, u_line = cand[sel], lines[sel], first_half[sel], starts_at[sel]
    for k, a, b, c, e, lt, u, ua, ub, u_end, sec, t_u in zip(
            at.tolist(), (sc.name_start[ln] - p).tolist(), (sc.name_end[ln] - p).tolist(),
            (sc.close_at[ln] - p).tolist(), (sc.eq[ln] - p).tolist(), (sc.lt[ln] - p).tolist(),
            u_at.tolist(), (sc.name_start[u_line] - p).tolist(), (sc.name_end[u_line] - p).tolist(),
            o_end[u_at].tolist(), seconds[sel].tolist(), o_t[u_at].tolist(), strict=True):
        name = text[a:b]
        if name not in _FOLLOWED or text[b:b + 9] != " resumed>" or u in out:
            continue
        if text[u_end - len(_UNFINISHED):u_end] != _UNFINISHED or text[ua:ub + 1] != name + "(":
            continue
        uargs = text[ub + 1:u_end - len(_UNFINISHED)]
        if "=" in uargs:  # '=' in a first half: the pattern might read it as a whole call
            continue
        out[u] = _STARTED
        out[k] = (name, uargs + text[b + 9:c], text[e + 2:lt - 1], t_u, sec, False)
    return out


def _vectorised_lines(sc: Scan) -> int:
    """How many of a scanned chunk's lines the vectorised path reads without the per-line parser (at most)."""
    joined = 2 * int(np.count_nonzero(sc.pair_prev >= 0)) if sc.pair_prev is not None else 0
    whole = int(np.count_nonzero(sc.whole)) if sc.whole is not None else 0
    return int(np.count_nonzero(sc.hot)) + int(np.count_nonzero(sc.skip)) + whole + joined


def parse_strace(path: str | Path, filename: str | None = None, progress: Progress = None) -> Parsed:
    """Parse a strace text file into classified-access aggregates (see the module docstring)."""
    filename = filename or Path(path).name
    tr = _Tracker(filename)
    agg = _Aggregates(filename)
    st = _State()
    flags = st.flags
    calls = tr.calls
    hot_calls = dict.fromkeys(_RW, 0)
    first = 1
    warnings: list[str] = []
    limit, cut_line = _cut_last_line(path, filename)
    work = None  # the scan's buffer, reused chunk after chunk
    for _, data in _terminal_notes(read_byte_chunks(path, progress, limit=limit), st):
        sc = scan(data, work)
        if sc is not None and sc.buf is not None:
            work = sc.buf.obj
        rows = None
        if sc is not None and 2 * _vectorised_lines(sc) >= sc.n:
            rows = _chunk_by_scan(tr, st, hot_calls, sc, data, first)
        if rows is None:  # another layout, or few plain reads and writes: line by line
            _chunk_by_lines(tr, st, hot_calls, data.decode("latin-1").splitlines(), first)
            rows = np.array(tr.rows, dtype=float).reshape(-1, ROW_FIELDS) if tr.rows else None
        agg.add(_classify(tr, rows))
        tr.new_chunk()
        tr.end_chunk()
        first += sc.n if sc is not None else data.count(b"\n")  # the scan counted the chunk's lines
        sc = rows = None  # freed before the next chunk is scanned: memory for one chunk's arrays, not two
    if cut_line is not None:
        warnings.append(f"line {first}, the last, is cut short (strace stopped while writing it?) and was left out: "
                        f"{cut_line[:80]!r}")
    lines, t_last = st.lines, st.t_last
    if not abs(t_last) <= MAX_SPAN_S:
        raise _span_error(filename, t_last)
    if t_last < 0:
        raise ParseError(filename, None, f"time stamps that do not go backwards overall: the last line is "
                                         f"{-t_last:.6f} s before the first")
    if lines == 0:
        raise ParseError(filename, 1, f"{EXPECTED}; the file is empty")
    tr.end_chunk(final=True)
    calls.update({k: v for k, v in hot_calls.items() if v})
    if any(hot_calls.values()):
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
                    "durations": flags["durations"], "terminal_layout": flags["terminal"]},
        "warnings": warnings,
    }
    aggregates = {
        "classes": list(CLASSES),
        "bytes": agg.bytes.tolist(),
        "ops": agg.ops.tolist(),
        "busy_s": agg.busy_s.tolist(),
        "busy_union_s": agg.busy_union_s,
        "consecutive_ops": {"read": int(agg.consecutive[0]), "write": int(agg.consecutive[1])},
        "bytes_per_second": agg.per_second.tolist(),
        "ops_per_second": agg.ops_per_second.tolist(),
        "busy_per_second": agg.busy_per_second.tolist(),
        "size_bins": list(SIZE_BINS),
        "size_hist": agg.size_hist.tolist(),
        "iat_bins": list(IAT_BINS),
        "iat_hist": agg.iat_hist.tolist(),
        "iat_zero": agg.iat_zero.tolist(),
    }
    return Parsed(format="strace", kind="strace", meta=meta, aggregates=aggregates)
