"""Profile parsers, before and after a change: the same files must give exactly the same results.

    python bench/parse_same.py --against REF [--dir DIR ...] [FILE[:FORMAT] ...]

Parses every file with this tree's parsers and with those of commit ``REF`` (exported with ``git archive`` to a
temporary directory), each tree in its own process, and compares what they return bit for bit: the format,
kind, metadata, the samples frame (column names, dtypes, index and every value, NaN and -0.0 included),
the strace aggregates, the fio jobs frame - or, for a file a parser refuses, the error's message and line.
By default the files are every sample in fixtures/profiles/ (the format detected from the content, as an
upload is) and the bench's files in var/bench-profiles/ (``large.<format>``, see bench/parse_profiles.py,
with the parser the bench uses); ``--dir`` adds every file of a directory, read with the parser its
suffix names (``.strace``, ``.skyplan_csv``, ``.chiles_csv``, ``.pidstat``; anything else detected).
Prints one line per file and the count of differences; exits 1 when any result differs.
"""

from __future__ import annotations

import argparse
import math
import os
import pickle
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the parser each bench file is read with (as bench/parse_profiles.py reads it)
BENCH_PARSER = {"strace": "strace", "strace_y": "strace", "strace_tar": "strace", "strace_fork": "strace",
                "skyplan_csv": "skyplan_csv", "chiles_csv": "chiles_csv", "pidstat": "pidstat"}


def canonical(value):
    """A form of a parse result that compares equal only when every bit does (NaN equals NaN, -0.0 is not 0.0)."""
    import numpy as np
    import pandas as pd

    if isinstance(value, pd.DataFrame):
        return ("frame", list(map(str, value.columns)), [str(t) for t in value.dtypes], canonical(value.index),
                [canonical(value[c].to_numpy()) for c in value.columns])
    if isinstance(value, pd.Index):
        return ("index", type(value).__name__, str(value.dtype), canonical(value.to_numpy()))
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return ("objects", value.shape, [canonical(v) for v in value.tolist()])
        return ("array", value.dtype.str, value.shape, np.ascontiguousarray(value).tobytes())
    if isinstance(value, np.generic):
        return ("scalar", value.dtype.str, value.tobytes())
    if isinstance(value, bool) or value is None or isinstance(value, (int, str, bytes)):
        return (type(value).__name__, value)
    if isinstance(value, float):
        return ("float", struct.pack("<d", value) if not math.isnan(value) else "nan")
    if isinstance(value, dict):
        return ("dict", [(canonical(k), canonical(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [canonical(v) for v in value])
    if isinstance(value, (set, frozenset)):
        return ("set", sorted(repr(canonical(v)) for v in value))
    raise TypeError(f"no canonical form for {type(value).__name__}")


def parse_all(jobs: list[tuple[str, str]], out: str) -> None:
    """In a child process (``--child``): parse each ``(path, format)`` with the tree on sys.path, pickle the results."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "apps.settings")
    from apps.profiles.parsers import ParseError, parse

    results = []
    for path, fmt in jobs:
        try:
            p = parse(path, fmt, filename="profile")
            results.append(canonical({"format": p.format, "kind": p.kind, "meta": p.meta, "samples": p.samples,
                                      "aggregates": p.aggregates, "jobs": p.jobs}))
        except ParseError as e:
            results.append(("ParseError", str(e), e.line))
    with open(out, "wb") as f:
        pickle.dump(results, f)


def first_difference(a, b, where: str = "") -> str | None:
    if a == b:
        return None
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) and a[:1] == b[:1]:
        if a[0] in ("dict",) and len(a[1]) == len(b[1]):
            for (ka, va), (kb, vb) in zip(a[1], b[1], strict=True):
                if ka != kb:
                    return f"{where}: keys {ka[1]!r} / {kb[1]!r}"
                d = first_difference(va, vb, f"{where}.{ka[1]}")
                if d:
                    return d
        if a[0] in ("list", "tuple", "frame") and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a[1:], b[1:], strict=True)):
                d = first_difference(x, y, f"{where}[{i}]")
                if d:
                    return d
    return f"{where or 'result'}: {str(a)[:200]} / {str(b)[:200]}"


def _files(args) -> list[tuple[str, str]]:
    jobs = []
    if not args.files and not args.dir:
        for p in sorted((ROOT / "fixtures" / "profiles").rglob("*")):
            if p.is_file() and p.suffix not in (".sh", ".py", ".md"):
                jobs.append((str(p), "auto"))
        for fmt, parser in BENCH_PARSER.items():
            p = ROOT / "var" / "bench-profiles" / f"large.{fmt}"
            if p.exists():
                jobs.append((str(p), parser))
    for d in args.dir or []:
        for p in sorted(Path(d).iterdir()):
            if p.is_file():
                jobs.append((str(p), BENCH_PARSER.get(p.suffix.lstrip("."), "auto")))
    for spec in args.files:
        path, _, fmt = spec.partition(":")
        jobs.append((path, fmt or "auto"))
    return jobs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", required=False, help="the commit to compare with (git rev)")
    ap.add_argument("--dir", action="append", help="add every file of this directory")
    ap.add_argument("files", nargs="*", help="PATH or PATH:FORMAT")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        sys.path.insert(0, args.child[0])
        with open(args.child[1] + ".jobs", "rb") as f:
            parse_all(pickle.load(f), args.child[1])
        return 0
    if not args.against:
        ap.error("--against REF is required")
    jobs = _files(args)
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="apps.settings", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "tree"
        old.mkdir()
        archive = subprocess.run(["git", "archive", args.against, "apps"], cwd=ROOT, check=True, capture_output=True)
        subprocess.run(["tar", "x", "-C", str(old)], input=archive.stdout, check=True)
        results = {}
        for label, tree in (("before", old), ("after", ROOT)):
            out = str(Path(tmp) / label)
            with open(out + ".jobs", "wb") as f:
                pickle.dump(jobs, f)
            env["PYTHONPATH"] = str(tree)
            subprocess.run([sys.executable, __file__, "--child", str(tree), out], check=True, env=env, cwd=tree)
            with open(out, "rb") as f:
                results[label] = pickle.load(f)
    differ = 0
    for (path, fmt), before, after in zip(jobs, results["before"], results["after"], strict=True):
        d = first_difference(before, after)
        what = "refused" if before[0] == "ParseError" else "parsed"
        print(f"{'SAME' if d is None else 'DIFFERS'}  {what:7s} {fmt:11s} {os.path.relpath(path, ROOT)}")
        if d:
            differ += 1
            print(f"    {d}")
    print(f"{len(jobs)} files, {differ} differ ({args.against} against the working tree)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
