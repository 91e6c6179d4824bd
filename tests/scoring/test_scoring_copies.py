"""Scoring simulates a workspace copy with its original's scenario: an unedited copy scores like the original."""

from apps.accounts.workspaces import personal_workspace
from apps.platforms.models import Platform
from apps.platforms.services import copy_platform
from apps.scoring.adapters import reference_origin, simulate_epochs
from apps.workloads.models import Workload


def test_an_unedited_copy_is_simulated_with_the_originals_paper_scenario(catalogue, user):
    pleiades = Platform.objects.get(slug="pleiades")
    copy = copy_platform(pleiades, personal_workspace(user))
    copy_of_copy = copy_platform(copy, personal_workspace(user))
    assert reference_origin(copy_of_copy) == reference_origin(copy) == "pleiades"
    runs = simulate_epochs([pleiades, copy_of_copy], Workload.objects.get(slug="chiles-epoch1"), replications=1)
    original, duplicate = runs["pleiades"], runs[copy_of_copy.slug]
    assert "sequential" in duplicate.note and duplicate.note == original.note
    assert (duplicate.run_time_s, duplicate.total_cost_aud, duplicate.cost_lines) == (
        original.run_time_s, original.total_cost_aud, original.cost_lines)
