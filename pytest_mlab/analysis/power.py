"""Whether a gate can trip at all: with few trials even the worst possible fall is not
significant (two paired trials that both flip give p = 0.25), and a gate that passes then
says nothing. Each test's smallest possible p-value for the sizes compared tells."""

from __future__ import annotations

from collections.abc import Sequence
from math import comb
from typing import Protocol

from pytest_mlab.analysis.groups import Group


class Comparison(Protocol):
    """What this module reads of a gate's comparison (``gate.Comparison``)."""

    @property
    def group(self) -> Group: ...
    @property
    def metric(self) -> str: ...
    @property
    def paired(self) -> bool: ...
    @property
    def sizes(self) -> tuple[int, int]: ...
    @property
    def p_gate(self) -> float | None: ...


def best_p(paired: bool, sizes: tuple[int, int]) -> float:
    """The smallest p-value a test can give for these sizes: every trial worse now
    (paired), or every baseline trial above every current one (unpaired)."""
    base, cur = sizes
    if paired:
        return 0.5 ** base if base else 1.0
    return 1 / comb(base + cur, cur) if base and cur else 1.0


def trials_needed(paired: bool, threshold: float) -> int:
    """Trials per side at which the worst fall would give p below ``threshold``."""
    return next((n for n in range(1, 200) if best_p(paired, (n, n)) < threshold), 200)


def powerless(comparisons: Sequence[Comparison], alpha: float) -> list[str]:
    """Sentences for gated comparisons that cannot trip. When even the smallest p any of
    them could give, times Holm's factor (the number of gated tests), is >= alpha, no
    fall can trip the gate: one sentence per comparison says so and how many trials
    would do."""
    gated = [c for c in comparisons if c.p_gate is not None]
    if not gated or min(best_p(c.paired, c.sizes) for c in gated) * len(gated) < alpha:
        return []
    threshold = alpha / len(gated)
    return [
        f"{c.group.label} {c.metric}: {c.sizes[0]} vs {c.sizes[1]} trials can never give "
        f"p < {alpha:g} after Holm's correction over {len(gated)} tests (at best "
        f"p = {best_p(c.paired, c.sizes):.2g}); run at least {trials_needed(c.paired, threshold)} "
        "trials per side"
        for c in gated
    ]
