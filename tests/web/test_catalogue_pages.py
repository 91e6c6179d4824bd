"""Catalogue pages: login first, readable tables with units and provenance beside values."""

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_it_sends_an_anonymous_visitor_to_login(client):
    response = client.get(reverse("platforms:list"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_it_logs_in_with_a_password(client, user):
    response = client.post(reverse("login"), {"username": "ada", "password": "correct horse battery"})
    assert response.status_code == 302
    assert client.get(reverse("home")).status_code == 200


def test_it_explains_a_wrong_password(client, user):
    response = client.post(reverse("login"), {"username": "ada", "password": "nope"})
    assert response.status_code == 200
    assert b"enter a correct username and password" in response.content


def test_it_answers_the_health_check_without_login(client):
    response = client.get(reverse("health"))
    assert response.json() == {"status": "ok", "database": True}


def test_it_lists_platforms_with_their_wan_and_its_source(logged_in, catalogue):
    html = logged_in.get(reverse("platforms:list")).content.decode()
    assert "Magnus" in html and "Pleiades" in html
    assert 'class="prov"' in html and "Dodson et al. (CHILES)" in html


def test_it_shows_a_platform_with_units_and_provenance(logged_in, catalogue):
    html = logged_in.get(reverse("platforms:detail", args=["aws-sydney"])).content.decode()
    assert "r3.4xlarge" in html
    assert "AUD/h" in html
    assert "Table 1" in html  # the price table is cited beside the prices


def test_it_gives_404_for_an_unknown_platform(logged_in, catalogue):
    assert logged_in.get(reverse("platforms:detail", args=["nowhere"])).status_code == 404


def test_it_shows_the_chiles_workload_parameters_and_stages(logged_in, catalogue):
    html = logged_in.get(reverse("workloads:detail", args=["chiles-epoch1"])).content.decode()
    for stage in ("copy", "split", "invert", "concat"):
        assert f'<th scope="row">{stage}</th>' in html
    assert "MHz" in html and "kHz" in html


def test_it_lists_the_reference_observations(logged_in, catalogue):
    html = logged_in.get(reverse("workloads:observations")).content.decode()
    assert "never used as inputs" in html
    assert "5346" in html


def test_it_refuses_a_negative_bandwidth_in_the_admin(client, staff, catalogue):
    from apps.platforms.models import StorageTier

    client.force_login(staff)
    tier = StorageTier.objects.filter(platform__slug="magnus").first()
    url = reverse("admin:platforms_storagetier_change", args=[tier.pk])
    form = client.get(url).context["adminform"].form
    data = {k: v for k, v in form.initial.items() if v is not None}
    data.update(
        platform=tier.platform_id, name=tier.name, kind=tier.kind, scope=tier.scope or "",
        provenance='{"read_bw": {"kind": "assumption", "reason": "test"}}', read_bw="-3 GB/s",
    )
    for name in list(data):
        value = form.fields[name].prepare_value(data[name]) if name in form.fields else data[name]
        data[name] = "" if value is None else value
    response = client.post(url, data)

    assert response.status_code == 200
    assert response.context["adminform"].form.errors.get("read_bw") == ["must not be negative (got -3 GB/s)"]
    tier.refresh_from_db()
    assert tier.read_bw > 0


def test_it_refuses_an_unknown_unit_in_the_admin(client, staff, catalogue):
    from apps.platforms.models import NodeType

    client.force_login(staff)
    node = NodeType.objects.filter(platform__slug="aws-sydney").first()
    url = reverse("admin:platforms_nodetype_change", args=[node.pk])
    response = client.post(url, {"platform": node.platform_id, "name": node.name, "cores": "4 widgets", "provenance": "{}"})

    assert response.status_code == 200
    assert "unknown unit &#x27;widgets&#x27;" in response.content.decode()


def test_the_home_page_links_to_the_demo_scenario(logged_in, catalogue):
    body = logged_in.get("/").content.decode()
    assert 'action="/scenarios/demo/"' in body and "Run the demo" in body
