"""Whether a gate can trip at all: with few trials even the worst possible fall is not
significant (two paired trials that both flip give p = 0.25), and a gate that passes then
says nothing. Each test's smallest possible p-value for the sizes compared tells."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from math import comb
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_mlab.analysis.gate import Comparison


def best_p(comparison: Comparison) -> float:
    """The smallest p-value the comparison's test can give for its sizes: every trial
    worse now (paired), or every baseline trial above every current one (unpaired)."""
    base, cur = comparison.sizes
    if comparison.paired:
        return 0.5 ** base if base else 1.0
    return 1 / comb(base + cur, cur) if base and cur else 1.0


def _needed(comparison: Comparison, threshold: float) -> int:
    """Trials per side at which the worst fall would give p below ``threshold``."""
    return next((n for n in range(1, 200)
                 if best_p(replace(comparison, sizes=(n, n))) < threshold), 200)


def powerless(comparisons: Sequence[Comparison], alpha: float) -> list[str]:
    """Sentences for gated comparisons that cannot trip. When even the smallest p any of
    them could give, times Holm's factor (the number of gated tests), is >= alpha, no
    fall can trip the gate: one sentence per comparison says so and how many trials
    would do."""
    gated = [c for c in comparisons if c.p_gate is not None]
    if not gated or min(best_p(c) for c in gated) * len(gated) < alpha:
        return []
    threshold = alpha / len(gated)
    return [
        f"{c.group.label} {c.metric}: {c.sizes[0]} vs {c.sizes[1]} trials can never give "
        f"p < {alpha:g} after Holm's correction over {len(gated)} tests (at best "
        f"p = {best_p(c):.2g}); run at least {_needed(c, threshold)} trials per side"
        for c in gated
    ]
