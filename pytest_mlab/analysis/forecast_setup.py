"""The forecast of the time around the trials: a task's data preparation and its
baseline's measuring (once, before its first trial, and only where this machine lacks
them), and each trial's scoring; each from how long it took here before
(core/phase_times.py). What has no history is unknown, and said so, never counted as 0."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytest_mlab.core.phase_times import PHASES, Phase


@dataclass(frozen=True)
class PhaseForecast:
    phase: Phase
    needed: int
    """Times it is done: tasks to prepare or measure, trials to score; 0: nothing to do
    (every task prepared, every baseline kept already)."""
    seconds: float
    """Expected, over the tasks with history."""
    known: tuple[str, ...]
    """Tasks whose time rests on history."""
    unknown: Mapping[str, int]
    """Tasks without history -> times it is done for them."""


@dataclass(frozen=True)
class SetupForecast:
    phases: tuple[PhaseForecast, ...]

    @property
    def seconds(self) -> float:
        return sum(p.seconds for p in self.phases)

    @property
    def complete(self) -> bool:
        return not any(p.unknown for p in self.phases)


def setup_forecast(needs: Mapping[Phase, Mapping[str, int]],
                   past: Mapping[tuple[str, Phase], Sequence[float]]) -> SetupForecast:
    """``needs``: phase -> task -> times it is done in the run (a task prepared or measured
    already is absent); ``past``: (task, phase) -> its durations here."""
    phases = []
    for phase in PHASES:
        counts = {task: n for task, n in needs.get(phase, {}).items() if n > 0}
        known = {task: n for task, n in counts.items() if past.get((task, phase))}
        phases.append(PhaseForecast(
            phase=phase, needed=sum(counts.values()),
            seconds=sum(n * statistics.fmean(past[(task, phase)]) for task, n in known.items()),
            known=tuple(sorted(known)),
            unknown={task: n for task, n in sorted(counts.items()) if task not in known},
        ))
    return SetupForecast(tuple(phases))
