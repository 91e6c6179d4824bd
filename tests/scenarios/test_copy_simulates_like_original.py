"""An unedited workspace copy of a catalogue platform simulates exactly like the original, for every workload:
the model takes everything from the records (no fill-in by slug), through the one adapter a user's run uses."""


import pytest
from catalogue_pairs import catalogue_pairs  # tests/ is on sys.path (rootdir conftest)

from apps.accounts.workspaces import personal_workspace
from apps.platforms.models import Platform
from apps.platforms.services import copy_platform
from apps.scenarios.adapters import scenario_from_inputs
from apps.scenarios.services import InvalidScenario, run_inputs
from apps.workloads.models import Workload
from simulator.model.simulate import simulate

SEED = 7


def _outcome(platform, workload):
    """What a user's run of ``workload`` on ``platform`` (no options) gives: the result's numbers, or the refusal."""
    try:
        inputs = run_inputs(platform=platform, workload=workload, options={}, seed=SEED)
    except InvalidScenario as exc:
        return ("refused", str(exc).replace(platform.slug, "<slug>"))
    try:
        r = simulate(scenario_from_inputs(inputs, SEED), record_utilisation=False)
    except (ValueError, KeyError) as exc:
        return ("failed", str(exc).replace(platform.slug, "<slug>"))
    return ("ran", r.makespan_s, r.queue_wait_s, r.cost_lines,
            tuple((s.stage, s.start_s, s.end_s, s.tasks, s.task_seconds) for s in r.stages))



@pytest.mark.parametrize("platform_slug, workload_slug", catalogue_pairs())
def test_an_unedited_copy_gives_the_originals_makespan_cost_lines_and_stage_times(catalogue, user, platform_slug,
                                                                                   workload_slug):
    original = Platform.objects.get(slug=platform_slug)
    workload = Workload.objects.get(slug=workload_slug)
    copy = copy_platform(original, personal_workspace(user))
    assert copy.slug != original.slug
    want = _outcome(original, workload)
    assert _outcome(copy, workload) == want
    if workload_slug == "chiles-epoch1" and platform_slug in ("pleiades", "magnus", "aws-sydney"):
        assert want[0] == "ran", want  # the case-study platforms do run the case study
