"""Compare a run with a baseline run, per task x agent x llm, and gate on significant falls.

Two metrics are compared: the success rate over the trials that ran (passed or failed;
errors and skips say nothing about the agent) and the mean improvement over the baseline
score among valid submissions. A limit such as ``success:-10%`` trips only when both hold:

- the fall is larger than the limit (current - baseline < -10 percentage points), and
- the fall is significant: the one-sided exact test of ``significance`` gives p < alpha
  after Holm's correction over every comparison a limit applies to.

The first keeps small, real but tolerated losses from failing builds; the second keeps
noise from doing so, whatever the limit. Holm's correction holds the chance of a false
alarm anywhere in the session below alpha, not per task: thirteen tasks each tested at
5% would fail one build in two. With few trials nothing can be significant (five trials
that all flip from success to failure give p = 1/32), so a gate needs enough trials to
have teeth.

Trials are paired when a group ran the same trial numbers in both runs (the normal case:
the same ``--mlab-trials``); paired tests then look only at what changed trial by trial.
That is the more powerful test when trials share seeds or replayed LLM calls, and still a
valid one, if a weaker, when they do not. Otherwise the tests compare the two samples as
wholes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from math import fsum
from typing import TYPE_CHECKING, Literal

from pytest_mlab.analysis.groups import RAN, Group, by_group
from pytest_mlab.analysis.power import powerless
from pytest_mlab.analysis.significance import fisher_p, mcnemar_p, permutation_p, sign_flip_p

if TYPE_CHECKING:
    from pytest_mlab.core.results import RunResults, TrialResult

Metric = Literal["success", "improvement"]
DEFAULT_ALPHA = 0.05


@dataclass(frozen=True)
class Limit:
    """The largest fall of a metric that a group may show, as a fraction (0.10)."""

    metric: Metric
    fall: float

    @property
    def fall_text(self) -> str:
        return f"-{self.fall * 100:g}%"

    def __str__(self) -> str:
        return f"{self.metric}:{self.fall_text}"

    def check(self, comparison: Comparison, alpha: float) -> str | None:
        """The gate's one line if ``comparison`` breaks this limit significantly, else None."""
        delta, p = comparison.delta, comparison.p_gate
        if comparison.metric != self.metric or delta is None or p is None:
            return None
        # A fall of exactly the limit (0.8 -> 0.7 at -10%) must not trip on rounding.
        if not (delta < -self.fall - 1e-9 and p < alpha):
            return None
        return (
            f"gate tripped: {comparison.group.label} {self.metric} {comparison.baseline_text} "
            f"-> {comparison.current_text} ({comparison.delta_text}, p={comparison.p_gate_text}; "
            f"limit {self.fall_text})"
        )


@dataclass(frozen=True)
class Comparison:
    """One metric of one group in the baseline run and now."""

    group: Group
    metric: Metric
    baseline: float | None
    current: float | None
    baseline_text: str
    current_text: str
    p_value: float | None
    """One-sided: small when the current run is worse. None when there is nothing to test."""
    paired: bool
    p_gate: float | None = None
    """``p_value`` after Holm's correction over all gated comparisons: what meets alpha."""
    failure: str | None = None
    """The gate's line when a limit tripped on this comparison."""
    sizes: tuple[int, int] = (0, 0)
    """Trials (valid submissions, for improvement) compared: baseline, now."""

    @property
    def delta(self) -> float | None:
        if self.baseline is None or self.current is None:
            return None
        return self.current - self.baseline

    @property
    def delta_text(self) -> str:
        if self.delta is None:
            return "-"
        return f"{self.delta:+.0%}" if self.metric == "success" else f"{self.delta:+.1%}"

    @property
    def p_text(self) -> str:
        return "-" if self.p_value is None else f"{self.p_value:.2g}"

    @property
    def p_gate_text(self) -> str:
        return "-" if self.p_gate is None else f"{self.p_gate:.2g}"

    @property
    def test(self) -> str:
        if self.metric == "success":
            return "McNemar" if self.paired else "Fisher"
        return "sign-flip" if self.paired else "permutation"


@dataclass(frozen=True)
class GateReport:
    """Every comparison between two runs, and the verdict of the limits on them."""

    baseline_name: str
    comparisons: list[Comparison]
    limits: tuple[Limit, ...] = ()
    alpha: float = DEFAULT_ALPHA
    only_baseline: list[Group] = field(default_factory=list)
    """Groups the baseline ran that this run did not: not gated."""
    only_current: list[Group] = field(default_factory=list)
    powerless: list[str] = field(default_factory=list)
    """Gated comparisons with too few trials for any fall to be significant, in words."""

    @property
    def failures(self) -> list[str]:
        return [c.failure for c in self.comparisons if c.failure]

    @property
    def tripped(self) -> bool:
        return bool(self.failures)

    @property
    def summary(self) -> str:
        """The gate's verdict in one line."""
        limits = ", ".join(str(limit) for limit in self.limits)
        if not self.comparisons:
            return "gate not applied: no task x agent x llm ran in both runs"
        if self.tripped:
            return f"gate tripped on {len(self.failures)} comparison(s) ({limits})"
        if self.powerless:
            return (f"gate passed only because it could not trip: too few trials for any "
                    f"fall to be significant at alpha {self.alpha:g} ({limits})")
        return f"gate passed: no significant fall beyond {limits} (alpha {self.alpha:g})"


def _rate(successes: Sequence[bool]) -> tuple[float | None, str]:
    k, n = sum(successes), len(successes)
    return (k / n if n else None), f"{k}/{n}"


def _mean(values: Sequence[float]) -> tuple[float | None, str]:
    if not values:
        return None, "-"
    mean = fsum(values) / len(values)
    return mean, f"{mean:+.1%}"


def _success(
    group: Group, base: dict[int, TrialResult], cur: dict[int, TrialResult]
) -> Comparison:
    paired = bool(base) and base.keys() == cur.keys()
    before = [base[t].success for t in sorted(base)]
    after = [cur[t].success for t in sorted(cur)]
    if paired:
        worse = sum(b and not a for b, a in zip(before, after, strict=True))
        better = sum(a and not b for b, a in zip(before, after, strict=True))
        p: float | None = mcnemar_p(worse, better)
    else:
        p = fisher_p(sum(before), len(before), sum(after), len(after)) if before and after else None
    (b_value, b_text), (c_value, c_text) = _rate(before), _rate(after)
    return Comparison(group, "success", b_value, c_value, b_text, c_text, p, paired,
                      sizes=(len(before), len(after)))


def _improvement(
    group: Group, base: dict[int, TrialResult], cur: dict[int, TrialResult]
) -> Comparison:
    paired = bool(base) and base.keys() == cur.keys()
    if paired:
        pairs = [
            (b, a) for t in sorted(base)
            if (b := base[t].improvement) is not None and (a := cur[t].improvement) is not None
        ]
        before, after = [b for b, _ in pairs], [a for _, a in pairs]
        diffs = [a - b for b, a in zip(before, after, strict=True)]
        p = sign_flip_p(diffs) if diffs else None
    else:
        before = [r.improvement for r in base.values() if r.improvement is not None]
        after = [r.improvement for r in cur.values() if r.improvement is not None]
        p = permutation_p(before, after) if before and after else None
    (b_value, b_text), (c_value, c_text) = _mean(before), _mean(after)
    return Comparison(group, "improvement", b_value, c_value, b_text, c_text, p, paired,
                      sizes=(len(before), len(after)))


def _holm(
    comparisons: list[Comparison], gated: Callable[[Comparison], bool]
) -> list[Comparison]:
    """Holm's step-down adjusted p-values for the gated comparisons."""
    order = sorted((c.p_value or 0.0, i) for i, c in enumerate(comparisons) if gated(c))
    adjusted = list(comparisons)
    running = 0.0
    for rank, (p, i) in enumerate(order):
        running = max(running, min(1.0, (len(order) - rank) * p))
        adjusted[i] = replace(comparisons[i], p_gate=running)
    return adjusted


def _ran(results: Iterable[TrialResult]) -> dict[int, TrialResult]:
    return {r.trial: r for r in results if r.outcome in RAN}


def compare(
    baseline: RunResults, current: RunResults, limits: Sequence[Limit] = (), *,
    alpha: float = DEFAULT_ALPHA, baseline_name: str = "",
) -> GateReport:
    """Compare every group that both runs hold, and check ``limits`` on each comparison."""
    before, after = by_group(baseline.results), by_group(current.results)
    comparisons = []
    for group in sorted(before.keys() & after.keys()):
        base, cur = _ran(before[group]), _ran(after[group])
        comparisons += [_success(group, base, cur), _improvement(group, base, cur)]
    gated = {limit.metric for limit in limits}
    comparisons = _holm(comparisons, lambda c: c.metric in gated and c.p_value is not None)
    comparisons = [
        replace(c, failure=next((line for limit in limits if (line := limit.check(c, alpha))),
                                None))
        for c in comparisons
    ]
    return GateReport(
        baseline_name=baseline_name or baseline.run.run_id,
        comparisons=comparisons, limits=tuple(limits), alpha=alpha,
        only_baseline=sorted(before.keys() - after.keys()),
        only_current=sorted(after.keys() - before.keys()),
        powerless=powerless(comparisons, alpha),
    )
