"""Workload pages with workspaces: a member sees their workspace's workloads, anyone else gets a 404; an editor
copies a reference workload into the active workspace from its page."""

from __future__ import annotations

import pytest

from apps.accounts.workspaces import personal_workspace
from apps.workloads.models import Workload
from apps.workloads.services import copy_workload

pytestmark = pytest.mark.django_db


def test_an_editor_copies_a_workload_from_its_page(client, catalogue, user):
    client.force_login(user)
    page = client.get("/workloads/sdp-predict-p3/").content.decode()
    assert "Part of the shared reference catalogue: read-only." in page and "Copy to my workspace" in page

    response = client.post("/workloads/sdp-predict-p3/copy/")
    assert response.status_code == 302 and response["Location"] == "/workloads/sdp-predict-p3-copy/edit/"
    copy = Workload.objects.get(slug="sdp-predict-p3-copy")
    assert copy.workspace == personal_workspace(user) and copy.copied_from.slug == "sdp-predict-p3"
    page = client.get("/workloads/sdp-predict-p3-copy/").content.decode()
    assert "A workload of workspace ada&#x27;s workspace, copied from" in page
    assert "sdp-predict-p3-copy" in client.get("/workloads/").content.decode()


def test_another_workspaces_workload_is_a_404_and_not_listed(client, catalogue, user, django_user_model):
    copy_workload(Workload.objects.get(slug="sdp-predict-p3"), personal_workspace(user), user=user)
    bob = django_user_model.objects.create_user(username="bob", password="another horse battery")
    client.force_login(bob)
    assert client.get("/workloads/sdp-predict-p3-copy/").status_code == 404
    assert client.post("/workloads/sdp-predict-p3-copy/copy/").status_code == 404
    assert "sdp-predict-p3-copy" not in client.get("/workloads/").content.decode()
    assert client.get("/scenarios/new/?workload=sdp-predict-p3-copy").status_code == 404
