"""Weight sensitivity, random weights and method agreement on hand-computed cases."""

import pytest

from apps.scoring.logic.robustness import (
    first_place_probability,
    kendall_tau_b,
    method_agreement,
    one_at_a_time,
    weight_flip,
    winners,
)

SCORES = {"A": [4, 2], "B": [2, 4]}


def test_it_finds_the_weight_at_which_the_winner_flips():
    # weighted sum: A - B = 2 w1 - 2 w2, a tie at w1 = w2 = 0.5; from (0.75, 0.25) each weight must move 0.25
    flips = weight_flip(SCORES, [3, 1])
    assert winners(SCORES, [3, 1]) == ["A"]
    assert flips[0].to_weight == pytest.approx(0.5, abs=1e-6)
    assert flips[0].change == pytest.approx(0.25, abs=1e-6)
    assert flips[1].to_weight == pytest.approx(0.5, abs=1e-6)
    assert "B" in flips[0].new_winner


def test_it_reports_no_flip_when_one_platform_dominates():
    flips = weight_flip({"A": [5, 5], "B": [1, 1]}, [1, 1])
    assert flips == [None, None]


def test_it_perturbs_one_weight_at_a_time():
    rows = one_at_a_time(SCORES, [3, 1], factors=(0.5, 4.0))
    # halving w1 gives (1.5, 1): A still wins; w2 x4 gives (3, 4): B wins
    assert {(r["criterion"], r["factor"]): r["winners"] for r in rows} == {
        (0, 0.5): ["A"], (0, 4.0): ["A"], (1, 0.5): ["A"], (1, 4.0): ["B"]}


def test_it_samples_weights_reproducibly_and_splits_first_places():
    p = first_place_probability(SCORES, samples=4000, seed=3)
    assert p == first_place_probability(SCORES, samples=4000, seed=3)
    assert sum(p.values()) == pytest.approx(1.0)
    # flat Dirichlet on two weights: w1 > w2 half of the time
    assert p["A"] == pytest.approx(0.5, abs=0.03)


def test_it_concentrates_weight_samples_near_the_given_weights():
    p = first_place_probability(SCORES, [0.9, 0.1], samples=2000, seed=1, concentration=50.0)
    assert p["A"] > 0.99


def test_it_computes_kendall_tau_b():
    # pairs (1,2) and (1,3) concordant, (2,3) discordant: (2 - 1) / 3
    assert kendall_tau_b([1, 2, 3], [1, 3, 2]) == pytest.approx(1 / 3)
    assert kendall_tau_b([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    # with a tie in y: n_c = 2, n_d = 0, ties_y = 1 -> 2 / sqrt(3 * 2)
    assert kendall_tau_b([1, 2, 3], [1, 2, 2]) == pytest.approx(2 / 6**0.5)
    assert kendall_tau_b([1, 1], [1, 2]) is None


def test_it_measures_agreement_between_methods():
    rows = method_agreement({"m1": {"A": 1, "B": 2, "C": 3}, "m2": {"A": 3, "B": 2, "C": 1}})
    assert rows == [{"a": "m1", "b": "m2", "tau": pytest.approx(-1.0)}]


def test_it_counts_first_places_over_known_ranks_only():
    from apps.scoring.logic.robustness import first_place_probability, winners

    # A is unknown on the criterion B is poor on: A's 4 beats B's (4 + 1)/2 under any weights
    scores = {"A": [4, None], "B": [4, 1]}
    assert winners(scores, [1.0, 1.0]) == ["A"]
    assert first_place_probability(scores, samples=200, seed=1) == {"A": 1.0, "B": 0.0}
