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

Runs that ran under different containment (``containments``: sandbox kind, isolation, the
script's host uid, seccomp, network) are not compared at all, unless the caller says they
may be: the report then holds only the refusal, a failure where a limit applies.

Where the two runs of a group were judged by different rules (``judging_rules``), success
and pass@k are shown without a test, and a limit on them trips with the reason, since no
fall can be measured.

Trials are paired when a group ran the same trial numbers in both runs (the normal case:
the same ``--mlab-trials``); paired tests then look only at what changed trial by trial.
That is the more powerful test when trials share seeds or replayed LLM calls, and still a
valid one, if a weaker, when they do not. Otherwise the tests compare the two samples as
wholes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from pytest_mlab.analysis.containments import containment_apart
from pytest_mlab.analysis.gate_suite import AgentComparison, NormalisedDrop, agent_comparisons
from pytest_mlab.analysis.groups import RAN, Group, by_group
from pytest_mlab.analysis.judging_rules import judged_apart
from pytest_mlab.analysis.metric_comparisons import (
    Comparison,
    Metric,
    improvement_comparison,
    pass_k_comparison,
    success_comparison,
)
from pytest_mlab.analysis.power import powerless

if TYPE_CHECKING:
    from pytest_mlab.core.results import RunResults, TrialResult

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
        if comparison.metric != self.metric:
            return None
        if comparison.judged_apart is not None:
            return (f"gate cannot compare: {comparison.group.label} {self.metric} was judged by "
                    f"other rules ({comparison.judged_apart}); save a baseline run judged as "
                    "this one is")
        if delta is None or p is None:
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
    refused: str | None = None
    """Why the runs were not compared (their containment differs), in one sentence."""

    @property
    def gated(self) -> bool:
        return bool(self.limits) or self.drop is not None

    @property
    def failures(self) -> list[str]:
        if self.refused is not None:
            return [self.refused]
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
        if self.refused is not None:
            return self.refused
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


def unflagged(run: RunResults) -> RunResults:
    """``run`` without the trials the rule checks flagged."""
    return run.model_copy(update={"results": [r for r in run.results if not r.flags]})


def _ran(results: Iterable[TrialResult]) -> dict[int, TrialResult]:
    return {r.trial: r for r in results if r.outcome in RAN}


def compare(
    baseline: RunResults, current: RunResults, limits: Sequence[Limit] = (), *,
    alpha: float = DEFAULT_ALPHA, baseline_name: str = "", pass_k: int | None = None,
    drop: NormalisedDrop | None = None, any_containment: bool = False,
    leave_flagged: bool = False,
) -> GateReport:
    """Compare every group that both runs hold, and check ``limits`` on each comparison
    and ``drop`` on each agent's mean normalised score over the suite; runs of different
    containment only with ``any_containment``; without the trials the rule checks flagged,
    with ``leave_flagged``."""
    name = baseline_name or baseline.run.run_id
    if leave_flagged:
        baseline, current = unflagged(baseline), unflagged(current)
    refused = None if any_containment else containment_apart(baseline.results,
                                                             current.results, name)
    if refused is not None:
        return GateReport(baseline_name=name, comparisons=[], limits=tuple(limits),
                          alpha=alpha, drop=drop, refused=refused)
    before, after = by_group(baseline.results), by_group(current.results)
    comparisons = []
    for group in sorted(before.keys() & after.keys()):
        base, cur = _ran(before[group]), _ran(after[group])
        apart = judged_apart(base.values(), cur.values())
        by_rule = [success_comparison(group, base, cur),
                   pass_k_comparison(group, base, cur, pass_k)]
        if apart is not None:
            by_rule = [replace(c, p_value=None, judged_apart=apart) for c in by_rule]
        comparisons += [by_rule[0], improvement_comparison(group, base, cur), by_rule[1],
                        improvement_comparison(group, base, cur, "normalised")]
    gated = {limit.metric for limit in limits}
    comparisons = _holm(comparisons, lambda c: c.metric in gated and c.p_value is not None)
    comparisons = [
        replace(c, failure=next((line for limit in limits if (line := limit.check(c, alpha))),
                                None))
        for c in comparisons
    ]
    return GateReport(
        baseline_name=name,
        comparisons=comparisons, limits=tuple(limits), alpha=alpha,
        only_baseline=sorted(before.keys() - after.keys()),
        only_current=sorted(after.keys() - before.keys()),
        powerless=powerless(comparisons, alpha),
        agents=agent_comparisons(before, after, drop), drop=drop,
    )
