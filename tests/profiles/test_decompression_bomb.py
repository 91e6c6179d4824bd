"""Decompression bombs: a Darshan log of 2 kB whose bzip2 region inflates to gigabytes is refused after bounded
work (output cap and ratio cap), on a real worker whose memory stays under 1 GB.

The attack: a 1,184-byte log drove the import to 2.0 GB RSS through ``POST /api/v1/profiles/imports/``; a 3,422-byte
one reached 8.5 GB (``_inflate()`` inflated each region in one call, without an output limit)."""

from __future__ import annotations

import bz2
import struct
import zlib
from pathlib import Path

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from worker_processes import wait_for

from apps.profiles.models import Profile, ProfileImport
from apps.profiles.parsers import ParseError, parse
from apps.profiles.parsers.darshan import DARSHAN_MAGIC_NR, INFLATE_CHUNK_BYTES, MAX_INFLATE_RATIO, _inflate

MIB = 1024**2
#: one bzip2 stream of 48 blocks of 45,000,000 zeros each: 2.16 GB from 1,736 bytes
BOMB_BLOCKS, BLOCK_ZEROS = 48, 45_000_000
_BLOCK_MAGIC, _END_MAGIC = f"{0x314159265359:048b}", f"{0x177245385090:048b}"


@pytest.fixture(scope="module")
def bzip2_bomb() -> bytes:
    """One bzip2 stream (as the attack's) of ``BOMB_BLOCKS`` copies of the block bzip2 makes of ``BLOCK_ZEROS`` zeros.

    bzip2 blocks are independent (each run-length encoded on its own, with its own CRC) and bit-aligned: the
    stream is "BZh9", the blocks' bits, the end magic, the combined CRC (each step: rotate left by one, xor the
    block's CRC) and zero bits to a whole byte."""
    bits = "".join(f"{b:08b}" for b in bz2.compress(bytes(BLOCK_ZEROS), 9))
    end = bits.rindex(_END_MAGIC)
    block = bits[32:end]
    assert block.startswith(_BLOCK_MAGIC) and _BLOCK_MAGIC not in block[1:], "one block"
    crc = int(block[48:80], 2)
    combined = 0
    for _ in range(BOMB_BLOCKS):
        combined = (((combined << 1) | (combined >> 31)) & 0xFFFFFFFF) ^ crc
    stream = bits[:32] + block * BOMB_BLOCKS + _END_MAGIC + f"{combined:032b}"
    stream += "0" * (-len(stream) % 8)
    return int(stream, 2).to_bytes(len(stream) // 8, "big")


def _darshan_log(region: bytes, comp: int = 1) -> bytes:
    """A Darshan 3.21 header (darshan-log-format.h: version, magic, compression, partial flag, 17 maps of
    offset+length, 16 module versions), a job record and a name map, then ``region`` as module 0's data."""
    pack = bz2.compress if comp == 1 else zlib.compress
    job, names = pack(b"job record"), pack(b"name map")
    header_bytes = 24 + 16 * 17 + 4 * 16
    maps = [(header_bytes + len(job), len(names)), (header_bytes + len(job) + len(names), len(region))]
    maps += [(0, 0)] * (17 - len(maps))
    header = b"3.21\0\0\0\0" + struct.pack("<q", DARSHAN_MAGIC_NR) + bytes([comp, 0, 0, 0]) + struct.pack("<I", 0)
    header += b"".join(struct.pack("<QQ", *m) for m in maps) + struct.pack("<16I", *([0] * 16))
    assert len(header) == header_bytes
    return header + job + names + region


def test_the_bomb_is_small_and_one_valid_stream(bzip2_bomb):
    log = _darshan_log(bzip2_bomb)
    assert 1000 < len(log) < 3 * 1024
    d = bz2.BZ2Decompressor()
    first = d.decompress(bzip2_bomb, 8 * MIB)  # the first 8 MB of its 2.16 GB: zeros, and the stream goes on
    assert first == bytes(8 * MIB) and not d.eof and not d.needs_input


def test_a_bzip2_bomb_is_refused_naming_the_file_and_region(bzip2_bomb, tmp_path):
    path = tmp_path / "bomb.darshan"
    path.write_bytes(_darshan_log(bzip2_bomb))
    with pytest.raises(ParseError) as err:
        parse(path)
    message = str(err.value)
    assert message.startswith("bomb.darshan: the region of module 0 at bytes") and "decompression bomb" in message


def test_inflation_stops_within_a_chunk_of_the_ratio_cap():
    """64 MiB of zeros in 65 kB of zlib (ratio ~1,000): refused once past the ratio, having inflated at most a few
    MiB (not the 64 MiB)."""
    data = zlib.compress(bytes(64 * MIB), 9)
    inflated = []
    real = zlib.decompressobj

    class Counting:
        def __init__(self):
            self.d = real()

        def decompress(self, data, max_length=0):
            out = self.d.decompress(data, max_length)
            inflated.append(len(out))
            return out

        def __getattr__(self, name):
            return getattr(self.d, name)

    zlib.decompressobj = Counting
    try:
        with pytest.raises(ValueError, match=f"more than {MAX_INFLATE_RATIO} times"):
            _inflate(data, "zlib")
    finally:
        zlib.decompressobj = real
    assert max(inflated) <= INFLATE_CHUNK_BYTES and sum(inflated) <= 8 * MIB


def test_a_real_log_inflates_within_the_bounds(samples):
    for name in ("example.darshan", "ior_hdf5_example.darshan"):
        assert parse(samples / "darshan" / name).format == "darshan"


@pytest.fixture
def worker_media(settings, celery_worker_process):
    """The worker process reads uploads from its own MEDIA_ROOT (the project default): use the same one."""
    from apps import settings as project_settings

    settings.MEDIA_ROOT = project_settings.MEDIA_ROOT
    return celery_worker_process


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def _peak_rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmHWM for process {pid}")


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_a_worker_refuses_the_bomb_staying_under_1_gb(worker_media, user, bzip2_bomb, tmp_path):
    path = tmp_path / "bomb.darshan"
    path.write_bytes(_darshan_log(bzip2_bomb))
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    with open(path, "rb") as fh:
        response = api.post("/api/v1/profiles/imports/", {"file": fh}, format="multipart")
    assert response.status_code == 202, response.content
    job = wait_for(lambda: ProfileImport.objects.filter(pk=response.json()["id"], status__in=["failed", "succeeded"])
                   .first(), 120, "the bomb's import to finish")
    assert job.status == "failed" and job.error.startswith("bomb.darshan: ") and "decompression bomb" in job.error
    assert not Profile.objects.exists()
    worker = worker_media["process"].pid
    peaks = {pid: _peak_rss_bytes(pid) for pid in [worker, *_children(worker)]}
    assert len(peaks) >= 2 and max(peaks.values()) < 1024**3, peaks
