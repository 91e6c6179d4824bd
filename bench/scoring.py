"""Time the scoring engine on the demo scenario (CHILES epoch 1 on Pleiades, Magnus and AWS), one process.

Prints: the epoch simulations the scores use, the sensitivity analysis (one-at-a-time flips for every
criterion and method plus seeded Dirichlet sampling) and a Pareto search over the demo AWS space (the
same work one Celery worker does, run in-process).  Target: well under one minute.

    DATABASE_URL=... python bench/scoring.py [--samples 2000] [--replications 11]   # catalogue loaded
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import django  # noqa: E402

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "apps.settings")
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-not-a-secret")  # production-like: DEBUG stays off
django.setup()

from apps.platforms.models import Platform  # noqa: E402
from apps.scenarios.adapters import platform_spec, workload_spec  # noqa: E402
from apps.scoring import adapters, services  # noqa: E402
from apps.scoring.forms import DEMO_SPACE  # noqa: E402
from apps.scoring.logic.criteria import score_platforms  # noqa: E402
from apps.scoring.logic.search import enumerate_space, evaluate, pareto_front  # noqa: E402
from apps.workloads.models import Workload  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--replications", type=int, default=11)
    args = ap.parse_args()

    workload = Workload.objects.get(slug="chiles-epoch1")  # needs `manage.py load_catalogue` first
    platforms = services._platforms(list(services.DEMO_PLATFORMS))
    t0 = time.perf_counter()
    runs = adapters.simulate_epochs(platforms, workload, replications=args.replications)
    t_sim = time.perf_counter() - t0
    specs = adapters.criterion_specs(services.criteria_of().filter(enabled=True))
    inputs = {p.slug: adapters.platform_inputs(p, runs[p.slug]) for p in platforms}
    ranks = {s: [x.score for x in sc] for s, sc in score_platforms(inputs, specs).items()}
    weights = [c.weight for c in specs]

    t0 = time.perf_counter()
    for method in ("product", "weighted_sum", "weighted_product", "topsis"):
        rb = services.robustness(ranks, weights, [c.key for c in specs], method=method, samples=args.samples)
    t_sens = time.perf_counter() - t0

    aws = Platform.objects.get(slug="aws-sydney")
    pspec, wspec = platform_spec(aws), workload_spec(workload)
    configs = enumerate_space(DEMO_SPACE)
    t0 = time.perf_counter()
    points = [evaluate(pspec, wspec, c) for c in configs]
    t_search = time.perf_counter() - t0
    front = pareto_front(points)

    print(f"ranks (enabled criteria): {ranks}")
    print(f"epoch simulations: {len(platforms)} platforms x {args.replications} replications in {t_sim:.2f} s")
    print(f"sensitivity analysis: flips, {args.samples} flat + {args.samples} near Dirichlet draws, Kendall tau, "
          f"for 4 methods: {t_sens:.2f} s  (P(first), topsis, flat: {rb['first_place_probability']})")
    print(f"Pareto search: {len(configs)} AWS configurations in {t_search:.2f} s "
          f"({t_search / len(configs):.3f} s each), front of {len(front)}, "
          f"{sum(1 for p in points if 'error' in p)} failed")
    total = t_sim + t_sens + t_search
    print(f"total {total:.1f} s (target < 60 s): {'met' if total < 60 else 'MISSED'}")


if __name__ == "__main__":
    main()
