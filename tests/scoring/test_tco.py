"""Total cost of ownership on a hand-computed case: a cluster bought outright vs the same work on spot."""

import pytest

from apps.scoring.logic.inputs import PlatformInputs, RunSummary
from apps.scoring.logic.tco import Horizon, break_even, tco

TB = 1e12

# a cluster bought for AUD 120,000 amortised over 4 years: AUD 30,000 a year, no staff or power
CLUSTER = PlatformInputs("own", "Own", "owned_cluster",
                         {"capex": 120_000.0, "amortisation_years": 4.0, "share_used": 1.0},
                         run=RunSummary(makespan_s=3600.0, run_time_s=3600.0, total_cost_aud=0.0))
# the same epoch on spot instances: 4,000 instance-hours billed x AUD 5.00 = AUD 20,000 per epoch
SPOT = PlatformInputs("spot", "Spot", "public_cloud", {"egress_per_gb": 0.1, "wan_bandwidth": 1.25e8},
                      run=RunSummary(makespan_s=3600.0, run_time_s=3600.0, total_cost_aud=20_000.0, cost_lines=(
                          {"category": "compute", "item": "spot", "quantity": 4000.0, "unit": "instance-hour",
                           "rate_aud": 5.0, "aud": 20_000.0},)))
HORIZON = Horizon(epochs_per_year=2, years=3, data_bytes_per_epoch=10 * TB, cubes_per_epoch=2)


def test_it_amortises_the_cluster_per_year():
    r = tco(CLUSTER, HORIZON)
    assert [y.total_aud for y in r.years] == [30_000.0] * 3
    assert r.years[0].lines[0].category == "capital"
    assert [c for _, c in r.cumulative] == [30_000, 30_000, 60_000, 60_000, 90_000, 90_000]
    assert r.total_aud == 90_000
    assert r.aud_per_tb == pytest.approx(90_000 / 60)  # 6 epochs x 10 TB
    assert r.aud_per_cube == pytest.approx(90_000 / 12)


def test_it_bills_the_spot_work_per_epoch():
    r = tco(SPOT, HORIZON)
    assert [c for _, c in r.cumulative] == [20_000, 40_000, 60_000, 80_000, 100_000, 120_000]
    assert r.years[0].lines[0].quantity == 8000.0  # instance-hours in a year
    assert r.aud_per_tb == pytest.approx(2000.0)
    # 10 TB over 1 Gb/s = 80,000 s = 22.2 h per epoch
    assert r.transfer_hours == pytest.approx(6 * 10 * TB / 1.25e8 / 3600)


def test_it_finds_when_owning_beats_renting():
    # cumulative owned 30, 30, 60, 60, 90, 90 vs spot 20, 40, 60, ...: owned stays at or below from epoch 2
    be = break_even(tco(CLUSTER, HORIZON), tco(SPOT, HORIZON), HORIZON.epochs_per_year)
    assert be == {"epoch": 2, "year": 1, "owned_aud": 30_000, "rented_aud": 40_000}


def test_it_reports_no_break_even_when_renting_stays_cheaper():
    cheap = Horizon(epochs_per_year=1, years=3)
    assert break_even(tco(CLUSTER, cheap), tco(SPOT, cheap), 1) is None  # 30K a year vs 20K a year


def test_it_grows_usage_with_the_data():
    r = tco(SPOT, Horizon(epochs_per_year=1, years=3, growth_per_epoch=0.5, egress_gb_per_epoch=100))
    # compute 20,000 x 1, 1.5, 2.25; egress 100 GB x 0.1 x the same factors
    assert [y.total_aud for y in r.years] == pytest.approx([20_010, 30_015, 45_022.5])


def test_it_charges_staff_and_power_at_the_share_used():
    p = PlatformInputs("own", "Own", "owned_cluster", {"capex": 0.0, "amortisation_years": 4.0, "share_used": 0.5,
                                                       "staff_per_year": 100_000.0, "power_per_year": 10_000.0},
                       run=RunSummary(makespan_s=1.0, run_time_s=1.0, total_cost_aud=0.0))
    assert tco(p, Horizon(years=1)).total_aud == pytest.approx(55_000)


@pytest.mark.parametrize("horizon, message", [
    (Horizon(years=0), "years"), (Horizon(epochs_per_year=0), "epochs_per_year"),
    (Horizon(growth_per_epoch=-1), "growth"),
])
def test_it_refuses_a_bad_horizon(horizon, message):
    with pytest.raises(ValueError, match=message):
        tco(SPOT, horizon)
