"""A task's ladder: the cheap changes an agent tries first, one heuristic folder per rung,
each named for its rung (``heuristics/one-line/``), measured over the starter's seeds and
shown as its gain over the starter beside the bar. The reference solution is the top rung.

A folder of heuristics/ named otherwise is a *cheap* heuristic (a constant, a nearest
neighbour, ...), as before: run once, and the starter must beat it.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

SEED_PICK = "seed-pick"
ONE_NUMBER = "one-number"
ONE_LINE = "one-line"
RECIPE = "recipe"
REFERENCE = "reference"
RUNGS = (SEED_PICK, ONE_NUMBER, ONE_LINE, RECIPE)
"""The rungs a heuristic folder may be named for, lowest first."""
MUST_FAIL = (SEED_PICK, ONE_NUMBER, ONE_LINE)
"""The rungs that must fall short of the bar: a change this small is not ML work. A
generic recipe may clear it, but must not beat the reference."""
RUNG_WORDS = {
    SEED_PICK: "the starter with the seed that validates best",
    ONE_NUMBER: "the starter with one number changed",
    ONE_LINE: "the starter with one line changed",
    RECIPE: "a generic recipe, written without insight into the task",
    REFERENCE: "the reference solution",
}


def relative_gain(score: float, baseline: float, direction: str) -> float:
    """Relative improvement of ``score`` over ``baseline``; positive is better either way."""
    gain = score - baseline if direction == "higher" else baseline - score
    return gain / abs(baseline) if baseline else float("nan")


@dataclass
class Rung:
    """One rung's runs over the starter's seeds (None where a run gave no valid score),
    and its figures against the starter's mean."""

    heuristic: str
    scores: list[float | None] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    mean: float | None = None
    sd: float | None = None
    gain: float | None = None
    """The mean's relative improvement over the starter's mean."""
    gain_sd: float | None = None
    """The scores' standard deviation relative to the starter's mean."""

    def measure(self, baseline: float, direction: str) -> Rung:
        valid = [s for s in self.scores if s is not None]
        if valid:
            self.mean = statistics.fmean(valid)
            self.sd = statistics.stdev(valid) if len(valid) > 1 else 0.0
            self.gain = relative_gain(self.mean, baseline, direction)
            self.gain_sd = self.sd / abs(baseline) if baseline else float("nan")
        return self

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> Rung:
        return cls(**{k: row[k] for k in cls.__dataclass_fields__ if k in row})


def rung_of(folder: str) -> str | None:
    """The rung a heuristic folder stands on, by its name; None for a cheap heuristic."""
    return folder if folder in RUNGS else None


def missing_rungs(folders: list[str]) -> list[str]:
    """The rungs a task with a ladder lacks; none where it has no ladder at all."""
    have = {f for f in folders if rung_of(f)}
    return [r for r in RUNGS if r not in have] if have else []
