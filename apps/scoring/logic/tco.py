"""Total cost of ownership of a platform over a horizon of observing epochs.

One simulated epoch gives the usage (node-hours, instance-hours at on-demand or spot prices with the
platform's billing granularity, GB-months of block and object storage, provisioned IOPS-months); each
later epoch's usage is scaled by its data volume, ``(1 + growth)^k`` for epoch ``k`` (an assumption:
usage linear in data).  Fixed costs are per year: an owned cluster's capital × share used, amortised
straight-line over its life (and bought again when the life ends inside the horizon), plus its staff
and power at the same share.  An HPC centre's node-hour rate already contains its capital (Pawsey's
AUD 0.67 is a total-cost-of-ownership rate, §9.1), so no capital line is added for it.  Egress is
priced per GB delivered; WAN transfer time is reported beside the money.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .inputs import PlatformInputs

__all__ = ["Horizon", "TcoLine", "TcoYear", "TcoResult", "tco", "break_even", "FIXED_CATEGORIES", "RUN_CATEGORIES",
           "cost_story"]

BYTES_PER_GB = 1e9
BYTES_PER_TB = 1e12


@dataclass(frozen=True)
class Horizon:
    epochs_per_year: int = 1
    years: int = 5
    growth_per_epoch: float = 0.0  # fraction: 0.1 = each epoch has 10% more data than the previous
    data_bytes_per_epoch: float = 0.0  # input data volume of the first epoch
    cubes_per_epoch: int = 1  # delivered image cubes per epoch
    egress_gb_per_epoch: float = 0.0  # data delivered out of the platform per epoch (first epoch)

    def check(self) -> None:
        if self.epochs_per_year < 1 or self.epochs_per_year > 365:
            raise ValueError("epochs_per_year: between 1 and 365")
        if self.years < 1 or self.years > 50:
            raise ValueError("years: between 1 and 50")
        if self.growth_per_epoch <= -1 or self.growth_per_epoch > 10:
            raise ValueError("growth_per_epoch: a fraction above -1 and at most 10")
        if self.data_bytes_per_epoch < 0 or self.egress_gb_per_epoch < 0 or self.cubes_per_epoch < 0:
            raise ValueError("data volume, egress and cubes per epoch must not be negative")

    def scale(self, k: int) -> float:
        return (1.0 + self.growth_per_epoch) ** k


@dataclass(frozen=True)
class TcoLine:
    category: str  # capital | staff | power | compute | storage | iops | egress | transfer
    item: str
    aud: float
    quantity: float = 0.0
    unit: str = ""
    note: str = ""


@dataclass(frozen=True)
class TcoYear:
    year: int  # 1-based
    lines: tuple[TcoLine, ...]
    total_aud: float


@dataclass(frozen=True)
class TcoResult:
    platform: str
    name: str
    years: tuple[TcoYear, ...]
    cumulative: tuple[tuple[int, float], ...]  # (epochs done, cumulative AUD after that epoch)
    total_aud: float
    tb_processed: float
    cubes: float
    aud_per_tb: float | None
    aud_per_cube: float | None
    transfer_hours: float
    notes: tuple[str, ...] = field(default_factory=tuple)


def _usage_lines(p: PlatformInputs) -> list[dict]:
    return [ln for ln in (p.run.cost_lines if p.run else ()) if ln.get("category") != "egress"]


def tco(p: PlatformInputs, h: Horizon) -> TcoResult:
    """Year-by-year cost lines, cumulative cost after each epoch, unit costs and transfer time."""
    h.check()
    if p.run is None or p.run.total_cost_aud is None:
        raise ValueError(f"{p.slug}: no simulated epoch to project ({p.run.error if p.run else 'not run'})")
    notes = []
    share = float(p.fact("share_used", 1.0))
    annual_fixed: list[TcoLine] = []
    if p.kind == "owned_cluster":
        capex = float(p.fact("capex", 0.0))
        life = float(p.fact("amortisation_years", 0.0) or 0.0)
        if life:
            annual_fixed.append(TcoLine("capital", "capital, amortised", capex * share / life, share, "share",
                                        f"AUD {capex:,.0f} × {share:g} over {life:g} years"))
        elif capex:
            notes.append("no amortisation period: the capital is charged in full in year 1")
        for cat, fact in (("staff", "staff_per_year"), ("power", "power_per_year")):
            per_year = float(p.fact(fact, 0.0))
            annual_fixed.append(TcoLine(cat, cat, per_year * share, share, "share",
                                        f"AUD {per_year:,.0f}/year × {share:g}"))
    egress_rate = float(p.fact("egress_per_gb", 0.0) or 0.0)
    wan = p.fact("wan_bandwidth")
    years = []
    cumulative = []
    running = 0.0
    tb = cubes = transfer_h = 0.0
    epoch = 0
    for y in range(1, h.years + 1):
        acc: dict[tuple[str, str, str], list[float]] = {}
        fixed = [ln for ln in annual_fixed if ln.aud]
        if y == 1 and p.kind == "owned_cluster" and p.fact("capex") and not p.fact("amortisation_years"):
            capex = float(p.fact("capex")) * share
            fixed.insert(0, TcoLine("capital", "capital (not amortised)", capex, share, "share"))
        year_total = sum(ln.aud for ln in fixed)
        running += year_total  # fixed costs are committed at the start of each year
        for _ in range(h.epochs_per_year):
            f = h.scale(epoch)
            for ln in _usage_lines(p):
                key = (ln["category"], ln["item"], ln.get("unit", ""))
                a = acc.setdefault(key, [0.0, 0.0])
                a[0] += ln["aud"] * f
                a[1] += ln.get("quantity", 0.0) * f
            egress_gb = h.egress_gb_per_epoch * f
            if egress_gb:
                a = acc.setdefault(("egress", "egress", "GB"), [0.0, 0.0])
                a[0] += egress_gb * egress_rate
                a[1] += egress_gb
            data = h.data_bytes_per_epoch * f
            tb += data / BYTES_PER_TB
            cubes += h.cubes_per_epoch
            if wan and data:
                hours = data / float(wan) / 3600.0
                transfer_h += hours
                a = acc.setdefault(("transfer", "WAN transfer time", "h"), [0.0, 0.0])
                a[1] += hours
            epoch_cost = sum(ln["aud"] for ln in _usage_lines(p)) * f + egress_gb * egress_rate
            year_total += epoch_cost
            running += epoch_cost
            epoch += 1
            cumulative.append((epoch, running))
        lines = tuple(fixed) + tuple(TcoLine(cat, item, a[0], a[1], unit) for (cat, item, unit), a in acc.items())
        years.append(TcoYear(y, lines, year_total))
    total = running
    return TcoResult(p.slug, p.name, tuple(years), tuple(cumulative), total, tb, cubes,
                     total / tb if tb else None, total / cubes if cubes else None, transfer_h, tuple(notes))


def break_even(owned: TcoResult, rented: TcoResult, epochs_per_year: int) -> dict | None:
    """The first epoch from which ``owned``'s cumulative cost stays at or below ``rented``'s, or None."""
    pairs = list(zip(owned.cumulative, rented.cumulative, strict=True))
    for i in range(len(pairs)):
        if all(a[1] <= b[1] for a, b in pairs[i:]):
            epoch = pairs[i][0][0]
            return {"epoch": epoch, "year": (epoch - 1) // epochs_per_year + 1,
                    "owned_aud": pairs[i][0][1], "rented_aud": pairs[i][1][1]}
    return None


#: what an owner pays each year whether or not the pipeline runs
FIXED_CATEGORIES = ("capital", "staff", "power")
#: what each run adds (the shown category, and the cost-line categories folded into it)
RUN_CATEGORIES = {"compute": ("compute",), "storage": ("storage", "iops"), "transfer": ("egress", "transfer")}
HOURS_PER_YEAR = 8760.0


def cost_story(result: dict, epochs_per_year: int, run_hours: float | None = None) -> dict:
    """One platform's costs told once, from its first TCO year (``result`` is ``asdict(TcoResult)``): the fixed
    costs per year by category, each run's bill by category, and what they add up to, so that
    ``per_run_aud × runs_per_year + fixed_per_year_aud == per_year_aud`` and the years sum to ``tco_aud``.

    ``run_hours`` (the run's length) gives the share of a year the run occupies the platform and the fixed
    costs over that share (what an owned cluster's run "costs" its owner besides nothing billed)."""
    first = result["years"][0]
    fixed = dict.fromkeys(FIXED_CATEGORIES, 0.0)
    usage = dict.fromkeys(RUN_CATEGORIES, 0.0)
    folded = {c: shown for shown, cats in RUN_CATEGORIES.items() for c in cats}
    for line in first["lines"]:
        if line["category"] in fixed:
            fixed[line["category"]] += line["aud"]
        else:
            usage[folded.get(line["category"], "compute")] += line["aud"]
    per_run = {k: v / epochs_per_year for k, v in usage.items()}
    fixed_total = sum(fixed.values())
    per_run_total = sum(per_run.values())
    story = {
        "fixed_per_year": fixed, "fixed_per_year_aud": fixed_total, "per_run": per_run, "per_run_aud": per_run_total,
        "runs_per_year": epochs_per_year, "per_year_aud": first["total_aud"],
        "all_in_per_run_aud": first["total_aud"] / epochs_per_year, "tco_aud": result["total_aud"],
        "years": len(result["years"]), "same_every_year": all(
            abs(y["total_aud"] - first["total_aud"]) <= 1e-6 * max(1.0, first["total_aud"]) for y in result["years"]),
        "run_hours": run_hours, "year_share": None, "fixed_over_run_aud": None,
    }
    if run_hours is not None and fixed_total:
        share = min(1.0, run_hours / HOURS_PER_YEAR)
        story["year_share"] = share
        story["fixed_over_run_aud"] = share * (fixed["staff"] + fixed["power"])
    return story
