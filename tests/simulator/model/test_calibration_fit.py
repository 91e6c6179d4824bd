"""Bounded least-squares fits of workload demands to observed run times, with a prediction and error for every
observation (the fitted ones flagged in sample).  Expected values are worked out by hand from the platforms here."""

import pytest

from simulator.model.calibration import Demand, fit_demands, scenario_predictor
from simulator.model.catalogue import Observation
from simulator.model.specs import (
    NodeTypeSpec,
    PlatformSpec,
    PricingSpec,
    ScenarioSpec,
    StagePlacement,
    StageSpec,
    StorageSpec,
    WorkloadSpec,
)


def _platform(slug, core_speed):
    return PlatformSpec(slug=slug, name=slug, kind="cloud",
                        node_types=(NodeTypeSpec("c4", cores=4, on_demand_aud_per_hour=1.0, core_speed=core_speed),),
                        storage=(StorageSpec("ssd", "local_ssd", "per_node", read_bytes_per_s=1e9,
                                             write_bytes_per_s=1e9),),
                        pricing=PricingSpec(billing_unit="instance_hour"))


PLATFORMS = {"fast": _platform("fast", 1.0), "slow": _platform("slow", 0.5)}
#: one job of 100 reference core-seconds (a guess to be fitted) and a fixed 10 s overhead
WORKLOAD = WorkloadSpec("one", template="job_array", parameters={"n_jobs": 1},
                        stages=(StageSpec("job", cpu_seconds=100.0),))


def _scenario(slug):
    def make(workload):
        pl = StagePlacement("job", "c4", 1, "ssd", pricing="on_demand", policy="dynamic")
        return ScenarioSpec(platform=PLATFORMS[slug], workload=workload, placements=(pl,))
    return make


PREDICT = scenario_predictor({slug: _scenario(slug) for slug in PLATFORMS})


def _obs(key, platform, seconds, fit=True, quantity="makespan"):
    return Observation(key, quantity, platform, seconds, "s", fit="mine" if fit else "")


def test_it_fits_a_stage_demand_to_an_observed_time_and_predicts_the_others():
    # 7 minutes on the fast core (speed 1): 420 core-seconds; on the half-speed core that is 840 s against 900 seen
    obs = [_obs("fast-run", "fast", 420.0), _obs("slow-run", "slow", 900.0, fit=False)]
    result = fit_demands(WORKLOAD, [Demand("job.cpu_seconds", 1.0, 1e6)], obs, PREDICT)
    (f,) = result.fitted
    assert f.name == "job.cpu_seconds" and f.unit == "s"
    assert f.value == pytest.approx(420.0, rel=1e-6)
    assert f.observations == ("fast-run",)
    rows = {p.key: p for p in result.predictions}
    assert rows["fast-run"].in_sample and rows["fast-run"].error_pct == pytest.approx(0.0, abs=1e-4)
    assert not rows["slow-run"].in_sample
    assert rows["slow-run"].predicted == pytest.approx(840.0, rel=1e-6)
    assert rows["slow-run"].error_pct == pytest.approx(100 * (840 - 900) / 900, rel=1e-5)


def test_it_keeps_the_fit_within_its_bounds():
    result = fit_demands(WORKLOAD, [Demand("job.cpu_seconds", 1.0, 300.0)], [_obs("fast-run", "fast", 420.0)],
                         PREDICT)
    assert result.fitted[0].value == pytest.approx(300.0)
    assert result.at_bound == ("job.cpu_seconds",)


def test_it_refuses_values_the_observations_cannot_tell_apart():
    # CPU time and a fixed overhead both just add to the one job's time: two runs cannot separate them
    obs = [_obs("fast-run", "fast", 420.0), _obs("slow-run", "slow", 900.0)]
    with pytest.raises(ValueError, match="cannot tell job.cpu_seconds, job.overhead_s apart"):
        fit_demands(WORKLOAD, [Demand("job.cpu_seconds", 1.0, 1e6), Demand("job.overhead_s", 0.0, 1e6)],
                    [obs[0], _obs("fast-again", "fast", 420.0)], PREDICT)


@pytest.mark.parametrize("demand, message", [
    (Demand("nope.cpu_seconds"), "no stage 'nope'"),
    (Demand("job.usable_threads"), "'usable_threads' cannot be fitted"),
    (Demand("n_jobz"), "not a numeric parameter"),
    (Demand("job.cpu_seconds", 5.0, 1.0), "lower bound must be below"),
])
def test_it_names_a_demand_it_cannot_fit(demand, message):
    with pytest.raises(ValueError, match=message):
        fit_demands(WORKLOAD, [demand], [_obs("fast-run", "fast", 420.0)], PREDICT)


def test_it_needs_as_many_marked_observations_as_values():
    with pytest.raises(ValueError, match="at least as many observations marked"):
        fit_demands(WORKLOAD, [Demand("job.cpu_seconds")], [_obs("seen", "fast", 420.0, fit=False)], PREDICT)


def test_it_predicts_a_stage_time():
    obs = [_obs("fast-run", "fast", 420.0), _obs("slow-stage", "slow", 800.0, fit=False, quantity="stage_time:job")]
    rows = {p.key: p for p in fit_demands(WORKLOAD, [Demand("job.cpu_seconds", 1.0, 1e6)], obs, PREDICT).predictions}
    assert rows["slow-stage"].predicted == pytest.approx(840.0, rel=1e-6)
