"""strace bookkeeping on a real trace made now: dup shares the offset, lseek moves it, fork inherits it,
pread leaves it alone; signals, exits and <unfinished ...>/<... resumed> pairs are understood.

The traced program is below; strace runs it in the test (-f -tt -T, and -ttt -T -y)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from apps.profiles.parsers import parse

PROGRAM = r'''
import os, signal, sys, threading, time
path = sys.argv[1]
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
os.write(fd, b"x" * 65536)                  # sequential write at 0
os.close(fd)
fd = os.open(path, os.O_RDONLY)
os.read(fd, 4096)                           # sequential: at 0
fd2 = os.dup(fd)
os.read(fd2, 4096)                          # sequential: 4096, the offset is shared with fd
os.lseek(fd, 40960, os.SEEK_SET)
os.read(fd, 4096)                           # random: jumps from 8192 to 40960
os.read(fd2, 4096)                          # sequential: 45056 through the shared offset
os.pread(fd, 4096, 0)                       # random: back to 0 (the offset stays at 49152)
pid = os.fork()
if pid == 0:
    os.read(fd, 4096)                       # random: at 49152 (shared offset) but the last access ended at 4096
    os._exit(0)
os.waitpid(pid, 0)
os.close(fd2)
r, w = os.pipe()
t = threading.Thread(target=os.read, args=(r, 1))   # blocks: strace shows <unfinished ...> then resumed
t.start()
time.sleep(0.2)
os.write(w, b"!")
t.join()
signal.signal(signal.SIGUSR1, lambda *a: None)
os.kill(os.getpid(), signal.SIGUSR1)
'''


@pytest.fixture(params=["-tt -T", "-ttt -T -y"])
def trace(request, tmp_path):
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed")
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM)
    out = tmp_path / "trace.strace"
    data = tmp_path / "data.bin"
    subprocess.run(["strace", "-f", *request.param.split(), "-o", str(out), sys.executable, "-S", str(prog), str(data)],
                   check=True, timeout=60)
    return out, str(data)


def test_offsets_follow_dup_lseek_fork_and_pread(trace):
    out, data = trace
    p = parse(out)
    files = {row[0]: row[1:] for row in p.meta["top_files"]}
    nbytes, seq_r, rand_r, seq_w, rand_w = files[data]
    assert (seq_r, rand_r, seq_w, rand_w) == (3, 3, 1, 0)
    assert nbytes == 65536 + 6 * 4096


def test_processes_signals_and_resumed_calls_are_counted(trace):
    out, _ = trace
    text = out.read_text()
    assert "<unfinished ...>" in text and "resumed>" in text and "--- SIGUSR1" in text
    p = parse(out)
    assert p.meta["processes"] >= 3  # the program, its thread and its child
    assert p.meta["signals"] >= 2  # SIGUSR1 and the child's SIGCHLD
    assert p.meta["exits"] >= 2
    assert p.meta["other_io_bytes"] >= 2  # the pipe's byte, written then read
