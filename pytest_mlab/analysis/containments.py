"""Whether two runs ran under one containment, which the gate needs before it compares
them: a run whose scripts could reach the network, or ran as host root, measured
something else than a contained one.

A run's containment is the set its results recorded (results that never ran a script
record none); a run saved before containment was recorded has an unknown one, which
matches only another unknown one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from pytest_mlab.core.containment import UNKNOWN

if TYPE_CHECKING:
    from pytest_mlab.core.containment import Containment
    from pytest_mlab.core.results import TrialResult

ANY_CONTAINMENT = "--mlab-compare-any-containment"
"""The option that lets the gate compare runs of different containment."""
Key = tuple[str, str, str, str, str]


def run_containment(results: Iterable[TrialResult]) -> dict[Key, Containment]:
    """The distinct containments a run's results recorded, by what comparisons look at."""
    return {r.containment.key: r.containment for r in results if r.containment is not None}


def words(containments: dict[Key, Containment]) -> str:
    if not containments:
        return f"{UNKNOWN} (saved before pytest-mlab recorded it)"
    return " and ".join(sorted(c.label for c in containments.values()))


def differs(baseline: Iterable[TrialResult],
            current: Iterable[TrialResult]) -> tuple[str, str] | None:
    """The two runs' containments in words, where they differ; None where they match."""
    before, after = run_containment(baseline), run_containment(current)
    return None if before.keys() == after.keys() else (words(before), words(after))


def containment_apart(baseline: Iterable[TrialResult], current: Iterable[TrialResult],
                      baseline_name: str) -> str | None:
    """Why the gate does not compare the two runs, in one sentence; None where their
    containment is the same."""
    if (apart := differs(baseline, current)) is None:
        return None
    return (f"gate refuses to compare: {baseline_name} ran under {apart[0]}, this run "
            f"under {apart[1]}; compare runs of one containment, or add {ANY_CONTAINMENT}")
