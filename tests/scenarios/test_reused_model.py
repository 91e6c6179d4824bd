"""A run's replications reuse one model built once (``simulator.model.simulate.prepare``) and give exactly what a
model built afresh for each replication gives: makespans, costs, task times and the stored summary, seed by seed,
for every catalogue (platform, workload) pair a user can run, through the one adapter a user's run uses."""

import re
from dataclasses import replace

import pytest
from catalogue_pairs import catalogue_pairs  # tests/ is on sys.path (rootdir conftest)

from apps.platforms.models import Platform
from apps.scenarios.adapters import scenario_from_inputs
from apps.scenarios.services import InvalidScenario, result_json, run_inputs
from apps.workloads.models import Workload
from simulator.model.simulate import prepare, replication_seed, simulate

SEED = 7
REPLICATIONS = 4  # index 0 runs with the seed itself, the others with derived seeds



@pytest.mark.parametrize("platform_slug, workload_slug", catalogue_pairs())
def test_replications_of_a_reused_model_equal_freshly_built_ones(catalogue, platform_slug, workload_slug):
    try:
        inputs = run_inputs(platform=Platform.objects.get(slug=platform_slug),
                            workload=Workload.objects.get(slug=workload_slug), options={}, seed=SEED)
    except InvalidScenario:
        pytest.skip("the pair is refused before it reaches the simulator")
    scenario = scenario_from_inputs(inputs, SEED)
    try:
        model = prepare(scenario)
    except ValueError as exc:  # a model that cannot be built is refused the same way without reuse
        with pytest.raises(ValueError, match=f"^{re.escape(str(exc))}$"):
            simulate(scenario, record_utilisation=False)
        return
    # the graph is built once and only its queue waits are drawn per seed: the CHILES graph, and the general
    # template's when its task sizes do not depend on the seed (every catalogue workload's)
    assert model.built is not None
    for index in range(REPLICATIONS):
        seed = replication_seed(SEED, index)
        detailed = index == 0  # one with the utilisation over time, as the shown replications are stored
        fresh = simulate(scenario, seed=seed, record_utilisation=detailed)
        reused = model.simulate(seed, record_utilisation=detailed)
        assert (reused.makespan_s, reused.total_cost_aud, reused.queue_wait_s) == (
            fresh.makespan_s, fresh.total_cost_aud, fresh.queue_wait_s)
        assert [(t.start_s, t.end_s) for t in reused.tasks] == [(t.start_s, t.end_s) for t in fresh.tasks]
        assert reused == fresh
        assert result_json(reused, detailed=detailed) == result_json(fresh, detailed=detailed)
        # what a replication stored without its detail keeps is the same without the task bars
        summary = model.simulate(seed, record_utilisation=False, task_bars=False)
        assert summary.tasks == () and replace(summary, tasks=fresh.tasks) == replace(fresh, utilisation_series={})
        assert result_json(summary, detailed=False) == result_json(fresh, detailed=False)
