"""What k attempts at a task would give, estimated without bias from n trials of it, and
where a score lies between the starting point and the reference solution.

Each estimator is the mean over every k-subset of the n trials, in closed form, so it uses
all n trials instead of one arbitrary split into groups of k (Chen et al. 2021 for pass@k,
Yao et al. 2024 for pass^k). None where k exceeds the trials there are.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import chain, repeat
from math import comb, fsum, isfinite
from typing import Literal


def _checked(passed: int, trials: int, k: int) -> None:
    if not 0 <= passed <= trials:
        raise ValueError(f"expected 0 <= passed <= trials, got {passed} of {trials}")
    if k < 1:
        raise ValueError(f"expected k >= 1, got {k}")


def pass_at_k(passed: int, trials: int, k: int) -> float | None:
    """The chance that at least one of k trials drawn from the n passes:
    1 - C(n - c, k) / C(n, k)."""
    _checked(passed, trials, k)
    if k > trials:
        return None
    # Whole numbers divided once: exact up to the last bit, however large the binomials.
    return (comb(trials, k) - comb(trials - passed, k)) / comb(trials, k)


def pass_hat_k(passed: int, trials: int, k: int) -> float | None:
    """The chance that all k trials drawn from the n pass: C(c, k) / C(n, k)."""
    _checked(passed, trials, k)
    if k > trials:
        return None
    return comb(passed, k) / comb(trials, k)


def best_of_k(values: Sequence[float], k: int) -> float | None:
    """The expected best of k values drawn without replacement from ``values`` (higher is
    better): with v_1 <= ... <= v_n, sum_i v_i C(i - 1, k - 1) / C(n, k), each value weighted
    by the share of k-subsets in which it is the largest."""
    if k < 1:
        raise ValueError(f"expected k >= 1, got {k}")
    if not all(isfinite(value) for value in values):
        raise ValueError(f"expected finite values, got {list(values)}")
    if k > len(values):
        return None
    ordered = sorted(values)
    total = comb(len(ordered), k)
    return fsum(value * (comb(rank, k - 1) / total) for rank, value in enumerate(ordered))


def _combs(n: int) -> Iterator[int]:
    """C(n, k) for k = 1 .. n, each made exactly from the one before."""
    value = 1
    for k in range(1, n + 1):
        value = value * (n - k + 1) // k
        yield value


def pass_at_ks(passed: int, trials: int) -> dict[int, float]:
    """``pass_at_k`` for k = 1 .. trials, the same numbers in O(n) steps: each binomial
    from the one before, where a binomial of its own for each k takes O(n^2) in all."""
    _checked(passed, trials, 1)
    without = chain(_combs(trials - passed), repeat(0))
    return {k: (total - next(without)) / total for k, total in enumerate(_combs(trials), 1)}


def pass_hat_ks(passed: int, trials: int) -> dict[int, float]:
    """``pass_hat_k`` for k = 1 .. trials, as ``pass_at_ks``."""
    _checked(passed, trials, 1)
    chosen = chain(_combs(passed), repeat(0))
    return {k: next(chosen) / total for k, total in enumerate(_combs(trials), 1)}


def best_of_ks(values: Sequence[float]) -> dict[int, float]:
    """``best_of_k`` for k = 1 .. n, in O(n) products of floats per k, where ``best_of_k``
    of each k takes n binomials of up to n bits (1,000 trials: milliseconds, not seconds).
    The i-th smallest value's weight (from 1), C(i - 1, k - 1) / C(n, k), is 1 / n at
    k = 1, and each k's is the one before's times (i - k) / k * (k + 1) / (n - k)."""
    import numpy as np

    if not all(isfinite(value) for value in values):
        raise ValueError(f"expected finite values, got {list(values)}")
    n = len(values)
    ordered = np.sort(np.asarray(values, dtype=float))
    ranks = np.arange(1, n + 1, dtype=float)
    weights = np.full(n, 1 / max(n, 1))
    found: dict[int, float] = {}
    for k in range(1, n + 1):
        found[k] = float(ordered @ weights)
        weights *= (ranks - k) / k * ((k + 1) / (n - k) if k < n else 0.0)
    return found


def normalised_score(score: float, baseline: float, reference: float) -> float | None:
    """Where ``score`` lies from the baseline (0) to the reference solution (1):
    (score - baseline) / (reference - baseline). The same formula holds for either direction
    of the metric, since both differences change sign together; None when the reference does
    not differ from the baseline or a number is not finite."""
    span = reference - baseline
    if span == 0 or not all(isfinite(x) for x in (score, baseline, reference, span)):
        return None
    value = (score - baseline) / span
    return value if isfinite(value) else None


def normalised(
    score: float, baseline: float, reference: float, direction: Literal["higher", "lower"]
) -> float | None:
    """``normalised_score`` where the reference beats the baseline in the metric's direction;
    None otherwise, since a scale from the baseline to something no better than it would
    turn gains into losses."""
    beats = reference > baseline if direction == "higher" else reference < baseline
    return normalised_score(score, baseline, reference) if beats else None
