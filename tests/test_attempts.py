"""The estimators of k attempts and the normalised score, against hand computations and
brute force over every k-subset of the trials."""

from __future__ import annotations

import itertools
import math
import time
from statistics import fmean

import pytest

from pytest_mlab.analysis.attempts import (
    best_of_k,
    best_of_ks,
    normalised,
    normalised_score,
    pass_at_k,
    pass_at_ks,
    pass_hat_k,
    pass_hat_ks,
)


@pytest.mark.parametrize(
    ("passed", "trials", "k", "at_k", "hat_k"),
    [
        (2, 5, 2, 0.7, 0.1),  # 1 - C(3,2)/C(5,2) = 1 - 3/10; C(2,2)/C(5,2) = 1/10
        (2, 5, 1, 0.4, 0.4),  # k = 1: both are the success rate c/n
        (2, 5, 3, 0.9, 0.0),  # 1 - C(3,3)/C(5,3) = 1 - 1/10; C(2,3) = 0
        (2, 5, 4, 1.0, 0.0),  # C(3,4) = 0: any 4 of the 5 hold a pass
        (4, 5, 4, 1.0, 0.2),  # C(4,4)/C(5,4) = 1/5
        (0, 3, 2, 0.0, 0.0),
        (3, 3, 3, 1.0, 1.0),
        (1, 4, 2, 0.5, 0.0),  # 1 - C(3,2)/C(4,2) = 1 - 3/6
    ],
)
def test_pass_at_k_and_pass_hat_k_by_hand(
    passed: int, trials: int, k: int, at_k: float, hat_k: float
) -> None:
    assert pass_at_k(passed, trials, k) == pytest.approx(at_k)
    assert pass_hat_k(passed, trials, k) == pytest.approx(hat_k)


@pytest.mark.parametrize(("passed", "trials"), [(0, 1), (1, 1), (2, 5), (3, 7), (5, 8)])
def test_the_estimators_are_the_mean_over_every_k_subset(passed: int, trials: int) -> None:
    outcomes = [True] * passed + [False] * (trials - passed)
    for k in range(1, trials + 1):
        subsets = list(itertools.combinations(outcomes, k))
        assert pass_at_k(passed, trials, k) == pytest.approx(fmean(any(s) for s in subsets))
        assert pass_hat_k(passed, trials, k) == pytest.approx(fmean(all(s) for s in subsets))


def test_pass_at_k_stays_exact_with_many_trials() -> None:
    # 1 - C(999, 10)/C(1000, 10) = 10/1000: a difference of two huge binomials, exact.
    assert pass_at_k(1, 1000, 10) == 0.01
    assert pass_hat_k(1000, 1000, 500) == 1.0


def test_more_attempts_than_trials_has_no_estimate() -> None:
    assert pass_at_k(2, 3, 4) is None and pass_hat_k(2, 3, 4) is None
    assert pass_at_k(0, 0, 1) is None
    assert best_of_k([0.1, 0.2], 3) is None and best_of_k([], 1) is None


@pytest.mark.parametrize(("passed", "trials", "k"), [(3, 2, 1), (-1, 2, 1), (1, 2, 0)])
def test_impossible_counts_are_refused(passed: int, trials: int, k: int) -> None:
    with pytest.raises(ValueError, match="expected"):
        pass_at_k(passed, trials, k)
    with pytest.raises(ValueError, match="expected"):
        pass_hat_k(passed, trials, k)


def test_best_of_k_by_hand() -> None:
    values = [0.1, -0.2, 0.5, 0.3]
    # Sorted -0.2, 0.1, 0.3, 0.5; with k = 2 the i-th (from 0) is the best in C(i, 1) of
    # the C(4, 2) = 6 pairs: (0 * -0.2 + 1 * 0.1 + 2 * 0.3 + 3 * 0.5) / 6 = 2.2 / 6.
    assert best_of_k(values, 2) == pytest.approx(2.2 / 6)
    assert best_of_k(values, 1) == pytest.approx(0.175)  # the mean
    assert best_of_k(values, 4) == pytest.approx(0.5)  # the best


@pytest.mark.parametrize("values", [[0.1, -0.2, 0.5, 0.3], [0.0, 0.0, 0.4, 0.4, -1.0],
                                    [2.5], [-0.1, -0.3, -0.2, 0.0, 0.7, 0.7, 0.2]])
def test_best_of_k_is_the_mean_best_over_every_k_subset(values: list[float]) -> None:
    for k in range(1, len(values) + 1):
        subsets = list(itertools.combinations(values, k))
        assert best_of_k(values, k) == pytest.approx(fmean(max(s) for s in subsets))


def test_best_of_k_refuses_what_has_no_order() -> None:
    with pytest.raises(ValueError, match="expected finite values"):
        best_of_k([0.1, math.nan], 1)
    with pytest.raises(ValueError, match="expected k >= 1"):
        best_of_k([0.1], 0)


@pytest.mark.parametrize("trials", [0, 1, 2, 5, 12, 200])
def test_every_k_at_once_is_each_k_alone(trials: int) -> None:
    for passed in sorted({0, 1 if trials else 0, trials // 3, trials}):
        ks = range(1, trials + 1)
        # The same binomials, made one from the next: the same numbers to the last bit.
        assert pass_at_ks(passed, trials) == {k: pass_at_k(passed, trials, k) for k in ks}
        assert pass_hat_ks(passed, trials) == {k: pass_hat_k(passed, trials, k) for k in ks}
    values = [math.sin(n) for n in range(trials)]
    found = best_of_ks(values)
    assert list(found) == list(range(1, trials + 1))
    for k, value in found.items():
        assert value == pytest.approx(best_of_k(values, k), rel=1e-12, abs=1e-15)


def test_every_k_of_two_thousand_trials_takes_moments() -> None:
    # Each k's binomials made apart took 44 s for best-of-k of 2,000 trials.
    start = time.perf_counter()
    pass_at_ks(700, 2000)
    pass_hat_ks(700, 2000)
    found = best_of_ks([math.sin(n) for n in range(2000)])
    assert time.perf_counter() - start < 5.0
    assert found[1] == pytest.approx(fmean(math.sin(n) for n in range(2000)))
    assert found[2000] == pytest.approx(max(math.sin(n) for n in range(2000)))


def test_every_k_at_once_refuses_what_best_of_k_refuses() -> None:
    with pytest.raises(ValueError, match="expected finite values"):
        best_of_ks([0.1, math.inf])
    with pytest.raises(ValueError, match="expected"):
        pass_at_ks(3, 2)
    with pytest.raises(ValueError, match="expected"):
        pass_hat_ks(-1, 2)


def test_normalised_score_in_both_directions() -> None:
    # accuracy, higher is better: baseline 0.6, reference 0.7.
    assert normalised_score(0.65, 0.6, 0.7) == pytest.approx(0.5)
    assert normalised_score(0.8, 0.6, 0.7) == pytest.approx(2.0)  # beyond the reference
    assert normalised_score(0.55, 0.6, 0.7) == pytest.approx(-0.5)  # worse than the start
    # error, lower is better: baseline 10, reference 4; (7 - 10) / (4 - 10) = 0.5.
    assert normalised_score(7.0, 10.0, 4.0) == pytest.approx(0.5)
    assert normalised_score(12.0, 10.0, 4.0) == pytest.approx(-1 / 3)
    assert normalised_score(4.0, 10.0, 4.0) == 1.0 and normalised_score(10.0, 10.0, 4.0) == 0.0
    assert normalised(7.0, 10.0, 4.0, "lower") == pytest.approx(0.5)
    assert normalised(0.65, 0.6, 0.7, "higher") == pytest.approx(0.5)


def test_no_scale_gives_no_normalised_score() -> None:
    assert normalised_score(0.7, 0.6, 0.6) is None  # the reference is the baseline
    assert normalised_score(math.nan, 0.6, 0.7) is None
    assert normalised_score(0.7, 0.6, math.inf) is None
    assert normalised_score(1e10, 0.0, 1e-300) is None  # 1e310 overflows: no number
    # A reference no better than the baseline in the metric's direction turns gains into
    # losses: no score rather than a wrong one.
    assert normalised(0.65, 0.6, 0.5, "higher") is None
    assert normalised(7.0, 10.0, 12.0, "lower") is None
