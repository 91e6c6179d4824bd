"""Monte Carlo replications of the CHILES epoch in each of its two forms: the CHILES builder (``chiles-epoch1``) and
the same pipeline as data of the general model (``fixtures/workloads/chiles-epoch1-stages.json``, placed as the
paper ran it by its stages' placement facts).  Both go through :func:`simulator.model.simulate.prepare` as a worker's batch does: the CHILES builder's
graph is built once and only redrawn per seed, the general model's is built again for every seed.

Prints one JSON object: the form, the platform, replications, CPU seconds of the replications alone, per
replication, and the median makespan (the two forms' should agree within 0.01 %).  Compare the forms with
``farm-bench --vs``, alternating:

    farm-bench -n 5 -- .venv/bin/python bench/chiles_forms.py --form stages \
        --vs '.venv/bin/python bench/chiles_forms.py --form builder'

Usage: ``python bench/chiles_forms.py --form {builder,stages} [--platform magnus] [--replications 50]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from simulator.model.catalogue import load_catalogue, workload_from_dict  # noqa: E402
from simulator.model.simulate import prepare, replication_seed  # noqa: E402
from simulator.model.specs import ScenarioSpec  # noqa: E402

RECORD = Path(ROOT) / "fixtures" / "workloads" / "chiles-epoch1-stages.json"


def scenario(form: str, platform_slug: str) -> ScenarioSpec:
    """The epoch on ``platform_slug`` in ``form``, with no placements given: the CHILES builder's default
    placements, or the general form's own (its stages' placement facts, which give the same)."""
    platforms, workloads, _ = load_catalogue(Path(ROOT) / "fixtures" / "catalogue")
    p, chiles = platforms[platform_slug], workloads["chiles-epoch1"]
    if form == "builder":
        return ScenarioSpec(platform=p, workload=chiles)
    return ScenarioSpec(platform=p, workload=workload_from_dict(json.loads(RECORD.read_text())))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--form", choices=("builder", "stages"), required=True)
    ap.add_argument("--platform", default="magnus")
    ap.add_argument("--replications", type=int, default=50)
    args = ap.parse_args()
    sc = scenario(args.form, args.platform)
    t0 = time.process_time()
    model = prepare(sc)
    makespans = [model.simulate(replication_seed(0, i), record_utilisation=False).makespan_s
                 for i in range(args.replications)]
    cpu = time.process_time() - t0
    print(json.dumps({"form": args.form, "platform": args.platform, "replications": args.replications,
                      "cpu_s": round(cpu, 3), "cpu_s_per_replication": round(cpu / args.replications, 5),
                      "makespan_p50_s": round(statistics.median(makespans), 3)}))


if __name__ == "__main__":
    main()
