"""One-sided exact tests that a current run did worse than a baseline run.

Agent trials are few (3 to 30 per task) and their outcomes are far from normal: success
is a coin with an unknown bias and improvements are skewed by the odd brilliant or broken
trial. Tests built on large-sample approximations (z, chi-square, t) are unreliable there,
so every test here is exact, or a seeded Monte-Carlo estimate of an exact test where
enumeration would be too slow. All are one-sided: only a fall can fail a build. scipy.stats
computes them; this module picks the test and orients it.

- Success, paired (same trials in both runs): McNemar's exact test. Only discordant pairs
  carry information; under no change the number that got worse is Binomial(discordant, 1/2).
- Success, unpaired: Fisher's exact test. Slightly conservative next to Boschloo's test;
  conservative is the right side to err on for a gate.
- Improvement, paired: the sign-flip permutation test on the per-trial differences.
- Improvement, unpaired: the permutation test on the difference of means.

The permutation tests enumerate every sign choice or relabelling when there are at most
``exact_up_to`` of them (scipy also does whenever there are no more than ``resamples``),
and otherwise draw ``resamples`` of them. A Monte-Carlo p-value is
``(1 + hits) / (1 + resamples)``, which keeps the test's level (the observed arrangement
counts as one of the draws). The seed is fixed, so the same two runs always give the same
p-value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import comb, fsum
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Statistic = Callable[..., NDArray[np.float64]]

# scipy enumerates arrangements in Python: beyond about this many, drawing RESAMPLES of
# them is faster, and exact enough.
EXACT_UP_TO = 10_000
RESAMPLES = 10_000
SEED = 0


def mcnemar_p(worse: int, better: int) -> float:
    """P(at least ``worse`` of the discordant pairs got worse) if neither way is favoured.

    ``worse``: pairs that succeeded in the baseline and failed now; ``better``: the reverse.
    """
    if worse + better == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(binomtest(worse, worse + better, 0.5, alternative="greater").pvalue)


def fisher_p(base_k: int, base_n: int, cur_k: int, cur_n: int) -> float:
    """P(at most ``cur_k`` of the current trials succeed) given both runs' total successes."""
    from scipy.stats import fisher_exact

    # Current run on top: its odds of success are the smaller when it did worse.
    table = [[cur_k, cur_n - cur_k], [base_k, base_n - base_k]]
    return float(fisher_exact(table, alternative="less").pvalue)


def _tolerance(values: Sequence[float]) -> float:
    return 1e-9 * (fsum(abs(v) for v in values) + 1.0)


def _steps(sums: NDArray[np.float64], observed: float, tolerance: float) -> NDArray[np.float64]:
    """``sums`` in whole tolerances from ``observed``: the statistic the tests compare.

    Sums of the same numbers in another order or with other signs differ in the last bits,
    and scipy's relative allowance for that misses ties near zero (-0.1 - 0.2 + 0.3 against
    0.1 + 0.2 - 0.3). Rounded to steps centred on the observed sum, a tie is 0 either way.
    """
    import numpy as np

    return np.round((sums - observed) / tolerance)


def _p_less(
    data: tuple[NDArray[np.float64], ...], statistic: Statistic,
    kind: Literal["samples", "independent"], arrangements: int, exact_up_to: int,
    resamples: int, seed: int,
) -> float:
    from scipy.stats import permutation_test

    # Asked for at least as many resamples as there are arrangements, scipy enumerates them.
    result = permutation_test(
        data, statistic, permutation_type=kind, vectorized=True, alternative="less",
        n_resamples=arrangements if arrangements <= exact_up_to else resamples, rng=seed,
    )
    return float(result.pvalue)


def sign_flip_p(
    diffs: Sequence[float], *, exact_up_to: int = EXACT_UP_TO, resamples: int = RESAMPLES,
    seed: int = SEED,
) -> float:
    """P(a random choice of signs for ``|diffs|`` sums to at most ``sum(diffs)``).

    Exact over the ``2**n`` sign choices of the ``n`` non-zero differences when there are at
    most ``exact_up_to`` of them, else ``resamples`` seeded draws.
    """
    # A zero flips to itself: it changes no sum, only how many choices there are to run.
    nonzero = [d for d in diffs if d != 0]
    if not nonzero:
        return 1.0
    import numpy as np

    observed, tolerance = fsum(nonzero), _tolerance(nonzero)

    def statistic(x: NDArray[np.float64], axis: int) -> NDArray[np.float64]:
        return _steps(np.sum(x, axis=axis), observed, tolerance)

    # scipy wants two observations; a lone difference gets a zero beside it.
    sample = np.array(nonzero if len(nonzero) > 1 else [*nonzero, 0.0])
    return _p_less((sample,), statistic, "samples", 2 ** len(sample), exact_up_to, resamples,
                   seed)


def permutation_p(
    baseline: Sequence[float], current: Sequence[float], *,
    exact_up_to: int = EXACT_UP_TO, resamples: int = RESAMPLES, seed: int = SEED,
) -> float:
    """P(a random ``len(current)`` of the pooled values have a mean at most the current's).

    Exact over the relabellings of the pooled values when there are at most ``exact_up_to``
    of them, else ``resamples`` seeded draws.
    """
    if not baseline or not current:
        return 1.0
    import numpy as np

    pool = [*baseline, *current]
    observed, tolerance = fsum(current), _tolerance(pool)
    if len(baseline) == 1 or len(current) == 1:
        # scipy wants two values a side. A relabelling is then the choice of the lone value;
        # a lone baseline value takes the current sum down as it goes up.
        lone, sign = (current[0], 1.0) if len(current) == 1 else (baseline[0], -1.0)
        return float(np.mean(sign * _steps(np.array(pool), lone, tolerance) <= 0))

    # The pooled total is fixed, so the current sum orders relabellings as the difference
    # of the means does.
    def statistic(
        cur: NDArray[np.float64], base: NDArray[np.float64], axis: int
    ) -> NDArray[np.float64]:
        return _steps(np.sum(cur, axis=axis), observed, tolerance)

    return _p_less((np.array(current), np.array(baseline)), statistic, "independent",
                   comb(len(pool), len(current)), exact_up_to, resamples, seed)
