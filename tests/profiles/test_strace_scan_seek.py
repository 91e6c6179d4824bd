"""The strace scan's searches for a byte near given places give what the lists of every such byte give."""

from __future__ import annotations

import random

import numpy as np
import pytest

from apps.profiles.parsers.stracescan import PAD, _Seek, _words


def _buffer(rng: random.Random, n: int, density: float) -> bytearray:
    body = bytes(rng.choice(b",<=") if rng.random() < density else rng.choice(b"abc 0123\n") for _ in range(n))
    return bytearray(PAD) + bytearray(body) + bytearray(24)


@pytest.mark.parametrize("density", [0.002, 0.05, 0.5])
@pytest.mark.parametrize("places", [5, 300])  # a few places are searched one by one, many in the list
def test_it_finds_what_the_lists_find(density, places):
    rng = random.Random(int(density * 1000) + places)
    for _ in range(20):
        work = _buffer(rng, rng.randrange(50, 3000), density)
        buf = memoryview(work)
        a = np.frombuffer(buf, dtype=np.uint8)
        x = np.array([rng.randrange(0, len(work)) for _ in range(places)], dtype=np.int64)
        for byte in b",<=":
            every = np.flatnonzero(a == byte)
            if not len(every):
                continue
            first_at_or_after = every[np.minimum(np.searchsorted(every, x), len(every) - 1)]
            last_before = every[np.maximum(np.searchsorted(every, x) - 1, 0)]
            for words in (0, 1, 3):
                seek = _Seek(a, _words(buf), work)
                assert (seek.next(x, byte, words) == first_at_or_after).all()
                assert (seek.prev(x, byte, words) == last_before).all()
            near = _Seek(a, _words(buf), work).near(np.minimum(x, len(work) - 8), byte)
            for p, got in zip(np.minimum(x, len(work) - 8).tolist(), near.tolist(), strict=True):
                hit = work.find(bytes((byte,)), p, p + 8)
                assert got == hit
