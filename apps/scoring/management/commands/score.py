"""``manage.py score <workload> [--platform slug ...] --format json|text``: ranks, aggregates, robustness, TCO."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from apps.scoring.services import score_report
from apps.workloads.models import Workload


class Command(BaseCommand):
    help = "Score platforms for a workload: criterion values, 0-5 ranks with explanations, aggregates and TCO."

    def add_arguments(self, parser):
        parser.add_argument("workload")
        parser.add_argument("--platform", action="append", dest="platforms", default=None)
        parser.add_argument("--format", choices=("json", "text"), default="text")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--replications", type=int, default=11)
        parser.add_argument("--samples", type=int, default=2000, help="random weight draws")
        parser.add_argument("--method", default="weighted_sum")
        parser.add_argument("--years", type=int, default=None)
        parser.add_argument("--epochs-per-year", type=int, default=None)
        parser.add_argument("--growth", type=float, default=None, help="data growth per epoch, a fraction")

    def handle(self, *args, **o):
        try:
            workload = Workload.objects.get(slug=o["workload"])
        except Workload.DoesNotExist:
            raise CommandError(f"no workload {o['workload']!r}") from None
        if o["replications"] < 1:
            raise CommandError("--replications: at least 1")
        horizon = {"years": o["years"], "epochs_per_year": o["epochs_per_year"], "growth_per_epoch": o["growth"]}
        try:
            report = score_report(workload, o["platforms"], method=o["method"], samples=o["samples"],
                                  seed=o["seed"], replications=o["replications"], horizon=horizon)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if o["format"] == "json":
            self.stdout.write(json.dumps(report, indent=1, default=str))
        else:
            self.stdout.write(text_report(report))


def text_report(r: dict) -> str:
    out = [f"Scoring {r['workload']} (seed {r['seed']}, median of {r['replications']} replications)", ""]
    for p in r["platforms"]:
        run = p["run"]
        out.append(f"== {p['name']} [{p['slug']}, {p['kind']}]" + (f" — {run['note']}" if run.get("note") else ""))
        if run.get("error"):
            out.append(f"   simulation: {run['error']}")
        for s in p["scores"]:
            out.append(f"   {s['criterion']:<18} {s['explanation']}")
    if "aggregates" in r:
        out += ["", "Aggregates (higher is better):"]
        for m, values in r["aggregates"].items():
            out.append(f"   {m:<17} " + "  ".join(f"{k} {v:.4f}" for k, v in values.items())
                       + f"   -> {' > '.join(r['orders'][m])}")
        rb = r["robustness"]
        if "winners" in rb:
            out += ["", f"Robustness ({rb['method']}): winner {', '.join(rb['winners'])}"]
            if rb["margin"]:
                m = rb["margin"]
                out.append(f"   smallest flip: weight of {m['criterion']} {m['from_weight']:.3f} -> {m['to_weight']:.3f}"
                           f" makes {m['new_winner']} first")
            else:
                out.append("   no single weight change flips the winner")
            out.append("   P(first), flat Dirichlet: " + ", ".join(
                f"{k} {v:.1%}" for k, v in rb["first_place_probability"].items()))
            out.append("   P(first), near these weights: " + ", ".join(
                f"{k} {v:.1%}" for k, v in rb["first_place_probability_near"].items()))
            for a in rb["agreement"]:
                tau = "n/a" if a["tau"] is None else f"{a['tau']:+.2f}"
                out.append(f"   Kendall tau {a['a']} vs {a['b']}: {tau}")
        cmp_ = r["comparison"]
        if cmp_["ranks"]:
            out += ["", "Against the published table:"]
            for row in cmp_["ranks"]:
                mark = "agree" if row["agree"] else "DISAGREE"
                out.append(f"   {row['platform']:<11} {row['criterion']:<18} computed {row['computed']} "
                           f"published {row['published']} {mark}" + (f": {row['reason']}" if row["reason"] else ""))
            for row in cmp_["products"]:
                ours = row["from_computed_ranks"]
                out.append(f"   product {row['platform']:<11} published {row['published']:g}; from its ranks "
                           f"{row['from_published_ranks']:.4f}; from ours {ours:.4f}"
                           + ("" if row["arithmetic_ok"] else f" — DISAGREE: {row['reason']}"))
            blind = cmp_.get("blind_ranks") or []
            if blind:
                out.append(f"   graded by one rule fixed without the published ranks (one grade per doubling from "
                           f"the best): {sum(b['agree'] for b in blind)} of {len(blind)} agree (docs/scoring.md)")
        t = r["tco"]
        h = t["horizon"]
        out += ["", f"Total cost of ownership: {h['years']} years × {h['epochs_per_year']} epoch(s)/year, "
                    f"growth {h['growth_per_epoch']:.0%} per epoch"]
        for slug, res in t["platforms"].items():
            per_tb = res["aud_per_tb"]
            out.append(f"   {slug}: AUD {res['total_aud']:,.0f} total"
                       + (f", AUD {per_tb:,.2f}/TB" if per_tb is not None else "")
                       + (f", AUD {res['aud_per_cube']:,.2f}/cube" if res["aud_per_cube"] is not None else "")
                       + f", {res['transfer_hours']:,.0f} h of WAN transfer")
            for y in res["years"]:
                items = "; ".join(f"{ln['category']}: {ln['item']} AUD {ln['aud']:,.0f}" for ln in y["lines"] if ln["aud"])
                out.append(f"      year {y['year']}: AUD {y['total_aud']:,.0f} ({items})")
        for slug, err in t["errors"].items():
            out.append(f"   {slug}: {err}")
        for be in t["break_even"]:
            b = be["break_even"]
            out.append(f"   owning {be['owned']} vs renting {be['rented']}: "
                       + (f"break-even at epoch {b['epoch']} (year {b['year']})" if b else "no break-even in the horizon"))
    elif r.get("error"):
        out.append(f"cannot aggregate: {r['error']}")
    return "\n".join(out) + "\n"
