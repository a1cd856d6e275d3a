"""The reference solution's score, the 1 of a task's normalised score (its baseline is the
0): validation.json's, measured elsewhere, or measured where the baseline is
(trial/reference_measure.py, ``--mlab-reference=here``). A trial's record says which it
used, and where the two ends of its scale were not measured in one place."""

from __future__ import annotations

from dataclasses import dataclass
from statistics import fmean
from typing import Literal

from pytest_mlab.analysis.summary import normalised_of
from pytest_mlab.core.baseline import Baseline
from pytest_mlab.core.reference import recorded_reference
from pytest_mlab.core.results import TrialResult
from pytest_mlab.core.task import TaskSpec


@dataclass(frozen=True)
class Reference:
    mean: float
    n: int
    source: Literal["here", "validation.json"]
    machine: str
    """Where its runs were measured ('' where validation.json does not say)."""


def recorded(task: TaskSpec) -> Reference | None:
    """validation.json's reference of ``task``; None where it has none."""
    row = recorded_reference(task)
    if row is None:
        return None
    scores, machine = row
    return Reference(fmean(scores), len(scores), "validation.json", machine)


def apart(reference: Reference, baseline: Baseline) -> str | None:
    """A sentence where the reference and the baseline were not measured on one machine
    with one data key; None where they were."""
    if baseline.source == "recorded":
        where = f"recorded on {baseline.machine or 'a machine not named'}"
    else:
        where = "measured here"
    if reference.source == "here":
        if baseline.source != "recorded":
            return None  # Both measured here, with the trial's prepared data.
        return f"the reference was measured here ({reference.machine}), the baseline {where}"
    if baseline.source == "recorded" and reference.machine == baseline.machine != "":
        return None  # Both recorded by one machine's --mlab-validate.
    return (f"the reference is validation.json's, measured on "
            f"{reference.machine or 'a machine not named'} with data of its own, the "
            f"baseline {where}; --mlab-reference=here measures the reference where the "
            "baseline is")


def place(result: TrialResult, reference: Reference | None, baseline: Baseline | None) -> None:
    """Put ``reference`` on a judged trial's record: its mean, where it came from, whether
    it was measured where the baseline was, and the normalised score it gives."""
    result.reference_mean = reference.mean if reference else None
    result.reference_source = reference.source if reference else None
    result.reference_note = apart(reference, baseline) if reference and baseline else None
    if result.improvement is not None:
        result.normalised_score = normalised_of(result)
