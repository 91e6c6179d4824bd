"""Aggregations pinned on hand-computed examples."""

import math

import pytest

from apps.scoring.logic.aggregate import order, product_normalised, topsis, weighted_product, weighted_sum

# A is better on criterion 1, B on criterion 2; criterion 1 weighs three times as much
SCORES = {"A": [4, 2], "B": [2, 4]}
WEIGHTS = [3.0, 1.0]


def test_it_computes_the_papers_product_of_ranks_over_5_to_the_n():
    # Table 3's AWS column: 5*5*5*3*4*5*5*2 = 75,000; 5^8 = 390,625
    got = product_normalised({"aws": [5, 5, 5, 3, 4, 5, 5, 2], "pleiades": [0, 4, 0, 4, 3, 4, 5, 4]})
    assert got["aws"] == pytest.approx(75_000 / 390_625)
    assert got["aws"] == pytest.approx(0.192)
    assert got["pleiades"] == 0.0


def test_it_computes_the_weighted_sum_normalised_to_one():
    got = weighted_sum(SCORES, WEIGHTS)
    assert got["A"] == pytest.approx((0.75 * 4 + 0.25 * 2) / 5)  # 0.7
    assert got["B"] == pytest.approx(0.5)


def test_it_computes_the_weighted_product():
    got = weighted_product(SCORES, WEIGHTS)
    assert got["A"] == pytest.approx(0.8**0.75 * 0.4**0.25)
    assert got["A"] == pytest.approx(0.6727, abs=1e-4)
    assert got["B"] == pytest.approx(0.4**0.75 * 0.8**0.25)


def test_it_gives_zero_weighted_product_for_a_zero_rank_on_a_weighted_criterion():
    assert weighted_product({"A": [0, 5]}, [1, 1])["A"] == 0.0
    assert weighted_product({"A": [0, 5]}, [0, 1])["A"] == pytest.approx(1.0)


def test_it_computes_topsis_closeness():
    # columns normalise to (2/sqrt5, 1/sqrt5); weighted: A=(0.6708, 0.1118), B=(0.3354, 0.2236)
    # A: d+ = 0.1118, d- = 0.3354 -> 0.75; B is the mirror image -> 0.25
    got = topsis(SCORES, WEIGHTS)
    assert got["A"] == pytest.approx(0.75)
    assert got["B"] == pytest.approx(0.25)


def test_it_gives_topsis_one_half_when_all_platforms_tie():
    assert topsis({"A": [3, 3], "B": [3, 3]}, [1, 1]) == {"A": 0.5, "B": 0.5}


def test_it_refuses_weights_that_do_not_fit():
    with pytest.raises(ValueError, match="weights"):
        weighted_sum(SCORES, [0, 0])
    with pytest.raises(ValueError, match="weights"):
        weighted_sum(SCORES, [1, -1])
    with pytest.raises(ValueError, match="3 given for 2"):
        topsis(SCORES, [1, 1, 1])
    with pytest.raises(ValueError, match="non-negative"):
        weighted_sum(SCORES, [math.nan, 1])


def test_it_orders_best_first_with_ties_by_name():
    assert order({"b": 0.5, "a": 0.5, "c": 0.9}) == ["c", "a", "b"]


# ---- an unknown rank (None) is left out, never counted as 0

UNKNOWN = {"A": [4, None], "B": [2, 4]}


def test_it_leaves_an_unknown_rank_out_of_the_weighted_sum():
    got = weighted_sum(UNKNOWN, WEIGHTS)
    assert got["A"] == pytest.approx(4 / 5)  # A's only known rank, its weight renormalised to 1
    assert got["B"] == pytest.approx(0.5)


def test_it_leaves_an_unknown_rank_out_of_the_product_and_weighted_product():
    assert product_normalised(UNKNOWN)["A"] == pytest.approx(4 / 5)
    assert weighted_product(UNKNOWN, WEIGHTS)["A"] == pytest.approx(4 / 5)


def test_it_leaves_an_unknown_rank_out_of_topsis():
    # criterion 2 is known for B alone, so it is both ideal and anti-ideal there and separates nobody; on
    # criterion 1 A is the ideal and B the anti-ideal.  Counted as 0, A's unknown would have made B's 4 the ideal.
    got = topsis(UNKNOWN, WEIGHTS)
    assert got["A"] == pytest.approx(1.0)
    assert got["B"] == pytest.approx(0.0)
    assert topsis({"A": [4, 0], "B": [2, 4]}, WEIGHTS)["B"] > 0


def test_it_orders_a_platform_with_no_known_rank_last():
    values = weighted_sum({"A": [None, None], "B": [1, 1]}, WEIGHTS)
    assert values["A"] is None
    assert order(values) == ["B", "A"]
