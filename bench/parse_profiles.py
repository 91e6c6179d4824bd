"""Profile parser speed: generate large strace / CSV / pidstat files in var/ and time each parser on one core.

    python bench/parse_profiles.py [--mb 200] [--repeat 3]
                                   [--formats strace,strace_y,strace_tar,strace_fork,skyplan_csv,chiles_csv,pidstat]
                                   [--keep] [--against REF]

``strace_tar`` and ``strace_fork`` are real multi-process traces made on this machine when first asked for
(kept in var/bench-profiles/ since they take a minute to record; --mb does not apply): ``strace -f -tt -T``
of a tar pipeline (``tar cf - numpy pandas | tar xf -``: two processes over a pipe, most calls split in
``<unfinished ...>``/``<... resumed>`` pairs) and of fixtures/profiles/programs/forked_read.py (three forked
children reading their regions in 4 KiB preads of an inherited descriptor while the parent makes 20,000
random preads).

Each parser runs in a fresh process pinned to one CPU, so its peak RSS is its own; each format is
parsed ``--repeat`` times and the best (least CPU time) is reported, with the load average seen.  The generated
files imitate the real samples in fixtures/profiles/ (line shapes, sizes, a mix of sequential and
random accesses, of reads and other calls); they are synthetic load, not profiles of anything.
Targets: >= 50 MB/s of strace (simple and multi-process), >= 50 MB/s of pidstat, >= 200 MB/s of CSV.

With ``--against REF`` the parsers of commit ``REF`` (exported with ``git archive`` to a temporary directory)
parse each file too, ``--repeat`` times, alternating with this tree's in fresh pinned processes: the line under
each format gives REF's best MB/s, the ratio of the two bests and the median of the ratios of the pairs (a
peer measured in the same minutes, so the ratio holds on a loaded machine when the MB/s do not).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
VAR = ROOT / "var" / "bench-profiles"
TARGETS = {"strace": 50.0, "strace_y": 50.0, "strace_tar": 50.0, "strace_fork": 50.0, "skyplan_csv": 200.0,
           "chiles_csv": 200.0, "pidstat": 50.0}
#: the parser each generated file is read with (strace_y: strace -ttt -T -y text)
PARSER = {"strace_y": "strace", "strace_tar": "strace", "strace_fork": "strace"}
#: formats recorded for real by running programs under strace (kept once made)
RECORDED = ("strace_tar", "strace_fork")
PREVIEW = '"\\356\\200k\\270*\\254\\277ZQ\\35\\26\\272*+\\237;\\324\'_\\374u\\303\\242\\337\\4_O\\226\\215\\0h]"...'


def _strace_lines(rng: random.Random, n: int, clock: list[float], y: bool = False) -> str:
    """n strace -f -tt -T lines (with ``y``: -ttt -T -y, descriptors printed with their paths, as in
    fixtures/profiles/rand_read.strace): a sequential 1 MiB reader (pid 4001), a random 4 KiB reader
    (pid 4002) and, one line in ten, the calls around them (fstat, lseek, openat/close)."""
    out = []
    off = clock[1]
    fd3, fd5, fd6 = ("3</data/day1.ms/table.f1>", "5</data/image.tmp>", "6</data/day{}.ms/table.f1>") if y \
        else ("3", "5", "6")
    cwd = "AT_FDCWD</data>" if y else "AT_FDCWD"
    for _ in range(n):
        clock[0] += rng.expovariate(1 / 0.0002)
        t = clock[0]
        if y:
            stamp = f"{1795314676 + t:.6f}"
        else:
            h, rem = divmod(t, 3600)
            m, s = divmod(rem, 60)
            stamp = f"{int(h) % 24:02d}:{int(m):02d}:{s:09.6f}"
        r = rng.random()
        if r < 0.5:
            out.append(f"4001 {stamp} read({fd3}, {PREVIEW}, 1048576) = 1048576 <0.000{rng.randrange(100, 999)}>")
            off += 1048576
        elif r < 0.9:
            o = rng.randrange(262144) * 4096
            out.append(f"4002 {stamp} pread64({fd5}, {PREVIEW}, 4096, {o}) = 4096 <0.000{rng.randrange(10, 99):03d}>")
        elif r < 0.95:
            out.append(f'4002 {stamp} newfstatat({fd5}, "", {{st_mode=S_IFREG|0644, st_size=1073741824, ...}}, '
                       f"AT_EMPTY_PATH) = 0 <0.000009>")
        elif r < 0.98:
            out.append(f"4001 {stamp} lseek({fd3}, 0, SEEK_CUR) = {off} <0.000008>")
        else:
            day = rng.randrange(100)
            out.append(f'4001 {stamp} openat({cwd}, "/data/day{day}.ms/table.f1", O_RDONLY|O_CLOEXEC) '
                       f"= {fd6.format(day)} <0.000021>")
            out.append(f"4001 {stamp} close({fd6.format(day)}) = 0 <0.000008>")
    clock[1] = off
    return "\n".join(out) + "\n"


def record(fmt: str, path: Path) -> None:
    """Record a real multi-process trace of this machine into ``path`` (see the module docstring)."""
    import shutil
    import tempfile

    import numpy

    work = Path(tempfile.mkdtemp(dir=VAR))
    flags = ["strace", "-f", "-tt", "-T", "-e", "trace=%file,%desc,%process", "-o", str(path)]
    try:
        if fmt == "strace_tar":
            site = Path(numpy.__file__).resolve().parent.parent
            (work / "out").mkdir()
            subprocess.run([*flags, "sh", "-c", f"tar cf - -C '{site}' numpy pandas | tar xf - -C '{work / 'out'}'"],
                           check=True)
        else:
            data = work / "fork.bin"
            with open(data, "wb") as f:
                f.write(os.urandom(192 * 2**20))
            subprocess.run([*flags, sys.executable, str(ROOT / "fixtures/profiles/programs/forked_read.py"), str(data),
                            "20000", "4"], check=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def generate(fmt: str, path: Path, mb: float) -> None:
    target = int(mb * 1e6)
    rng = random.Random(1)
    with open(path, "w") as f:
        if fmt == "strace":
            clock = [9000.0, 0.0]
            f.write('4001 02:30:00.000000 openat(AT_FDCWD, "/data/day1.ms/table.f1", O_RDONLY|O_CLOEXEC) = 3 <0.000020>\n')
            f.write('4002 02:30:00.000001 openat(AT_FDCWD, "/data/image.tmp", O_RDONLY|O_CLOEXEC) = 5 <0.000020>\n')
            while f.tell() < target:
                f.write(_strace_lines(rng, 20000, clock))
            return
        if fmt == "strace_y":
            clock = [0.0, 0.0]
            f.write('4001 1795314676.000000 openat(AT_FDCWD</data>, "/data/day1.ms/table.f1", O_RDONLY|O_CLOEXEC) '
                    '= 3</data/day1.ms/table.f1> <0.000020>\n')
            f.write('4002 1795314676.000001 openat(AT_FDCWD</data>, "/data/image.tmp", O_RDONLY|O_CLOEXEC) '
                    '= 5</data/image.tmp> <0.000020>\n')
            while f.tell() < target:
                f.write(_strace_lines(rng, 20000, clock, y=True))
            return
        import numpy as np
        import pandas as pd

        rows = 200_000
        t0 = 1795314669.739
        if fmt == "skyplan_csv":
            f.write("# skyplan-profile v1\ntimestamp,cpu_user_pct,cpu_system_pct,rss_bytes,vm_bytes,read_bytes,"
                    "write_bytes,read_ops,write_ops,io_wait_pct,threads\n")
        elif fmt == "chiles_csv":
            f.write("Time stamp,Total CPU %,Kernel CPU %,VM,RSS,IOPS,Bytes/S,IO WAIT\n")
        elif fmt == "pidstat":
            f.write("Linux 6.18.44-fc-v669 (vm) \t11/22/26 \t_x86_64_\t(2 CPU)\n\n")
        i = 0
        gen = np.random.default_rng(1)
        while f.tell() < target:
            t = t0 + np.arange(i, i + rows, dtype=float)
            user = gen.uniform(0, 100, rows).round(2)
            system = gen.uniform(0, 40, rows).round(2)
            rss = gen.integers(10**7, 10**10, rows)
            vm = rss + gen.integers(0, 10**9, rows)
            rb = gen.integers(0, 2 * 10**9, rows)
            wb = gen.integers(0, 10**8, rows)
            if fmt == "skyplan_csv":
                frame = pd.DataFrame({"t": t.round(3), "u": user, "s": system, "rss": rss, "vm": vm, "rb": rb, "wb": wb,
                                      "ro": rb // 1048576, "wo": wb // 1048576, "w": gen.uniform(0, 5, rows).round(2),
                                      "th": gen.integers(1, 9, rows)})
                frame.to_csv(f, header=False, index=False)
            elif fmt == "chiles_csv":
                frame = pd.DataFrame({"t": t.round(3), "tot": (user + system).round(2), "k": system, "vm": vm, "rss": rss,
                                      "iops": gen.uniform(0, 3000, rows).round(1), "bps": rb + wb,
                                      "w": gen.uniform(0, 5, rows).round(2)})
                frame.to_csv(f, header=False, index=False)
            else:
                lines = ["# Time        UID       PID    %usr %system  %guest   %wait    %CPU   CPU  minflt/s  majflt/s"
                         "     VSZ     RSS   %MEM   kB_rd/s   kB_wr/s kB_ccwr/s iodelay  Command"]
                for k in range(0, rows, 10):
                    sec = int(t[k]) % 86400
                    clock = f"{sec // 3600:02d}:{sec // 60 % 60:02d}:{sec % 60:02d}"
                    lines.append(f"{clock}        0     16043 {user[k]:7.2f} {system[k]:7.2f}    0.00    1.00 "
                                 f"{user[k] + system[k]:7.2f}     1   1352.00      0.00 {vm[k] // 1024:7d} {rss[k] // 1024:7d}"
                                 f"   0.05 {rb[k] / 1024:9.2f} {wb[k] / 1024:9.2f}      0.00       0  python3")
                    lines.append("")
                f.write("\n".join(lines) + "\n")
            i += rows


def run_one(fmt: str, path: str) -> dict:
    """In the child process: parse on one core, report seconds and peak RSS."""
    try:
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    except (AttributeError, OSError):
        pass
    from apps.profiles.parsers import parse

    base_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # the interpreter with pandas loaded
    start, cpu0 = time.perf_counter(), time.process_time()
    parsed = parse(path, PARSER.get(fmt, fmt))
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu0
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rows = parsed.meta.get("lines") or parsed.meta.get("samples")
    out = {"seconds": seconds, "cpu_seconds": cpu, "peak_rss_mb": peak_kib / 1024, "base_rss_mb": base_kib / 1024,
           "rows": rows, "reference_cpu_seconds": None}
    if fmt.endswith("_csv"):
        # the floor: pandas' C reader alone on the same file (whole file in memory, no checks, no analysis)
        import io

        import pandas as pd

        data = Path(path).read_bytes()
        skip = 2 if fmt == "skyplan_csv" else 1
        cpu0 = time.process_time()
        pd.read_csv(io.BytesIO(data), skiprows=skip, header=None, dtype=float, na_filter=False)
        out["reference_cpu_seconds"] = time.process_time() - cpu0
    elif fmt.startswith("strace"):
        # the floor of a Python parser: splitting every line into fields and nothing else
        with open(path, encoding="latin-1") as f:
            cpu0 = time.process_time()
            for line in f:
                line.split(None, 2)[2].rpartition(") = ")
            out["reference_cpu_seconds"] = time.process_time() - cpu0
    return out


def _run(tree: Path, fmt: str, path: Path, env: dict) -> dict | str:
    """One parse in a fresh process with the bench script and parsers of ``tree``: its --run figures, or its error."""
    out = subprocess.run([sys.executable, str(tree / "bench" / "parse_profiles.py"), "--run", fmt, str(path)],
                         capture_output=True, text=True, cwd=tree, env=dict(env, PYTHONPATH=str(tree)))
    if out.returncode:
        return out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=200.0, help="size of each generated file (MB)")
    ap.add_argument("--formats", default="strace,strace_y,strace_tar,strace_fork,skyplan_csv,chiles_csv,pidstat")
    ap.add_argument("--repeat", type=int, default=3, help="parse each file this many times; report the best")
    ap.add_argument("--keep", action="store_true", help="keep the generated files in var/bench-profiles/")
    ap.add_argument("--against", metavar="REF", help="also time the parsers of this commit, alternating with ours")
    ap.add_argument("--run", nargs=2, metavar=("FORMAT", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.run:
        print(json.dumps(run_one(*args.run)))
        return 0
    VAR.mkdir(parents=True, exist_ok=True)
    print("MB/s is per CPU-second of the parsing process (one core); wall-clock MB/s beside it is lower when")
    print("other processes share the core.  Peak RSS includes the interpreter with pandas (base).")
    print("'floor MB/s' is, in the same process, pandas.read_csv alone (CSV) or splitting each line (strace).")
    print(f"best of {args.repeat} runs per format; load average before: {_load()}")
    print(f"{'format':<12} {'size MB':>8} {'CPU s':>7} {'MB/s':>7} {'x target':>8} {'wall MB/s':>9} {'floor MB/s':>10} "
          f"{'target':>7} {'peak RSS MB':>11} {'base MB':>8} {'rows':>10}")
    ok = True
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="apps.settings", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    peer = None
    if args.against:
        import atexit
        import shutil
        import tempfile

        peer = Path(tempfile.mkdtemp(dir=VAR))
        atexit.register(shutil.rmtree, peer, True)
        archive = subprocess.run(["git", "archive", args.against, "apps", "bench"], cwd=ROOT, check=True,
                                 capture_output=True)
        subprocess.run(["tar", "x", "-C", str(peer)], input=archive.stdout, check=True)
    for fmt in args.formats.split(","):
        path = VAR / f"large.{fmt}"
        if fmt in RECORDED:
            if not path.exists():
                record(fmt, path)
        elif not path.exists() or abs(path.stat().st_size - args.mb * 1e6) > 0.05 * args.mb * 1e6:
            generate(fmt, path, args.mb)
        size_mb = path.stat().st_size / 1e6
        runs, peer_runs = [], []
        for i in range(max(1, args.repeat)):
            trees = [ROOT] if peer is None else [ROOT, peer] if i % 2 == 0 else [peer, ROOT]
            for tree in trees:
                out = _run(tree, fmt, path, env)
                if isinstance(out, str):
                    print(out)
                    return 1
                (runs if tree == ROOT else peer_runs).append(out)
        r = min(runs, key=lambda x: x["cpu_seconds"])
        peak = max(x["peak_rss_mb"] for x in runs)
        rate = size_mb / r["cpu_seconds"]
        target = TARGETS.get(fmt)
        met = target is None or rate >= target
        ok &= met
        floors = [x["reference_cpu_seconds"] for x in runs if x["reference_cpu_seconds"]]
        floor = f"{size_mb / min(floors):10.1f}" if floors else f"{'—':>10}"
        ratio = f"{rate / target:8.2f}" if target else f"{'—':>8}"
        print(f"{fmt:<12} {size_mb:8.1f} {r['cpu_seconds']:7.2f} {rate:7.1f} {ratio} {size_mb / r['seconds']:9.1f} {floor} "
              f"{('>=' + str(int(target))) if target else '—':>7} {peak:11.1f} {r['base_rss_mb']:8.1f} "
              f"{r['rows']:>10}{'' if met else '  BELOW TARGET'}")
        if peer_runs:
            ratios = sorted(p["cpu_seconds"] / x["cpu_seconds"] for p, x in zip(peer_runs, runs, strict=True))
            best = min(x["cpu_seconds"] for x in peer_runs)
            print(f"{'':<12} {args.against}: {size_mb / best:.1f} MB/s; ours is x{best / r['cpu_seconds']:.2f} its speed "
                  f"(bests), x{statistics.median(ratios):.2f} (median of {len(ratios)} pairs, "
                  f"x{ratios[0]:.2f}-x{ratios[-1]:.2f})")
        if not args.keep and fmt not in RECORDED:
            path.unlink()
    print(f"load average after: {_load()}  (2 shared vCPUs: above ~1 other work competes for the core)")
    return 0 if ok else 2


if __name__ == "__main__":
    sys.exit(main())
