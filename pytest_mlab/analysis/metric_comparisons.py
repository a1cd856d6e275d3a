"""One metric of one task x agent x llm group in a baseline run and now, with the exact
one-sided test of its fall: success (McNemar where trials pair, else Fisher), mean
improvement and mean normalised score (sign-flip where trials pair, else permutation), and
pass@k (shown, not tested). ``gate`` checks its limits on these."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import fsum
from typing import TYPE_CHECKING, Literal

from pytest_mlab.analysis.attempts import pass_at_k
from pytest_mlab.analysis.groups import Group
from pytest_mlab.analysis.significance import fisher_p, mcnemar_p, permutation_p, sign_flip_p
from pytest_mlab.analysis.summary import trial_normalised

if TYPE_CHECKING:
    from pytest_mlab.core.results import TrialResult

Metric = Literal["success", "improvement", "pass@k", "normalised"]


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
    judged_apart: str | None = None
    """Where the runs' trials were judged by different rules, both rules in words: success
    and pass@k are then not comparable, and carry no p-value."""

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
        if self.judged_apart is not None:
            return "other rules"
        if self.metric == "pass@k":
            return "-"
        if self.metric == "success":
            return "McNemar" if self.paired else "Fisher"
        return "sign-flip" if self.paired else "permutation"


def _rate(successes: Sequence[bool]) -> tuple[float | None, str]:
    k, n = sum(successes), len(successes)
    return (k / n if n else None), f"{k}/{n}"


def _mean(values: Sequence[float], form: str = "+.1%") -> tuple[float | None, str]:
    if not values:
        return None, "-"
    mean = fsum(values) / len(values)
    return mean, f"{mean:{form}}"


def pass_k_comparison(
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


def success_comparison(
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


def improvement_comparison(
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
