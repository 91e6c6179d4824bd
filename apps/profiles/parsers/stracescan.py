"""Vectorised tokenising of a chunk of strace lines: numpy over the bytes instead of Python per line.

:func:`scan` looks at every line of a chunk at once and returns, per line, its PID and time
stamp and — for the lines that are plain ``read``/``write``/``pread64``/``pwrite64`` calls on a
numeric descriptor, with or without its ``-y`` path (the bulk of an I/O trace) — the call,
descriptor, where its path is, result, offset and duration.  A hot call strace split in an
``<unfinished ...>`` line and a ``<... name resumed>`` line of the same PID is joined (the pair is read
as one call at its resumed line, with its start's time stamp, descriptor and path).  Other whole calls
and other joined pairs are keyed by their name, so the caller can count those it does not follow without
reading them.  The rest (opens, seeks, closes, signals, halves without their pair) are marked for the
per-line parser.  It returns ``None`` when the chunk is
not in the one layout it knows (``PID SP TIME SP ...`` with ``-tt`` or ``-ttt`` microsecond
stamps on every line), and the caller parses that chunk line by line as before.

Each line's ``PID SP TIME SP`` prefix and the ``(`` after its call's name are found in the words at
its start (the first byte equal to, or different from, a given one, located in a 64-bit word with a
zero-byte test and a multiply), not in lists of every space and parenthesis of the chunk; so are the commas,
``<`` and ``=`` that end a line's fields, in the words next to where they should be (a list of every such byte
of the chunk is made only when many lines' are not found so, as the comma after a ``-y`` path).  Numbers are
read from their bytes: the 16 bytes before a number's end are loaded as two
64-bit words (unaligned loads from a strided view of the buffer), the bytes before the number are
shifted out (replaced by '0'), the words checked to hold only digits, and the digits combined
by the SWAR multiply-shift trick.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Scan", "scan", "plain_results", "HOT_NAMES", "PAD"]

#: the calls handled here; index = the code in :attr:`Scan.name`
HOT_NAMES = ("read", "write", "pread64", "pwrite64")
#: bytes before the chunk in the scan's buffer (``Scan.starts``/``ends`` count them)
PAD = 16
_PAD = PAD
_U = np.uint64
_LOW_NIBBLES, _HIGH_NIBBLES = _U(0x0F0F0F0F0F0F0F0F), _U(0xF0F0F0F0F0F0F0F0)
_ZEROS, _SIXES, _THREES = _U(0x3030303030303030), _U(0x0606060606060606), _U(0x3333333333333333)
_M1, _M2 = _U(0x00FF00FF00FF00FF), _U(0x0000FFFF0000FFFF)
_F1, _F2, _F3 = _U(2561), _U(6553601), _U(42949672960001)
_POW10 = 10.0 ** np.arange(17)
_POW10_INT = np.array([10**k for k in range(17)], dtype=np.uint64)
_SP, _NL, _LT, _GT, _EQ, _COMMA, _PAREN, _CPAREN, _COLON, _DOT = (ord(c) for c in " \n<>=,():.")
#: the first 8 bytes of "name(" for each hot call, little-endian, and how many of them to compare
_NAME_WORDS = [(int.from_bytes((n + "(").encode()[:8].ljust(8, b"\0"), "little"), min(len(n) + 1, 8), len(n))
               for n in HOT_NAMES]
#: "<... " opening a resumed half, and the 16 bytes ending an unfinished one ("<unfinished ...>")
_RESUMED_WORD = int.from_bytes(b"<... ", "little")
_UNFINISHED_WORDS = (int.from_bytes(b"<unfinis", "little"), int.from_bytes(b"hed ...>", "little"))
_LOW7, _HIGH_BITS = _U(0x7F7F7F7F7F7F7F7F), _U(0x8080808080808080)
#: multiplying the word 1 << 8k by this puts k in the top byte
_BYTE_AT = _U(0x0001020304050607)
#: XOR turning the two colons of "HH:MM:SS" (bytes 2 and 5 of its word) into '0' (':' ^ '0' = 0x0A)
_COLONS_TO_0 = _U(0x0A << 16 | 0x0A << 40)


@dataclass
class Scan:
    """Per line of a chunk (``n`` lines): PID, clock seconds (``-tt``: seconds of the day, before
    any day roll-over; ``-ttt``: Unix seconds) and whether the line is a hot call, with its fields
    (meaningful where ``hot``)."""

    n: int
    absolute: bool
    pid: np.ndarray
    clock: np.ndarray
    hot: np.ndarray
    name: np.ndarray
    fd: np.ndarray
    ret: np.ndarray
    offset: np.ndarray
    dur: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    #: ``-y``: where the descriptor's ``<path>`` is in the buffer (``path_end == path_start``: no path)
    path_start: np.ndarray | None = None
    path_end: np.ndarray | None = None
    #: the padded chunk the positions point into (a view of the buffer, which the next scan may reuse)
    buf: memoryview | None = None
    #: a hot line that is a resumed half: the line of its unfinished start (else the line itself); the starts
    #: so joined are ``skip``ped (neither hot nor for the per-line parser)
    partner: np.ndarray | None = None
    skip: np.ndarray | None = None
    #: other whole calls (not hot, not split) with the key of their name and where the name is in the buffer
    whole: np.ndarray | None = None
    name_key: np.ndarray | None = None
    name_start: np.ndarray | None = None
    name_end: np.ndarray | None = None
    #: a resumed half (not hot): the line of its unfinished start, same PID and call; else -1
    pair_prev: np.ndarray | None = None
    #: set by the caller: the whole lines it counted without reading them
    quiet: np.ndarray | None = None
    #: where each line's last '<', the last '=' before it, and the last byte before that '=' and its spaces are
    lt: np.ndarray | None = None
    eq: np.ndarray | None = None
    close_at: np.ndarray | None = None

    def words_at(self, positions: np.ndarray) -> np.ndarray:
        """The 8 bytes at each buffer position, as little-endian words."""
        return _words(self.buf)[positions]


def _swar8(w: np.ndarray) -> np.ndarray:
    w *= _F1
    w >>= _U(8)
    w &= _M1
    w *= _F2
    w >>= _U(16)
    w &= _M2
    w *= _F3
    w >>= _U(32)
    return w


def _digits(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Words of 8 bytes as digit nibbles (in place), and whether all 8 bytes are digits."""
    ok = ((w & _HIGH_NIBBLES) | (((w + _SIXES) & _HIGH_NIBBLES) >> _U(4))) == _THREES
    w &= _LOW_NIBBLES
    return w, ok


def _window(A: np.ndarray, first: np.ndarray, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 8 bytes from buffer byte ``first`` (any alignment; ``A`` is :func:`_words` of the buffer), all but
    the top ``keep`` replaced by '0': as digit nibbles, and whether all 8 are digits."""
    w = A[first]  # one unaligned load per position: twice as fast as two aligned takes joined by shifts
    k = (_U(8) - keep) << _U(3)
    w >>= k
    w <<= k
    w |= _ZEROS >> (_U(64) - k)
    return _digits(w)


def _first_byte(w: np.ndarray, byte: int, other: bool = False) -> np.ndarray:
    """In each little-endian word, where the first byte equal to ``byte`` is (with ``other``: the first byte
    that is not), 0 to 7, or 8 where there is none."""
    x = w ^ _U(0x0101010101010101 * byte)
    hit = ((x & _LOW7) + _LOW7) | x  # high bit of each byte set where x's byte is not zero (exact: no carries)
    hit = (hit & _HIGH_BITS) if other else (~(hit | _LOW7))
    lowest = hit & (~hit + _U(1))
    at = ((lowest >> _U(7)) * _BYTE_AT) >> _U(56)  # 0x80 << 8k -> k
    return np.where(hit == 0, 8, at.astype(np.int64))


def _words(buf) -> np.ndarray:
    """The 8 bytes from every byte position of ``buf`` on, as little-endian words (a view, no copy)."""
    return np.ndarray((len(buf) - 7,), dtype="<u8", buffer=buf, strides=(1,))


class _Seek:
    """Positions of given bytes near given places of a scanned buffer: first found in the words next to each
    place, else by a search of the buffer from each place (a few places), or a binary search in the list of every
    such byte of the buffer (many places; the list made once).

    The answers are those of the whole lists: the first such byte at or after a place (the buffer's last one when
    there is none), or the last one before it (the buffer's first when there is none)."""

    #: up to this many places left after the words: searched one by one
    ONE_BY_ONE = 64

    def __init__(self, a: np.ndarray, A: np.ndarray, buf: bytearray):
        self.a, self.A, self.buf, self.lists = a, A, buf, {}

    def _all(self, byte: int) -> np.ndarray:
        if byte not in self.lists:
            self.lists[byte] = np.flatnonzero(self.a == byte)
        return self.lists[byte]

    def near(self, x: np.ndarray, byte: int) -> np.ndarray:
        """The first ``byte`` among the 8 from each position ``x``; -1 where there is none."""
        k = _first_byte(self.A[np.minimum(x, len(self.A) - 1)], byte)
        return np.where((k < 8) & (x <= len(self.A) - 1), x + k, -1)

    def next(self, x: np.ndarray, byte: int, words: int) -> np.ndarray:
        """The first ``byte`` at or after each position ``x``, looked for in ``words`` words from it first."""
        out = np.full(len(x), -1, dtype=np.int64)
        todo = np.arange(len(x))
        last = len(self.A) - 1
        for step in range(words):
            p = x[todo] + 8 * step
            inside = p <= last
            k = _first_byte(self.A[np.minimum(p, last)], byte)
            found = inside & (k < 8)
            out[todo[found]] = p[found] + k[found]
            todo = todo[inside & ~found]
            if not len(todo):
                break
        rest = np.flatnonzero(out < 0)
        if 0 < len(rest) <= self.ONE_BY_ONE and byte not in self.lists:
            b, size = bytes((byte,)), len(self.a)
            found = [self.buf.find(b, i, size) for i in x[rest].tolist()]
            out[rest] = [i if i >= 0 else self.buf.rfind(b, 0, size) for i in found]
        elif len(rest):
            every = self._all(byte)
            out[rest] = every[np.minimum(np.searchsorted(every, x[rest]), len(every) - 1)]
        return out

    def prev(self, x: np.ndarray, byte: int, words: int) -> np.ndarray:
        """The last ``byte`` before each position ``x``, looked for in the ``words`` words before it."""
        out = np.full(len(x), -1, dtype=np.int64)
        todo = np.arange(len(x))
        for step in range(1, words + 1):
            p = x[todo] - 8 * step
            inside = p >= 0
            k = _first_byte(self.A[np.maximum(p, 0)].byteswap(), byte)  # from the word's last byte back
            found = inside & (k < 8)
            out[todo[found]] = p[found] + 7 - k[found]
            todo = todo[inside & ~found]
            if not len(todo):
                break
        rest = np.flatnonzero(out < 0)
        if 0 < len(rest) <= self.ONE_BY_ONE and byte not in self.lists:
            b, size = bytes((byte,)), len(self.a)
            found = [self.buf.rfind(b, 0, max(i, 0)) for i in x[rest].tolist()]
            out[rest] = [i if i >= 0 else self.buf.find(b, 0, size) for i in found]
        elif len(rest):
            every = self._all(byte)
            out[rest] = every[np.maximum(np.searchsorted(every, x[rest]) - 1, 0)]
        return out


def _number(A: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values of the decimal digits in buffer bytes ``[start, end)`` (1 to 16 bytes: checked by the caller;
    ``A`` is :func:`_words` of the buffer), and whether they are all digits."""
    end = end.astype(np.uint64)
    length = end - start.astype(np.uint64)
    low, ok = _window(A, end - _U(8), np.minimum(length, _U(8)))
    low = _swar8(low)
    if (length > 8).any():
        high, ok_high = _window(A, end - _U(16), np.clip(length, _U(8), _U(16)) - _U(8))
        high = _swar8(high)
        high *= _U(100_000_000)
        low += high
        ok &= ok_high
    return low.view(np.int64), ok


def scan(data: bytes, work: bytearray | None = None) -> Scan | None:
    """Tokenise a chunk of whole strace lines (see the module docstring); None when its layout is not the known one.

    ``work``, when given, is a buffer from an earlier call (:attr:`Scan.buf`'s ``obj``) reused when big enough:
    a fresh one per chunk costs as much again as copying the chunk in (the pages are new)."""
    n_bytes = len(data)
    size = ((_PAD + n_bytes + 8) // 8 + 4) * 8  # 24 bytes or more after the chunk: words read past a line's end
    if work is None or len(work) < size:
        work = bytearray(size)
    else:
        work[_PAD + n_bytes:size] = bytes(size - _PAD - n_bytes)  # the padding after the chunk reads as zeros
    work[_PAD:_PAD + n_bytes] = data  # the _PAD bytes before it are never written
    buf = memoryview(work)[:size]
    a = np.frombuffer(buf, dtype=np.uint8)
    A = _words(buf)
    body = a[_PAD:_PAD + n_bytes]
    ends = np.flatnonzero(body == _NL)
    if not len(ends) or ends[-1] != n_bytes - 1:
        return None
    # bytes str.splitlines() breaks lines at (the per-line parser keeps its line numbers): looked for only when
    # a control byte other than the newlines, or a byte above 0x7f, is there at all (strace escapes both)
    if (np.count_nonzero(body < 32) != len(ends) or body.max() > 0x7F) \
            and (((body >= 11) & (body <= 13)) | ((body >= 28) & (body <= 30)) | (body == 0x85)).any():
        return None
    ends += _PAD
    starts = np.empty_like(ends)
    starts[0] = _PAD
    starts[1:] = ends[:-1] + 1
    if ((ends - starts) < 20).any():
        return None  # blank or short lines: the per-line parser names them
    # "PID SP+ TIME SP", found in the words at each line's start rather than in a list of every space:
    # the PID's end, the last space of the run after it (strace pads short PIDs) and the space after the stamp
    pid_end = starts + _first_byte(A[starts], _SP)
    run = _first_byte(A[pid_end], _SP, other=True)
    wide = np.flatnonzero(run == 8)
    run[wide] += _first_byte(A[pid_end[wide] + 8], _SP, other=True)
    if (run > 9).any():
        return None  # a run of spaces no stamp follows
    sp1 = pid_end + run - 1
    sp2 = sp1 + 1 + _first_byte(A[sp1 + 1], _SP)
    for more in (9, 17):  # -ttt stamps are up to 17 bytes
        far = np.flatnonzero(sp2 - sp1 == more)
        sp2[far] += _first_byte(A[sp1[far] + more], _SP)
    if (sp2 >= ends).any() or ((pid_end - starts) < 1).any() or ((pid_end - starts) > 7).any():
        return None  # not "PID SP TIME SP" on every line
    pid, ok = _number(A, starts, pid_end)
    if not ok.all():
        return None
    stamp_len = sp2 - sp1 - 1
    if a[sp1[0] + 3] == _COLON:  # -tt: HH:MM:SS.uuuuuu
        absolute = False
        if (stamp_len != 15).any() or (a[sp1 + 3] != _COLON).any() or (a[sp1 + 6] != _COLON).any() \
                or (a[sp1 + 9] != _DOT).any():
            return None
        # "HH:MM:SS" as one word, its colons turned to '0': the digits of HH0MM0SS
        hms, ok1 = _digits(A[sp1 + 1] ^ _COLONS_TO_0)
        hms = _swar8(hms).view(np.int64)
        us, ok2 = _number(A, sp1 + 10, sp2)
        if not (ok1 & ok2).all():
            return None
        # as the per-line parser: whole minutes plus float("SS.uuuuuu")
        clock = ((hms // 1_000_000) * 3600 + (hms // 1000 % 1000) * 60).astype(float) + (hms % 1000 * 1_000_000 + us) / 1e6
    else:  # -ttt: seconds.uuuuuu
        absolute = True
        dot = sp2 - 7
        if (stamp_len < 8).any() or (stamp_len > 17).any() or (a[dot] != _DOT).any():
            return None
        (whole, ok1), (frac, ok2) = _number(A, sp1 + 1, dot), _number(A, dot + 1, sp2)
        micro = whole * 1_000_000 + frac
        if not (ok1 & ok2).all() or (micro >= 2**53).any():
            return None
        clock = micro / 1e6
    n = len(ends)
    # hot calls: "name(" right after the stamp, a numeric fd, ") = N <D.DDDDDD>" at the end
    name = np.full(n, -1, dtype=np.int64)
    word = A[sp2 + 1]
    for code, (value, width, _) in enumerate(_NAME_WORDS):
        mask = _U((1 << (8 * width)) - 1)
        name[(word & mask) == _U(value)] = code
    # "<... name resumed>" right after the stamp: the second half of a call strace split
    rname = np.full(n, -1, dtype=np.int64)
    resumed = (word & _U(0xFFFFFFFFFF)) == _U(_RESUMED_WORD)
    r = np.flatnonzero(resumed)
    if len(r):
        rword = A[sp2[r] + 6]
        for code, (_, _width, length) in enumerate(_NAME_WORDS):
            value = int.from_bytes((HOT_NAMES[code] + " ").encode()[:8].ljust(8, b"\0"), "little")
            mask = _U((1 << (8 * min(length + 1, 8))) - 1)
            rname[r[(rword & mask) == _U(value)]] = code
    unfinished = ((ends - starts) > 17) & (A[np.maximum(ends - 16, 0)] == _U(_UNFINISHED_WORDS[0]))
    unfinished &= A[np.maximum(ends - 8, 0)] == _U(_UNFINISHED_WORDS[1])
    hot = name >= 0
    if not ((hot.any() or (rname >= 0).any()) and b"," in data and b"<" in data and b"=" in data):
        hot[:] = False
        return Scan(n, absolute, pid, clock, hot, name, *(np.zeros(n, dtype=np.int64),) * 3, np.zeros(n),
                    starts, ends, partner=np.arange(n), skip=np.zeros(n, dtype=bool), whole=np.zeros(n, dtype=bool))
    name_len = np.array([w[2] for w in _NAME_WORDS])[np.maximum(name, 0)]
    fd_start = sp2 + 2 + name_len
    fd_ok = hot & (a[np.minimum(fd_start - 1, size - 1)] == _PAREN)
    # where the commas, '<' and '=' the fields end at are: looked for in the words next to where they should be
    # (see _Seek), for the lines they matter to (the others get a position in their line, never used)
    seek = _Seek(a, A, work)
    maybe = np.flatnonzero(hot)  # a hot call's name: its descriptor's end
    fd_end, lt_fd = sp2.copy(), sp2.copy()
    # -y: "fd<path>," - the digits end at the first '<' (of up to 7 digits: in the word from the descriptor), the
    # path at the '>' before the comma; the comma after a path is found in the list of every comma
    lt_near, comma_near = seek.near(fd_start[maybe], _LT), seek.near(fd_start[maybe], _COMMA)
    with_path = (lt_near >= 0) & ((comma_near < 0) | (lt_near < comma_near))
    fd_end[maybe] = comma_near
    rest = maybe[(comma_near < 0) & ~with_path]
    fd_end[rest] = seek.next(fd_start[rest], _COMMA, 2)
    fd_end[maybe[with_path]] = seek.next(fd_start[maybe[with_path]], _COMMA, 0)
    # a '<' that is not before the comma, or past the 8 bytes (more than 7 digits: not a descriptor either way),
    # is no path's: taken as the comma itself
    lt_fd[maybe] = np.where(with_path & (lt_near < fd_end[maybe]), lt_near, fd_end[maybe])
    has_path = (lt_fd > fd_start) & (lt_fd < fd_end) & (a[fd_end - 1] == _GT)
    path_start = np.where(has_path, lt_fd + 1, 0)
    path_end = np.where(has_path, fd_end - 1, 0)
    fd_digits_end = np.where(has_path, lt_fd, fd_end)
    fd_ok &= ~has_path | (path_end > path_start)  # "fd<>": an empty path, left to the per-line parser
    fd_ok &= (fd_digits_end > fd_start) & (fd_digits_end - fd_start <= 7) & (fd_end < ends)
    # a line's last '<' and the last '=' before it: read where the line ends with '>' and is not an unfinished half
    ended = np.flatnonzero((a[ends - 1] == _GT) & ~unfinished)
    lt, eq = sp2.copy(), sp2.copy()
    lt[ended] = seek.prev(ends[ended], _LT, 3)
    eq[ended] = seek.prev(lt[ended], _EQ, 8)  # past 3 words: failed calls ("= -1 ENOENT (No such file...)")
    dot = ends - 8
    # the result part of a whole call or of a resumed half: ") = N <S.UUUUUU>"
    res_ok = (a[ends - 1] == _GT) & (lt > sp2) & (a[dot] == _DOT) & (dot - lt >= 2) & (dot - lt <= 9)
    res_ok &= (a[eq - 1] == _SP) & (a[eq - 2] == _CPAREN) & (a[eq + 1] == _SP) & (a[lt - 1] == _SP)
    res_ok &= (lt - 1 - (eq + 2) >= 1) & (lt - 1 - (eq + 2) <= 16)
    rname_len = np.array([w[2] for w in _NAME_WORDS])[np.maximum(rname, 0)]
    args_from = np.where(rname >= 0, sp2 + 6 + rname_len + 9, fd_end)  # after "<... name resumed>"
    hot = fd_ok & res_ok & (eq > fd_end)
    half = (rname >= 0) & res_ok & (eq > args_from)
    half &= a[np.minimum(sp2 + 6 + rname_len + 8, size - 1)] == _GT
    code = np.where(half, rname, name)
    positional = (hot | half) & (code >= 2)
    off_comma = sp2.copy()
    at = np.flatnonzero(positional)
    off_comma[at] = seek.prev(eq[at] - 2, _COMMA, 3)
    off_ok = (off_comma >= args_from) & (a[off_comma + 1] == _SP) & (eq - 2 - (off_comma + 2) >= 1) \
        & (eq - 2 - (off_comma + 2) <= 16)
    hot &= ~positional | off_ok
    half &= ~positional | off_ok
    # other whole calls, "name(...) = R <S.UUUUUU>" with a name of 1-16 bytes: keyed by their name's bytes
    # (the caller counts those that change nothing it follows, without reading them line by line)
    paren_at = sp2 + 1 + _first_byte(A[sp2 + 1], _PAREN)
    for more in (8, 16):  # names of up to 16 bytes; past that the line's name is not keyed
        far = np.flatnonzero(paren_at - sp2 - 1 == more)
        paren_at[far] += _first_byte(A[sp2[far] + 1 + more], _PAREN)
    name_width = paren_at - sp2 - 1
    complete = (name_width >= 1) & (name_width <= 16) & (paren_at < eq) & ~resumed & ~unfinished
    complete &= (a[ends - 1] == _GT) & (lt > eq) & (a[dot] == _DOT) & (dot - lt >= 2) & (dot - lt <= 9)
    complete &= (a[eq - 1] == _SP) & (a[eq + 1] == _SP) & (a[lt - 1] == _SP)
    # strace pads a short call's result to column 40 ("close(3)          = 0"): its ')' is before the spaces
    close_at = eq - 2
    padded = np.flatnonzero((complete | resumed) & (a[eq - 1] == _SP) & (a[close_at] == _SP))
    for _ in range(64):
        if not len(padded):
            break
        close_at[padded] -= 1
        padded = padded[a[close_at[padded]] == _SP]
    complete &= (a[close_at] == _CPAREN) & (close_at > paren_at)
    w8 = np.minimum(name_width, 8).astype(np.uint64) * _U(8)
    low_mask = np.where(w8 >= _U(64), _U(0xFFFFFFFFFFFFFFFF), (_U(1) << np.minimum(w8, _U(63))) - _U(1))
    rest8 = np.clip(name_width - 8, 0, 8).astype(np.uint64) * _U(8)
    high_mask = np.where(rest8 >= _U(64), _U(0xFFFFFFFFFFFFFFFF), (_U(1) << np.minimum(rest8, _U(63))) - _U(1))
    words = A
    name_start, name_end = sp2 + 1, paren_at.copy()
    if len(r):  # a resumed half's name: after "<... ", up to the space before "resumed>"
        rn_start = sp2[r] + 6
        rn_end = rn_start + _first_byte(A[rn_start], _SP)
        for more in (8, 16):  # names of up to 16 bytes; a longer one is not keyed
            far = np.flatnonzero(rn_end - rn_start == more)
            rn_end[far] += _first_byte(A[rn_start[far] + more], _SP)
        name_start[r], name_end[r] = rn_start, rn_end
        name_width[r] = rn_end - rn_start
        w8 = np.minimum(name_width, 8).astype(np.uint64) * _U(8)
        low_mask = np.where(w8 >= _U(64), _U(0xFFFFFFFFFFFFFFFF), (_U(1) << np.minimum(w8, _U(63))) - _U(1))
        rest8 = np.clip(name_width - 8, 0, 8).astype(np.uint64) * _U(8)
        high_mask = np.where(rest8 >= _U(64), _U(0xFFFFFFFFFFFFFFFF), (_U(1) << np.minimum(rest8, _U(63))) - _U(1))
    with np.errstate(over="ignore"):
        name_key = (words[np.minimum(name_start, size - 8)] & low_mask) * _U(0x9E3779B97F4A7C15) \
            ^ (words[np.minimum(name_start + 8, size - 8)] & high_mask) * _U(0xC2B2AE3D27D4EB4F) \
            ^ name_width.astype(np.uint64)
    named = (name_width >= 1) & (name_width <= 16)
    # pair each resumed half with its start: the PID's previous split line, an unfinished hot call of that name
    split = np.flatnonzero(unfinished | resumed)
    partner = np.arange(n)
    skip = np.zeros(n, dtype=bool)
    pair_prev = np.full(n, -1, dtype=np.int64)
    if len(split):
        by_pid = split[np.lexsort((split, pid[split]))]
        before, after = by_pid[:-1], by_pid[1:]
        joined = (pid[before] == pid[after]) & unfinished[before] & resumed[after] & named[before] & named[after] \
            & (name_key[before] == name_key[after])
        pair_prev[after[joined]] = before[joined]
        pair = (pid[before] == pid[after]) & unfinished[before] & fd_ok[before] & half[after] \
            & (name[before] == rname[after])
        starts_at, resumes_at = before[pair], after[pair]
        partner[resumes_at] = starts_at
        skip[starts_at] = True
        hot[resumes_at] = True
        name[resumes_at] = rname[resumes_at]
        fd_start[resumes_at], fd_digits_end[resumes_at] = fd_start[starts_at], fd_digits_end[starts_at]
        path_start[resumes_at], path_end[resumes_at] = path_start[starts_at], path_end[starts_at]
    h = np.flatnonzero(hot)
    fd = np.zeros(n, dtype=np.int64)
    ret = np.zeros(n, dtype=np.int64)
    offset = np.zeros(n, dtype=np.int64)
    dur = np.zeros(n)
    if len(h):
        fd[h], ok = _number(A, fd_start[h], fd_digits_end[h])
        ret[h], ok2 = _number(A, eq[h] + 2, lt[h] - 1)
        ok &= ok2
        whole, ok2 = _number(A, lt[h] + 1, dot[h])
        ok &= ok2
        frac, ok2 = _number(A, dot[h] + 1, ends[h] - 1)
        ok &= ok2
        # as float("S.uuuuuu"): the exact decimal, rounded once
        dur[h] = (whole * 1_000_000 + frac) / 1e6
        p = np.flatnonzero(name[h] >= 2)
        if len(p):
            offset[h[p]], ok2 = _number(A, off_comma[h[p]] + 2, eq[h[p]] - 2)
            ok[p] &= ok2
        bad = h[~ok]
        hot[bad] = False
        skip[partner[bad]] = False  # a pair that does not read as numbers goes line by line, both halves
        partner[bad] = bad
    name[~hot] = -1
    complete &= ~hot & ~skip
    pair_prev[hot | skip] = -1
    return Scan(n, absolute, pid, clock, hot, name, fd, ret, offset, dur, starts, ends, path_start, path_end, buf,
                partner, skip, complete, name_key, name_start, name_end, pair_prev=pair_prev, lt=lt, eq=eq,
                close_at=close_at)


def plain_results(sc: Scan, lines: np.ndarray, args_from: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Whether each of ``lines`` ends ``...) = N <S.UUUUUU>`` with its arguments from buffer byte ``args_from`` to
    the ')' (any spaces before '=', ``N`` 1 to 16 digits, ``S`` 1 to 8), and the seconds ``S.UUUUUU`` (as
    ``float()`` reads them; meaningful where it does)."""
    a = np.frombuffer(sc.buf, dtype=np.uint8)
    eq, lt, close_at, ends = sc.eq[lines], sc.lt[lines], sc.close_at[lines], sc.ends[lines]
    dot = ends - 8
    width = lt - 1 - (eq + 2)
    ok = (a[ends - 1] == _GT) & (lt > eq) & (a[dot] == _DOT) & (dot - lt >= 2) & (dot - lt <= 9)
    ok &= (a[eq - 1] == _SP) & (a[eq + 1] == _SP) & (a[lt - 1] == _SP) & (a[close_at] == _CPAREN)
    ok &= (close_at >= args_from) & (close_at < eq) & (width >= 1) & (width <= 16)
    seconds = np.zeros(len(lines))
    sel = np.flatnonzero(ok)
    if len(sel):
        A = _words(sc.buf)
        _, digits = _number(A, eq[sel] + 2, lt[sel] - 1)
        whole, ok2 = _number(A, lt[sel] + 1, dot[sel])
        digits &= ok2
        frac, ok2 = _number(A, dot[sel] + 1, ends[sel] - 1)
        digits &= ok2
        ok[sel] = digits
        seconds[sel] = (whole * 1_000_000 + frac) / 1e6
    return ok, seconds
