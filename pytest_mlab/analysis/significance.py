"""One-sided exact tests that a current run did worse than a baseline run.

Agent trials are few (3 to 30 per task) and their outcomes are far from normal: success
is a coin with an unknown bias and improvements are skewed by the odd brilliant or broken
trial. Tests built on large-sample approximations (z, chi-square, t) are unreliable there,
so every test here is exact, or a seeded Monte-Carlo estimate of an exact test where
enumeration would be too slow. All are one-sided: only a fall can fail a build.

- Success, paired (same trials in both runs): McNemar's exact test. Only discordant pairs
  carry information; under no change a pair is as likely to get worse as better, so the
  number that got worse is Binomial(discordant, 1/2).
- Success, unpaired: Fisher's exact test, conditioning on the total number of successes
  (hypergeometric). Slightly conservative next to Boschloo's test, which needs a
  numerical search over the nuisance parameter; conservative is the right side to err on
  for a gate.
- Improvement, paired: the sign-flip permutation test on the per-trial differences: under
  no change each difference is as likely to be negative as positive. Exact by
  meet-in-the-middle up to ``EXACT_SIGNS`` pairs, seeded Monte Carlo beyond.
- Improvement, unpaired: the permutation test on the difference of means, exact over all
  relabellings up to ``EXACT_RELABELLINGS`` of them, seeded Monte Carlo beyond.

Monte-Carlo p-values are ``(1 + hits) / (1 + resamples)``, which keeps the test's level
(the observed labelling counts as one of the resamples). The seed is fixed, so the same
two runs always give the same p-value.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Sequence
from itertools import combinations
from math import comb, fsum

EXACT_SIGNS = 30
EXACT_RELABELLINGS = 20_000
RESAMPLES = 10_000
SEED = 0


def mcnemar_p(worse: int, better: int) -> float:
    """P(at least ``worse`` of the discordant pairs got worse) if neither way is favoured.

    ``worse``: pairs that succeeded in the baseline and failed now; ``better``: the reverse.
    """
    n = worse + better
    return sum(comb(n, k) for k in range(worse, n + 1)) / (1 << n)


def fisher_p(base_k: int, base_n: int, cur_k: int, cur_n: int) -> float:
    """P(at most ``cur_k`` of the current trials succeed) given both runs' total successes."""
    total, successes = base_n + cur_n, base_k + cur_k
    low = max(0, successes - base_n)
    hits = sum(
        comb(successes, x) * comb(total - successes, cur_n - x) for x in range(low, cur_k + 1)
    )
    return hits / comb(total, cur_n)


def _tolerance(values: Sequence[float]) -> float:
    # Sums of the same numbers in another order differ in the last bits; an exact tie
    # with the observed statistic must count as a tie.
    return 1e-9 * (fsum(abs(v) for v in values) + 1.0)


def _signed_sums(values: Sequence[float]) -> list[float]:
    sums = [0.0]
    for value in values:
        sums = [s + value for s in sums] + [s - value for s in sums]
    return sums


def sign_flip_p(
    diffs: Sequence[float], *, exact_up_to: int = EXACT_SIGNS, resamples: int = RESAMPLES,
    seed: int = SEED,
) -> float:
    """P(a random choice of signs for ``|diffs|`` sums to at most ``sum(diffs)``)."""
    sizes = [abs(d) for d in diffs if d != 0]
    if not sizes:
        return 1.0
    limit = fsum(diffs) + _tolerance(sizes)
    n = len(sizes)
    if n <= exact_up_to:
        left = _signed_sums(sizes[: n // 2])
        right = sorted(_signed_sums(sizes[n // 2 :]))
        return sum(bisect_right(right, limit - s) for s in left) / (1 << n)
    rng = random.Random(seed)
    hits = 0
    for _ in range(resamples):
        signs = rng.getrandbits(n)
        total = fsum(size if signs >> i & 1 else -size for i, size in enumerate(sizes))
        hits += total <= limit
    return (1 + hits) / (1 + resamples)


def permutation_p(
    baseline: Sequence[float], current: Sequence[float], *,
    exact_up_to: int = EXACT_RELABELLINGS, resamples: int = RESAMPLES, seed: int = SEED,
) -> float:
    """P(a random ``len(current)`` of the pooled values have a mean at most the current's)."""
    if not baseline or not current:
        return 1.0
    pool = [*baseline, *current]
    k = len(current)
    limit = fsum(current) + _tolerance(pool)
    relabellings = comb(len(pool), k)
    if relabellings <= exact_up_to:
        return sum(fsum(chosen) <= limit for chosen in combinations(pool, k)) / relabellings
    rng = random.Random(seed)
    hits = sum(fsum(rng.sample(pool, k)) <= limit for _ in range(resamples))
    return (1 + hits) / (1 + resamples)
