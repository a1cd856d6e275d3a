"""The verdict on a reproduction: did the entry script, run again, remake the submitted score
within the task's noise? A trial whose submission it did not remake is ``unreproduced``:
its scores stay, its sentence names both, and --mlab-strict fails it."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_mlab.core.baseline import Baseline
from pytest_mlab.core.results import TrialResult
from pytest_mlab.trial.scoring import Scored

REPRODUCED_SDS = 3.0
"""A reproduced score within this many of the starter's standard deviations of the submitted
one is the same result: one script run twice lands, like two seeds of the starter, on either
side of its mean by chance (threads summing in another order, a timing task's load). It is
the margin validation calls two single runs a tie within (its TIE_SDS)."""
RELATIVE_FLOOR = 1e-6
"""The margin, as a fraction of the baseline's mean, where its sd is smaller: a deterministic
starter measures an sd of 0, and the same script run twice may still round differently."""


@dataclass(frozen=True)
class Margin:
    """How far a reproduced score may stand from the submitted one, and that rule in words."""

    width: float
    words: str


def noise_margin(baseline: Baseline) -> Margin:
    """The task's noise: ``REPRODUCED_SDS`` baseline standard deviations, and never less
    than ``RELATIVE_FLOOR``."""
    spread = REPRODUCED_SDS * baseline.sd
    floor = RELATIVE_FLOOR * abs(baseline.mean)
    if spread >= floor:
        return Margin(spread, f"the task's noise ({REPRODUCED_SDS:g} baseline sd = {spread:.3g})")
    return Margin(floor, f"the task's noise ({RELATIVE_FLOOR:g} of the baseline mean = "
                         f"{floor:.3g}, its sd being {baseline.sd:.3g})")


def judge_reproduction(
    result: TrialResult, again: Scored, baseline: Baseline, entry: str, strict: bool
) -> None:
    """Record ``again``, the reproduction's score, on ``result`` (a judged trial with a
    score); where it misses the submitted score by more than the noise, or is invalid, the
    trial is unreproduced, and fails if ``strict``."""
    assert result.score is not None, "only a scored trial is reproduced"
    result.reproduced_score = again.score
    margin = noise_margin(baseline)
    if again.score is not None and abs(again.score - result.score) <= margin.width:
        return
    submitted = f"{result.metric}={result.score:.6g}"
    if again.score is None:
        what = f"wrote no valid submission ({again.invalid}) where the submitted one scored " \
               f"{submitted}"
    else:
        what = (f"scored {result.metric}={again.score:.6g}, outside {margin.words} of the "
                f"submitted {submitted}")
    result.unreproduced = True
    verdict = f"unreproduced: {entry}, run again on a clean copy of the final workspace, {what}"
    if strict:
        verdict += ", which --mlab-strict fails"
        if result.outcome == "passed":
            result.success, result.outcome = False, "failed"
    result.message = f"{result.message}; {verdict}"
