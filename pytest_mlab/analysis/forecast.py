"""The forecast of a run before it starts: the time and cost of the selected trials, from
the trials of earlier runs of the same task x agent x llm.

Each cell (task x agent x llm) gets the mean, the least and the most of its past trials,
per trial; a total is the sum over the selected trials, so its range runs from every trial
as fast (or cheap) as the fastest past one to every trial as slow as the slowest. A cell
that never ran has no figure: its time is unknown, with at most a floor said beside it
(the task's starter run, from the suite's validation.json), and an LLM cell's cost none
at all, so such totals have no upper end. An agent without an LLM costs nothing. Only
trials that ran to their end count: an error says nothing of how long or costly a trial is.

Wall time: the run takes the longest waiting trial next on whichever worker frees first
(as ``longest_first`` orders them under -n), so the wall time is that schedule's length.
"""

from __future__ import annotations

import heapq
import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_mlab.core.results import TrialResult

FINISHED = ("passed", "failed")
"""Trials that ran to their end, the only ones whose time and cost say something."""


@dataclass(frozen=True, order=True)
class Cell:
    task: str
    agent: str
    llm: str | None

    def __str__(self) -> str:
        return " x ".join([self.task, self.agent, *([self.llm] if self.llm else [])])


@dataclass(frozen=True)
class Spread:
    """Past trials' values: how many, the least, the mean, the most."""

    n: int
    low: float
    mean: float
    high: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread | None:
        if not values:
            return None
        return cls(len(values), min(values), statistics.fmean(values), max(values))


@dataclass(frozen=True)
class CellForecast:
    cell: Cell
    trials: int
    """Selected trials of the cell."""
    seconds: Spread | None
    """Per trial, from past runs; None: no past trial."""
    floor: float | None
    """Seconds a trial takes at least (the starter's run), where ``seconds`` is None."""
    cost: Spread | None
    """Dollars per trial; None for an LLM cell without past trials."""
    tokens: Spread | None

    @property
    def free(self) -> bool:
        """No LLM, no spend: its cost is known without history."""
        return self.cell.llm is None


@dataclass(frozen=True)
class Figure:
    """A total over the selected trials."""

    expected: float
    """Over the trials with history; those without are said apart, as unknown."""
    low: float
    high: float | None
    """None: some trial has no history, so there is no upper end."""
    past: int
    """Past trials the figure rests on."""


@dataclass(frozen=True)
class Forecast:
    cells: tuple[CellForecast, ...]
    seconds: Figure
    """Trial time summed over the selected trials."""
    wall: Figure
    workers: int | None
    """Trials that run at once; None: unknown (a Ray cluster), so ``wall`` runs from every
    trial at once to one at a time."""
    cost: Figure
    tokens: float
    """Expected tokens (prompt and completion) of the trials with a cost history."""

    @property
    def trials(self) -> int:
        return sum(cell.trials for cell in self.cells)

    @property
    def untimed(self) -> tuple[CellForecast, ...]:
        return tuple(c for c in self.cells if c.seconds is None)

    @property
    def unpriced(self) -> tuple[CellForecast, ...]:
        return tuple(c for c in self.cells if c.cost is None and not c.free)


def history(records: Iterable[TrialResult]) -> dict[Cell, list[TrialResult]]:
    """Past trials that ran to their end, by cell; a record with a time or cost no trial
    can have (a hand-edited file: infinite, not a number, negative) is left out."""
    cells: dict[Cell, list[TrialResult]] = defaultdict(list)
    for record in records:
        sane = math.isfinite(record.seconds + record.cost) and record.cost >= 0
        if record.outcome in FINISHED and record.seconds > 0 and sane:
            cells[Cell(record.task, record.agent, record.llm)].append(record)
    return dict(cells)


def cell_forecast(cell: Cell, trials: int, past: Sequence[TrialResult],
                  floor: float | None) -> CellForecast:
    seconds = Spread.of([r.seconds for r in past])
    cost = Spread(0, 0.0, 0.0, 0.0) if cell.llm is None else Spread.of([r.cost for r in past])
    tokens = Spread.of([float(r.tokens_in + r.tokens_out) for r in past])
    return CellForecast(cell, trials, seconds, None if seconds else floor, cost, tokens)


def wall_seconds(durations: Iterable[float], workers: int) -> float:
    """The length of the schedule in which each trial, longest first, goes to the worker
    that frees first."""
    if workers < 1:
        raise ValueError(f"expected at least one worker, got {workers}")
    ends = [0.0] * workers
    for duration in sorted(durations, reverse=True):
        heapq.heappush(ends, heapq.heappop(ends) + duration)
    return max(ends)


def _durations(cells: Sequence[CellForecast], pick: str) -> list[float]:
    """One duration per selected trial: its cell's ``pick`` (low, mean, high), else the
    floor (else 0) of a cell without history."""
    out: list[float] = []
    for c in cells:
        value = getattr(c.seconds, pick) if c.seconds else (c.floor or 0.0)
        out += [value] * c.trials
    return out


def _past(spreads: Iterable[Spread | None]) -> int:
    return sum(s.n for s in spreads if s is not None)


def _total(cells: Sequence[CellForecast], spread: str, complete: bool) -> Figure:
    known = [(c.trials, getattr(c, spread)) for c in cells if getattr(c, spread) is not None]
    return Figure(
        expected=sum(n * s.mean for n, s in known),
        low=sum(n * s.low for n, s in known),
        high=sum(n * s.high for n, s in known) if complete else None,
        past=_past(s for _, s in known),
    )


def _wall(cells: Sequence[CellForecast], workers: int | None, complete: bool) -> Figure:
    count = max(1, sum(c.trials for c in cells))
    lows, means, highs = (_durations(cells, pick) for pick in ("low", "mean", "high"))
    if workers is None:  # anything from all at once to one at a time
        return Figure(expected=wall_seconds(means, count), low=wall_seconds(lows, count),
                      high=sum(highs) if complete else None,
                      past=_past(c.seconds for c in cells))
    return Figure(expected=wall_seconds(means, workers), low=wall_seconds(lows, workers),
                  high=wall_seconds(highs, workers) if complete else None,
                  past=_past(c.seconds for c in cells))


def forecast(grid: Mapping[Cell, int], past: Mapping[Cell, Sequence[TrialResult]],
             floors: Mapping[str, float], workers: int | None) -> Forecast:
    """The forecast of ``grid`` (cell -> selected trials) from ``past`` (see ``history``)
    and ``floors`` (task -> a trial's least seconds), on ``workers`` at once."""
    cells = tuple(cell_forecast(cell, trials, past.get(cell, ()), floors.get(cell.task))
                  for cell, trials in sorted(grid.items()) if trials > 0)
    timed = all(c.seconds is not None for c in cells)
    # Trials without history are left out of the totals, never added as their floor
    # unsaid: the lines name them, and their floor, apart.
    seconds = _total(cells, "seconds", timed)
    with_history = [c for c in cells if c.seconds is not None]
    priced = all(c.cost is not None for c in cells)
    return Forecast(
        cells=cells, seconds=seconds, wall=_wall(with_history or cells, workers, timed),
        workers=workers,
        cost=_total(cells, "cost", priced),
        tokens=sum(c.trials * c.tokens.mean for c in cells if c.tokens and c.cost),
    )


def refuses(result: Forecast, cap: float | None) -> bool:
    """Whether the forecast's low end already spends more than ``cap`` dollars: even with
    every trial as cheap as the cheapest past trial of its cell (and the cells without
    history free), the session would pass its cap. Sums of dollars carry float noise
    (3 x 0.1 is 0.30000000000000004), which is no excess."""
    return cap is not None and result.cost.low - cap > 1e-9
