"""Confidence intervals for success rates over a handful of trials."""

from __future__ import annotations


def wilson(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of ``successes`` in ``trials`` (95% by default).

    Unlike the normal approximation it stays inside [0, 1] and is not empty at 0 or n
    successes, which is where a benchmark with few trials usually sits: there its low end
    is exactly 0 or its high end exactly 1. No trials give the whole range.
    """
    if not 0 <= successes <= trials:
        raise ValueError(f"expected 0 <= successes <= trials, got {successes} of {trials}")
    if trials == 0:
        return 0.0, 1.0
    from scipy.stats import binomtest

    interval = binomtest(successes, trials).proportion_ci(
        confidence_level=confidence, method="wilson"
    )
    return float(interval.low), float(interval.high)
