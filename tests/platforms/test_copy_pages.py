"""The platform pages with workspace copies: the list marks reference platforms and copies, the copy button is for
editors of the active workspace, the edit page asks a source for every changed value and saves all or nothing,
a copy is deleted on confirmation; another workspace's copy is a 404 everywhere."""

from __future__ import annotations

import re

import pytest

from apps.accounts.workspaces import personal_workspace
from apps.core.models import ExchangeRate
from apps.platforms.models import NodeType, Platform, StorageTier
from apps.scenarios.services import create_scenario
from apps.workloads.models import Workload


def _edit_data(client, platform, **changes) -> dict:
    """The edit form of ``platform`` as the page shows it (every value unchanged), then ``changes`` by input name."""
    response = client.get(f"/platforms/{platform.slug}/edit/")
    assert response.status_code == 200
    editor = response.context["editor"]
    data = {}
    for form in (editor.identity, *editor.forms()):
        for name in form.fields:
            bound = form[name]
            value = bound.value()  # as the input shows it
            data[bound.html_name] = "" if value is None else value
    data.update(changes)
    return data


def _state(platform) -> list:
    """Every value and source of a platform, its node types and its storage tiers, as stored."""
    platform = Platform.objects.get(pk=platform.pk)
    rows = [(platform.name, {n: getattr(platform, n) for n in platform.FACT_FIELDS}, platform.provenance)]
    for child in [*platform.node_types.all(), *platform.storage_tiers.all()]:
        rows.append((child.name, {n: getattr(child, n) for n in child.FACT_FIELDS}, child.provenance))
    return rows


def _errors(response) -> list[str]:
    return response.context["editor"].error_summary()


# --- list, detail, copy --------------------------------------------------------------------------------

def test_the_list_marks_reference_platforms_and_the_workspaces_copies(client, team, magnus_copy):
    client.force_login(team["dave"])
    html = client.get("/platforms/").content.decode()
    assert magnus_copy.name in html
    assert 'copy of <a href="/platforms/magnus/">Magnus (Pawsey Cray XC40)</a> in alice&#x27;s workspace' in html
    assert html.count("<td>reference</td>") == Platform.objects.filter(workspace=None).count()


def test_a_workspace_platform_that_is_no_copy_is_marked_made_there(client, team):
    Platform.objects.create(slug="lab-box", name="Lab box", kind="owned_cluster", workspace=team["workspace"])
    client.force_login(team["dave"])
    client.post("/accounts/workspaces/switch/", {"workspace": team["workspace"].pk})
    assert "<td>made in this workspace</td>" in client.get("/platforms/").content.decode()
    html = client.get("/platforms/lab-box/").content.decode()
    assert "A platform of workspace alice&#x27;s workspace" in html and "Edit this platform" in html


def test_an_editor_of_the_active_workspace_copies_a_platform_from_its_page(client, team):
    client.force_login(team["dave"])  # active workspace: his personal one, where he is admin
    html = client.get("/platforms/magnus/").content.decode()
    assert 'action="/platforms/magnus/copy/"' in html and "Copy to my workspace" in html
    assert "Edit this copy" not in html

    response = client.post("/platforms/magnus/copy/")
    copy = Platform.objects.get(workspace=personal_workspace(team["dave"]))
    assert response.status_code == 302 and response["Location"] == f"/platforms/{copy.slug}/edit/"
    html = client.get(f"/platforms/{copy.slug}/").content.decode()
    assert "Edit this copy" in html and "A copy in workspace dave&#x27;s workspace" in html


def test_a_viewer_of_the_active_workspace_has_no_copy_button_and_cannot_copy(client, team, magnus_copy):
    carol = team["carol"]
    client.force_login(carol)
    client.post("/accounts/workspaces/switch/", {"workspace": team["workspace"].pk})
    html = client.get("/platforms/magnus/").content.decode()
    assert "Copy to my workspace" not in html
    assert "Edit this copy" not in client.get(f"/platforms/{magnus_copy.slug}/").content.decode()
    assert client.post("/platforms/magnus/copy/").status_code == 403
    assert client.get(f"/platforms/{magnus_copy.slug}/edit/").status_code == 403
    assert Platform.objects.exclude(workspace=None).count() == 1


def test_the_reference_catalogue_has_no_edit_page_even_for_staff(client, team, staff):
    client.force_login(team["dave"])
    assert client.get("/platforms/magnus/edit/").status_code == 403
    client.force_login(staff)
    response = client.get("/platforms/magnus/edit/")
    assert response.status_code == 403
    assert client.post("/platforms/magnus/delete/", {"confirm": "yes"}).status_code == 403
    assert Platform.objects.filter(slug="magnus").exists()


def test_another_workspaces_copy_is_not_found_and_never_shown(client, team, magnus_copy):
    client.force_login(team["bob"])
    for url in (f"/platforms/{magnus_copy.slug}/", f"/platforms/{magnus_copy.slug}/edit/"):
        response = client.get(url)
        assert response.status_code == 404 and magnus_copy.name.encode() not in response.content, url
    for url in (f"/platforms/{magnus_copy.slug}/copy/", f"/platforms/{magnus_copy.slug}/delete/"):
        assert client.post(url, {"confirm": "yes"}).status_code == 404, url
    assert Platform.objects.filter(pk=magnus_copy.pk).exists()
    for url in ("/", "/platforms/", "/runs/", "/scenarios/new/", "/scoring/searches/", "/benchmarks/", "/profiles/",
                f"/scoring/workloads/chiles-epoch1/?platform={magnus_copy.slug}"):
        response = client.get(url)
        assert response.status_code == 200, url
        body = response.content.decode()
        assert f'"{magnus_copy.slug}"' not in body and f"/{magnus_copy.slug}/" not in body, url
        assert "(copy)" not in body and "p-magnus-copy-include" not in body, url  # the builder's checkbox


# --- editing -----------------------------------------------------------------------------------------

def test_an_unchanged_form_keeps_every_value_and_source_exactly(client, team, magnus_copy):
    before = _state(magnus_copy)
    client.force_login(team["dave"])
    response = client.post(f"/platforms/{magnus_copy.slug}/edit/", _edit_data(client, magnus_copy))
    assert response.status_code == 302, _errors(response)
    assert _state(magnus_copy) == before  # values shown rounded (e.g. "3.3 GB/s") keep their stored value


def test_a_price_in_us_dollars_is_stored_in_aud_through_the_catalogues_rate_with_the_original_kept(
        client, team, magnus_copy):
    rate = ExchangeRate.objects.get(currency="USD")  # the catalogue's fact
    client.force_login(team["dave"])
    data = _edit_data(client, magnus_copy, **{
        "platform-node_hour_rate": "3.06 USD/h", "platform-node_hour_rate-kind": "assumption",
        "platform-node_hour_rate-reason": "the centre's 2026 price list"})
    response = client.post(f"/platforms/{magnus_copy.slug}/edit/", data)

    assert response.status_code == 302, _errors(response)
    after = Platform.objects.get(pk=magnus_copy.pk)
    assert after.node_hour_rate == pytest.approx(3.06 * rate.base_per_unit)
    source = after.provenance["node_hour_rate"]
    assert source["reason"] == "the centre's 2026 price list"
    assert source["converted_from"]["value"] == 3.06 and source["converted_from"]["unit"] == "USD/h"
    assert source["converted_from"]["exchange_rate"]["date"] == rate.date.isoformat()
    assert "Given as 3.06 USD/h, converted at 1 USD = 1.3 AUD (2015-03-06)." in after.source_text("node_hour_rate")


def test_a_changed_value_without_a_new_source_is_refused_and_nothing_is_saved(client, team, magnus_copy):
    before = _state(magnus_copy)
    node = magnus_copy.node_types.get()
    client.force_login(team["dave"])
    data = _edit_data(client, magnus_copy, **{
        f"node-{node.pk}-memory": "100 GiB",  # no source
        "platform-wan_bandwidth": "10 Gb/s", "platform-wan_bandwidth-kind": "assumption",
        "platform-wan_bandwidth-reason": "the new link",  # valid on its own
    })
    response = client.post(f"/platforms/{magnus_copy.slug}/edit/", data)

    assert response.status_code == 400
    assert _errors(response) == [f"Node type {node.name} · Memory: changed: give its new source — a paper (title "
                                 "and table), a web page, a measurement (host and date), an assumption (its reason) "
                                 "or a fit (what it was fitted to)"]
    assert "Nothing was saved" in response.content.decode()
    assert _state(magnus_copy) == before


def test_a_changed_value_with_an_assumption_is_saved_with_it_and_the_rest_keep_their_sources(client, team,
                                                                                           magnus_copy):
    before = Platform.objects.get(pk=magnus_copy.pk)
    client.force_login(team["dave"])
    data = _edit_data(client, magnus_copy, **{
        "platform-wan_bandwidth": "20 Gb/s", "platform-wan_bandwidth-kind": "assumption",
        "platform-wan_bandwidth-reason": "the 20 Gb/s link AARNet offers in 2026"})
    response = client.post(f"/platforms/{magnus_copy.slug}/edit/", data)

    assert response.status_code == 302
    after = Platform.objects.get(pk=magnus_copy.pk)
    assert before.wan_bandwidth == 1.25e9  # 10 Gb/s in bytes/s
    assert after.wan_bandwidth == 2.5e9
    assert after.provenance["wan_bandwidth"] == {"kind": "assumption",
                                                 "reason": "the 20 Gb/s link AARNet offers in 2026"}
    unchanged = {k: v for k, v in before.provenance.items() if k != "wan_bandwidth"}
    assert {k: after.provenance[k] for k in unchanged} == unchanged
    assert Platform.objects.get(slug="magnus").wan_bandwidth == before.wan_bandwidth  # the reference is untouched
    assert "Saved 1 change" in client.get(f"/platforms/{magnus_copy.slug}/").content.decode()


def test_a_value_retyped_with_the_same_quantity_keeps_its_source(client, team, magnus_copy):
    source = dict(magnus_copy.provenance["wan_bandwidth"])
    client.force_login(team["dave"])
    data = _edit_data(client, magnus_copy, **{"platform-wan_bandwidth": "1250 MB/s"})  # = 10 Gb/s, no new source
    assert client.post(f"/platforms/{magnus_copy.slug}/edit/", data).status_code == 302
    magnus_copy.refresh_from_db()
    assert (magnus_copy.wan_bandwidth, magnus_copy.provenance["wan_bandwidth"]) == (1.25e9, source)


def test_a_measurement_needs_the_host_and_the_date(client, team, magnus_copy):
    tier = magnus_copy.storage_tiers.get()
    client.force_login(team["dave"])
    changes = {f"tier-{tier.pk}-read_bw": "80 GB/s", f"tier-{tier.pk}-read_bw-kind": "measurement",
               f"tier-{tier.pk}-read_bw-host": "nid00012"}
    response = client.post(f"/platforms/{magnus_copy.slug}/edit/", _edit_data(client, magnus_copy, **changes))
    assert response.status_code == 400
    assert _errors(response) == [f"Storage tier {tier.name} · Aggregate read bandwidth: changed: its new source is "
                                 "incomplete: a measurement source needs a non-empty 'date'"]

    changes[f"tier-{tier.pk}-read_bw-date"] = "2026-11-20"
    response = client.post(f"/platforms/{magnus_copy.slug}/edit/", _edit_data(client, magnus_copy, **changes))
    assert response.status_code == 302
    tier.refresh_from_db()
    assert tier.read_bw == 80e9
    assert tier.provenance["read_bw"] == {"kind": "measurement", "host": "nid00012", "date": "2026-11-20"}


@pytest.mark.parametrize(("field", "text", "message"), [
    ("platform-wan_bandwidth", "10 parsecs", "WAN bandwidth to the data source: unknown unit 'parsecs'"),
    ("platform-wan_bandwidth", "3.5 GiB", "WAN bandwidth to the data source: unit 'GiB' is a bytes unit; expected "
                                          "a bandwidth unit: B/s, GB/s, Gb/s, "),
    ("tier-read_bw", "-3 GB/s", "Aggregate read bandwidth: must not be negative (got -3 GB/s)"),
    ("node-cores", "0", "Cores (or vCPUs): must be greater than zero"),
    ("platform-queue_wait_median", "ten hours", "Queue wait median: 'ten hours' is not a number followed by a unit"),
])
def test_a_bad_value_is_refused_naming_its_field(client, team, magnus_copy, field, text, message):
    before = _state(magnus_copy)
    prefix, name = field.split("-", 1)
    obj = {"platform": magnus_copy, "node": magnus_copy.node_types.first(), "tier": magnus_copy.storage_tiers.first()}
    key = f"platform-{name}" if prefix == "platform" else f"{prefix}-{obj[prefix].pk}-{name}"
    client.force_login(team["dave"])
    data = _edit_data(client, magnus_copy, **{key: text, f"{key}-kind": "assumption", f"{key}-reason": "testing"})
    response = client.post(f"/platforms/{magnus_copy.slug}/edit/", data)

    assert response.status_code == 400
    [error] = _errors(response)
    where = {"platform": magnus_copy.name, "node": f"Node type {obj['node'].name}",
             "tier": f"Storage tier {obj['tier'].name}"}[prefix]
    assert error.startswith(f"{where} · {message}"), error
    assert f'id="id_{key}-error"' in response.content.decode()  # beside its input
    assert _state(magnus_copy) == before


def test_values_take_units(client, team, magnus_copy):
    node = magnus_copy.node_types.get()
    client.force_login(team["dave"])
    source = {"kind": "assumption", "reason": "the upgraded partition"}
    data = _edit_data(client, magnus_copy)
    for key, text in ((f"node-{node.pk}-memory", "3.5 GiB"), ("platform-queue_wait_median", "120 h")):
        data.update({key: text, f"{key}-kind": source["kind"], f"{key}-reason": source["reason"]})
    assert client.post(f"/platforms/{magnus_copy.slug}/edit/", data).status_code == 302
    node.refresh_from_db()
    magnus_copy.refresh_from_db()
    assert (node.memory, magnus_copy.queue_wait_median) == (3.5 * 2**30, 120 * 3600.0)
    assert node.provenance["memory"] == source and magnus_copy.provenance["queue_wait_median"] == source


def test_a_rule_of_the_model_refuses_the_whole_edit_naming_the_field(client, team, magnus_copy):
    before = _state(magnus_copy)
    client.force_login(team["dave"])
    data = _edit_data(client, magnus_copy, **{
        "platform-share_used": "1.5", "platform-share_used-kind": "assumption", "platform-share_used-reason": "x",
        "copy-name": "Magnus for the 2027 survey"})
    response = client.post(f"/platforms/{magnus_copy.slug}/edit/", data)
    assert response.status_code == 400
    assert _errors(response) == [f"{magnus_copy.name} · Share of the machine used: is a fraction of the machine: "
                                 "between 0 and 1"]
    assert _state(magnus_copy) == before


def test_a_copy_is_renamed_but_not_to_a_reference_platforms_name(client, team, magnus_copy):
    client.force_login(team["dave"])
    response = client.post(f"/platforms/{magnus_copy.slug}/edit/",
                           _edit_data(client, magnus_copy, **{"copy-name": "Pleiades (UWA HPC cluster)"}))
    pleiades = Platform.objects.get(slug="pleiades").name
    response = client.post(f"/platforms/{magnus_copy.slug}/edit/",
                           _edit_data(client, magnus_copy, **{"copy-name": pleiades}))
    assert response.status_code == 400
    assert _errors(response) == [f"Name: {pleiades!r} is the name of another platform; choose another"]
    response = client.post(f"/platforms/{magnus_copy.slug}/edit/",
                           _edit_data(client, magnus_copy, **{"copy-name": "Magnus for the 2027 survey"}))
    assert response.status_code == 302
    assert Platform.objects.get(pk=magnus_copy.pk).name == "Magnus for the 2027 survey"


def test_clearing_a_value_drops_its_source(client, team, magnus_copy):
    client.force_login(team["dave"])
    response = client.post(f"/platforms/{magnus_copy.slug}/edit/",
                           _edit_data(client, magnus_copy, **{"platform-egress_per_gb": ""}))
    assert response.status_code == 302
    magnus_copy.refresh_from_db()
    assert magnus_copy.egress_per_gb is None and "egress_per_gb" not in magnus_copy.provenance


def test_the_edit_page_shows_each_value_in_units_with_its_source_beside_it(client, team, magnus_copy):
    client.force_login(team["dave"])
    html = client.get(f"/platforms/{magnus_copy.slug}/edit/").content.decode()
    node = magnus_copy.node_types.get()
    shown = node._meta.get_field("memory").formfield().prepare_value(node.memory)
    assert shown == "64 GB" and f'name="node-{node.pk}-memory" value="{shown}"' in html
    assert 'class="prov" title="From ' in html and "Dodson et al. (CHILES)" in html
    assert 'name="platform-wan_bandwidth-kind"' in html and 'type="date"' in html
    # no inline script (the CSP forbids them); a script file (src=) is allowed
    assert not re.search(r"<script(?![^>]*\bsrc=)", html.split("<main", 1)[1])


# --- deleting ----------------------------------------------------------------------------------------

def test_a_copy_is_deleted_only_when_confirmed(client, team, magnus_copy):
    client.force_login(team["dave"])
    response = client.post(f"/platforms/{magnus_copy.slug}/delete/", follow=True)
    assert "Not deleted: tick the box" in response.content.decode()
    assert Platform.objects.filter(pk=magnus_copy.pk).exists()

    response = client.post(f"/platforms/{magnus_copy.slug}/delete/", {"confirm": "yes"})
    assert response.status_code == 302 and response["Location"] == "/platforms/"
    assert not Platform.objects.filter(pk=magnus_copy.pk).exists()
    assert not NodeType.objects.filter(platform_id=magnus_copy.pk).exists()
    assert not StorageTier.objects.filter(platform_id=magnus_copy.pk).exists()
    assert Platform.objects.get(slug="magnus").node_types.exists()


def test_a_copy_used_by_a_scenario_is_not_deleted(client, team, magnus_copy):
    create_scenario(name="on the copy", workload=Workload.objects.get(slug="chiles-epoch1"), replications=1,
                    entries=[(magnus_copy, {}, {}), (Platform.objects.get(slug="aws-sydney"), {}, {})],
                    user=team["dave"], workspace=team["workspace"])
    client.force_login(team["dave"])
    page = client.post(f"/platforms/{magnus_copy.slug}/delete/", {"confirm": "yes"}, follow=True).content.decode()
    assert "is used by 1 scenario; delete those first" in page
    assert Platform.objects.filter(pk=magnus_copy.pk).exists()


def test_the_date_of_a_measurement_is_a_date(client, team, magnus_copy):
    client.force_login(team["dave"])
    data = _edit_data(client, magnus_copy, **{
        "platform-max_nodes": "100", "platform-max_nodes-kind": "measurement",
        "platform-max_nodes-host": "magnus", "platform-max_nodes-date": "last week"})
    response = client.post(f"/platforms/{magnus_copy.slug}/edit/", data)
    assert response.status_code == 400
    assert _errors(response) == [f"{magnus_copy.name} · Date nodes a project can hold was measured: Enter a valid "
                                 "date."]


def test_unit_fields_refuse_bare_numbers_and_other_dimensions_naming_the_field(client, team, magnus_copy):
    before = _state(magnus_copy)
    node, tier = magnus_copy.node_types.get(), magnus_copy.storage_tiers.order_by("name").first()
    client.force_login(team["dave"])
    reason = "the new hardware"
    changes = {}
    for prefix, name, text in ((f"node-{node.pk}", "nic_bandwidth", "12"), (f"tier-{tier.pk}", "capacity", "600 Hz"),
                               ("platform", "node_hour_rate", "3.06 EUR/h")):
        changes |= {f"{prefix}-{name}": text, f"{prefix}-{name}-kind": "assumption", f"{prefix}-{name}-reason": reason}
    response = client.post(f"/platforms/{magnus_copy.slug}/edit/", _edit_data(client, magnus_copy, **changes))

    assert response.status_code == 400
    assert sorted(_errors(response)) == sorted([
        f"{magnus_copy.name} · Node-hour rate: no EUR exchange rate in the catalogue: give the amount in AUD/h, or add "
        "a rate for EUR (rate, date, source) to the catalogue",
        f"Node type {node.name} · NIC bandwidth: add a unit, e.g. 12 MB/s",
        f"Storage tier {tier.name} · Capacity: unit 'Hz' is a frequency unit; expected a bytes unit: B, GB, GiB, KiB, "
        "MB, MiB, PB, PiB, TB, TiB, kB",
    ])
    assert "NIC bandwidth: add a unit, e.g. 12 MB/s" in response.content.decode()
    assert _state(magnus_copy) == before


def test_a_capacity_of_600_gigabytes_and_a_price_in_aud_per_hour_are_saved(client, team, magnus_copy):
    tier = magnus_copy.storage_tiers.order_by("name").first()
    client.force_login(team["dave"])
    changes = {f"tier-{tier.pk}-capacity": "600 GB", f"tier-{tier.pk}-capacity-kind": "assumption",
               f"tier-{tier.pk}-capacity-reason": "the quota we were granted",
               "platform-node_hour_rate": "0.05 AUD/hour", "platform-node_hour_rate-kind": "assumption",
               "platform-node_hour_rate-reason": "the 2027 merit allocation price"}
    response = client.post(f"/platforms/{magnus_copy.slug}/edit/", _edit_data(client, magnus_copy, **changes))
    assert response.status_code == 302, _errors(response)
    tier.refresh_from_db()
    magnus_copy.refresh_from_db()
    assert (tier.capacity, magnus_copy.node_hour_rate) == (600e9, 0.05)


@pytest.mark.parametrize(("typed", "saved"), [
    ({"kind": "paper", "title": "Cray XC40 network", "where": "Table 4", "reason": "not an assumption"},
     {"kind": "paper", "title": "Cray XC40 network", "where": "Table 4"}),
    ({"kind": "url", "url": "https://pawsey.org.au/systems/magnus/"},
     {"kind": "url", "url": "https://pawsey.org.au/systems/magnus/"}),
    ({"kind": "fitted", "method": "least squares to our 394-job run"},
     {"kind": "fitted", "method": "least squares to our 394-job run"}),
])
def test_a_changed_value_may_cite_a_paper_a_web_page_or_a_fit(client, team, magnus_copy, typed, saved):
    client.force_login(team["dave"])
    data = _edit_data(client, magnus_copy, **{"platform-wan_bandwidth": "20 Gb/s",
                                               **{f"platform-wan_bandwidth-{k}": v for k, v in typed.items()}})
    assert client.post(f"/platforms/{magnus_copy.slug}/edit/", data).status_code == 302
    assert Platform.objects.get(pk=magnus_copy.pk).provenance["wan_bandwidth"] == saved


def test_a_web_page_source_needs_a_web_address(client, team, magnus_copy):
    before = _state(magnus_copy)
    client.force_login(team["dave"])
    data = _edit_data(client, magnus_copy, **{"platform-wan_bandwidth": "20 Gb/s",
                                               "platform-wan_bandwidth-kind": "url",
                                               "platform-wan_bandwidth-url": "pawsey.org.au"})
    response = client.post(f"/platforms/{magnus_copy.slug}/edit/", data)
    assert response.status_code == 400
    assert _errors(response) == ["Magnus (Pawsey Cray XC40) (copy) · WAN bandwidth to the data source: changed: its new source is "
                                 "incomplete: 'url' must be a web address starting with http:// or https://"]
    assert _state(magnus_copy) == before
