"""Confidence intervals for success rates over a handful of trials."""

from __future__ import annotations

import math
from statistics import NormalDist


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
    # The closed form, as scipy's binomtest(...).proportion_ci(method="wilson") computes it;
    # importing scipy.stats for it cost every run's report over a second.
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    share = successes / trials
    scale = 1 + z * z / trials
    centre = (share + z * z / (2 * trials)) / scale
    half = z / scale * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials))
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high
