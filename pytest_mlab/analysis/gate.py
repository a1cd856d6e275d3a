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

Beside them each group shows pass@k (k: ``--mlab-pass-k``, else the fewer trials of the
two runs) and the mean normalised score, with no limit of their own; per agent x llm the
mean normalised score over the suite has a plain tolerance instead (``gate_suite``).

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

from pytest_mlab.analysis.attempts import pass_at_k
from pytest_mlab.analysis.gate_suite import AgentComparison, NormalisedDrop, agent_comparisons
from pytest_mlab.analysis.groups import RAN, Group, by_group
from pytest_mlab.analysis.power import powerless
from pytest_mlab.analysis.significance import fisher_p, mcnemar_p, permutation_p, sign_flip_p
from pytest_mlab.analysis.summary import trial_normalised

if TYPE_CHECKING:
    from pytest_mlab.core.results import RunResults, TrialResult

Metric = Literal["success", "improvement", "pass@k", "normalised"]
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
    k: int | None = None
    """The k of pass@k."""

    @property
    def metric_text(self) -> str:
        return f"pass@{self.k}" if self.metric == "pass@k" else self.metric

    @property
    def delta(self) -> float | None:
        if self.baseline is None or self.current is None:
            return None
        return self.current - self.baseline

    @property
    def delta_text(self) -> str:
        form = {"success": "+.0%", "pass@k": "+.0%", "normalised": "+.2f"}.get(self.metric, "+.1%")
        return "-" if self.delta is None else f"{self.delta:{form}}"

    @property
    def p_text(self) -> str:
        return "-" if self.p_value is None else f"{self.p_value:.2g}"

    @property
    def p_gate_text(self) -> str:
        return "-" if self.p_gate is None else f"{self.p_gate:.2g}"

    @property
    def test(self) -> str:
        if self.metric == "pass@k":
            return "-"
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
    agents: list[AgentComparison] = field(default_factory=list)
    """Per agent x llm, the mean normalised score over the suite."""
    drop: NormalisedDrop | None = None

    @property
    def gated(self) -> bool:
        return bool(self.limits) or self.drop is not None

    @property
    def failures(self) -> list[str]:
        unchecked = self.drop.unchecked(self.agents) if self.drop is not None else None
        return [*(c.failure for c in self.comparisons if c.failure),
                *(a.failure for a in self.agents if a.failure),
                *([unchecked] if unchecked and self.comparisons else [])]

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
            gated = ", ".join(str(g) for g in (*self.limits, *filter(None, [self.drop])))
            return f"gate tripped on {len(self.failures)} comparison(s) ({gated})"
        tested = ("only because it could not trip: too few trials for any fall to be "
                  f"significant at alpha {self.alpha:g} ({limits})" if self.powerless else
                  f"no significant fall beyond {limits} (alpha {self.alpha:g})")
        dropped = (f"no mean normalised score dropped by more than {self.drop.tolerance:g}"
                   if self.drop is not None else "")
        text = "; ".join(part for part in (tested if limits else "", dropped) if part)
        return f"gate passed {text}" if self.powerless else f"gate passed: {text}"


def _rate(successes: Sequence[bool]) -> tuple[float | None, str]:
    k, n = sum(successes), len(successes)
    return (k / n if n else None), f"{k}/{n}"


def _mean(values: Sequence[float], form: str = "+.1%") -> tuple[float | None, str]:
    if not values:
        return None, "-"
    mean = fsum(values) / len(values)
    return mean, f"{mean:{form}}"


def _pass_k(
    group: Group, base: dict[int, TrialResult], cur: dict[int, TrialResult], k: int | None
) -> Comparison:
    """pass@k of both runs for one k: ``k``, else the fewer trials of the two."""
    k = k or min(len(base), len(cur))
    values = [
        pass_at_k(sum(r.success for r in side.values()), len(side), k) if k >= 1 else None
        for side in (base, cur)
    ]
    texts = ["-" if v is None else f"{v:.0%}" for v in values]
    return Comparison(group, "pass@k", values[0], values[1], texts[0], texts[1], None, False,
                      sizes=(len(base), len(cur)), k=k)


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
    group: Group, base: dict[int, TrialResult], cur: dict[int, TrialResult],
    metric: Metric = "improvement",
) -> Comparison:
    """The mean improvement over valid submissions, or (``normalised``) the mean normalised
    score over the trials that ran, with a test of the fall."""
    def value(r: TrialResult) -> float | None:
        return r.improvement if metric == "improvement" else trial_normalised(r)

    paired = bool(base) and base.keys() == cur.keys()
    if paired:
        pairs = [
            (b, a) for t in sorted(base)
            if (b := value(base[t])) is not None and (a := value(cur[t])) is not None
        ]
        before, after = [b for b, _ in pairs], [a for _, a in pairs]
        diffs = [a - b for b, a in zip(before, after, strict=True)]
        p = sign_flip_p(diffs) if diffs else None
    else:
        before = [v for r in base.values() if (v := value(r)) is not None]
        after = [v for r in cur.values() if (v := value(r)) is not None]
        p = permutation_p(before, after) if before and after else None
    form = "+.1%" if metric == "improvement" else ".2f"
    (b_value, b_text), (c_value, c_text) = _mean(before, form), _mean(after, form)
    return Comparison(group, metric, b_value, c_value, b_text, c_text, p, paired,
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
    alpha: float = DEFAULT_ALPHA, baseline_name: str = "", pass_k: int | None = None,
    drop: NormalisedDrop | None = None,
) -> GateReport:
    """Compare every group that both runs hold, and check ``limits`` on each comparison
    and ``drop`` on each agent's mean normalised score over the suite."""
    before, after = by_group(baseline.results), by_group(current.results)
    comparisons = []
    for group in sorted(before.keys() & after.keys()):
        base, cur = _ran(before[group]), _ran(after[group])
        comparisons += [_success(group, base, cur), _improvement(group, base, cur),
                        _pass_k(group, base, cur, pass_k),
                        _improvement(group, base, cur, "normalised")]
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
        agents=agent_comparisons(before, after, drop), drop=drop,
    )
