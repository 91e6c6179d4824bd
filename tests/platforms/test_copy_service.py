"""Copying a platform into a workspace: every value and its source kept exactly, a fresh slug and name, the
editor role needed; which platforms a user sees."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.forms.models import model_to_dict

from apps.platforms.models import Platform
from apps.platforms.services import copy_platform, reference_platforms, visible_platforms


def _facts(obj) -> dict:
    return {name: getattr(obj, name) for name in obj.FACT_FIELDS}


def test_a_copy_keeps_every_value_and_source_of_the_platform_its_node_types_and_storage_tiers(team):
    aws = Platform.objects.get(slug="aws-sydney")
    copy = copy_platform(aws, team["workspace"], user=team["dave"])

    copy.refresh_from_db()
    assert (copy.workspace, copy.copied_from, copy.kind, copy.description) == (
        team["workspace"], aws, aws.kind, aws.description)
    assert _facts(copy) == _facts(aws) and copy.provenance == aws.provenance
    assert copy.provenance["wan_bandwidth"]["kind"] == "seed"  # still the seed's number
    for related in ("node_types", "storage_tiers"):
        originals = {o.name: o for o in getattr(aws, related).all()}
        copies = {c.name: c for c in getattr(copy, related).all()}
        assert set(copies) == set(originals) and len(copies) >= 2
        for name, original in originals.items():
            assert _facts(copies[name]) == _facts(original), name
            assert copies[name].provenance == original.provenance, name
            assert copies[name].pk != original.pk
    # the reference is untouched
    assert aws.storage_tiers.count() == len(originals) and aws.workspace is None  # originals: the tiers, last


def test_the_copy_changes_independently_of_the_reference(team, magnus_copy):
    magnus_copy.provenance["wan_bandwidth"]["where"] = "changed"
    magnus_copy.save()
    assert Platform.objects.get(slug="magnus").provenance["wan_bandwidth"]["where"] != "changed"


def test_each_copy_gets_a_fresh_slug_and_name(team):
    magnus = Platform.objects.get(slug="magnus")
    first = copy_platform(magnus, team["workspace"])
    second = copy_platform(magnus, team["workspace"])
    of_a_copy = copy_platform(first, team["workspace"])

    assert magnus.name == "Magnus (Pawsey Cray XC40)"
    assert (first.slug, first.name) == ("magnus-copy", "Magnus (Pawsey Cray XC40) (copy)")
    assert (second.slug, second.name) == ("magnus-copy-2", "Magnus (Pawsey Cray XC40) (copy 2)")
    assert (of_a_copy.slug, of_a_copy.name, of_a_copy.copied_from) == (
        "magnus-copy-3", "Magnus (Pawsey Cray XC40) (copy 3)", first)


def test_copying_into_a_workspace_needs_the_editor_role_there(team):
    magnus = Platform.objects.get(slug="magnus")
    with pytest.raises(PermissionDenied, match="editor"):
        copy_platform(magnus, team["workspace"], user=team["carol"])
    assert not Platform.objects.filter(workspace=team["workspace"]).exists()


def test_a_user_sees_the_reference_and_the_copies_of_their_workspaces_only(team, magnus_copy):
    reference = set(reference_platforms().values_list("slug", flat=True))
    assert "magnus-copy" not in reference and "magnus" in reference
    for member in ("alice", "carol", "dave"):
        assert set(visible_platforms(team[member]).values_list("slug", flat=True)) == reference | {"magnus-copy"}
    assert set(visible_platforms(team["bob"]).values_list("slug", flat=True)) == reference
    assert visible_platforms(None).filter(slug="magnus-copy").exists()  # the command line sees everything


def test_deleting_the_workspace_deletes_its_copies_not_the_reference(team, magnus_copy):
    team["workspace"].delete()
    assert not Platform.objects.filter(pk=magnus_copy.pk).exists()
    assert model_to_dict(Platform.objects.get(slug="magnus"))["workspace"] is None
