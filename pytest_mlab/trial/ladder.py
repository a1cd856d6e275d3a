"""The ladder's rules (core/ladder.py names the rungs): a seed pick, a one-number and a
one-line change each fall short of the bar on every seed, and by the noise margin; the
reference solution does better than every rung, so its normalised score of 1 is the best
measured."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pytest_mlab.core.ladder import MUST_FAIL, RUNG_WORDS, Rung, relative_gain, rung_of
from pytest_mlab.core.results import TrialResult

MARGIN_SDS = 3.0
"""A rung that must fail the bar falls short of it by this many standard deviations of its
gain: its own over the seeds, or the starter's where that is larger. The starter's noise
moves a gain in proportion to the rung's score over the baseline's (the gain is that ratio
less 1, or 1 less it), so a rung near a bounded gain's limit, a time near zero, is not held
to the starter's full spread."""

Runner = Callable[[Path], list[TrialResult]]
"""Runs a heuristic folder over the starter's seeds."""


def climb(folders: list[Path], run: Runner, baseline: float, direction: str,
          problems: list[str]) -> dict[str, Rung]:
    """Each rung's runs and figures, by rung; a run without a valid score is a problem."""
    ladder = {}
    for folder in folders:
        rung = rung_of(folder.name)
        if rung is None:
            continue
        runs = run(folder)
        for r in runs:
            if r.score is None:
                problems.append(f"the {rung} rung has no valid score with seed {r.seed}: "
                                f"{r.message}")
        ladder[rung] = Rung(folder.name, [r.score for r in runs],
                            [r.seconds for r in runs]).measure(baseline, direction)
    return ladder


def check_short_of_bar(ladder: dict[str, Rung], threshold: float, baseline: float,
                       starter_sd: float, direction: str) -> list[str]:
    """A sentence for each rung that must fail the bar and comes within its margin of it."""
    problems = []
    for name in MUST_FAIL:
        rung = ladder.get(name)
        if rung is None or rung.mean is None or rung.gain is None or rung.gain_sd is None:
            continue
        starter_noise = abs(rung.mean / baseline) * starter_sd / abs(baseline)
        margin = MARGIN_SDS * max(rung.gain_sd, starter_noise)
        best = max(relative_gain(s, baseline, direction) for s in rung.scores if s is not None)
        if rung.gain + margin >= threshold or best >= threshold:
            problems.append(
                f"the {name} rung ({RUNG_WORDS[name]}) gains {rung.gain:.1%} ± "
                f"{rung.gain_sd:.1%} over the starter (at best {best:.1%}), within "
                f"{MARGIN_SDS:g} sd of the bar ({threshold:.1%}; it must stay below "
                f"{threshold - margin:.1%}): raise the bar or strengthen the starter, and say "
                "why in task.toml")
    return problems


def check_reference_on_top(ladder: dict[str, Rung], reference: list[float | None],
                           metric: str, baseline: float, direction: str) -> list[str]:
    """A sentence for each rung whose mean is no worse than the reference's."""
    valid = [s for s in reference if s is not None]
    if not valid:
        return []
    top = sum(valid) / len(valid)
    top_gain = relative_gain(top, baseline, direction)
    return [
        f"the {name} rung ({metric}={rung.mean:.4g}, {rung.gain:+.1%}) does as well as the "
        f"reference solution ({metric}={top:.4g}, {top_gain:+.1%}): the reference must be "
        "the best measured, so strengthen it"
        for name, rung in ladder.items()
        if rung.mean is not None and rung.gain is not None and rung.gain >= top_gain
    ]
