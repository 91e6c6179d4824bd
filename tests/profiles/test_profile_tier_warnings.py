"""A fio measurement that cannot take effect says so and what to change: on a shared tier a client gets at
most the tier's aggregate, so a per-client figure above it changes nothing in the simulation."""

from __future__ import annotations

import json

import pytest

from apps.profiles import services
from apps.profiles.calibration import measurement_warnings


def test_a_per_client_figure_above_the_aggregate_is_warned_with_what_to_change():
    warnings = measurement_warnings({"read_bw_per_client": 2.5e9, "iops_per_client": 12184.0},
                                    {"read_bw": 1e9, "write_bw": 1e9, "iops": 50000.0})
    assert warnings == [
        "read_bw_per_client 2,500.0 MB/s (measured) is above the tier's aggregate read_bw 1,000.0 MB/s: a client "
        "never gets more than the whole tier's read bandwidth, so this measurement does not change the simulation. "
        "Set the tier's read_bw to the storage's real aggregate (at least 2,500.0 MB/s), or measure the aggregate "
        "with fio from several clients at once."]


def test_figures_within_the_aggregate_are_not_warned():
    assert measurement_warnings({"read_bw_per_client": 5e8}, {"read_bw": 1e9, "write_bw": None, "iops": None}) == []


@pytest.fixture
def shared_tier(this_host):
    tier = this_host.storage_tiers.get()
    tier.scope, tier.read_bw_per_client, tier.write_bw_per_client = "shared", 1e8, 1e8
    tier.read_bw, tier.write_bw = 1e9, 1e9
    tier.save()
    return tier


def test_the_page_warns_when_the_measurement_cannot_take_effect(logged_in, staff, samples, shared_tier):
    fio = services.import_file(samples / "fio_local.json").profile
    measured = json.loads((samples / "fio_local.json").read_text())["jobs"][0]["read"]["bw_bytes"]
    assert measured > shared_tier.read_bw  # fio read 2.5 GB/s through the page cache; the tier says 1 GB/s in all
    logged_in.force_login(staff)
    html = logged_in.post(f"/profiles/{fio.pk}/measure-tier/", {"tier": shared_tier.pk, "host": "vm"},
                          follow=True).content.decode()
    assert "read_bw_per_client" in html and "is above the tier&#x27;s aggregate read_bw" in html
    assert "Set the tier&#x27;s read_bw to the storage&#x27;s real aggregate" in html
    listing = logged_in.get("/profiles/tier-measurements/").content.decode()
    assert "does not change the simulation" in listing
