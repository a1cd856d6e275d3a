"""The forecast in words, for the terminal before a run starts; every figure says what it
rests on, and a trial without history says so instead of getting a number."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pytest_mlab.analysis.forecast import CellForecast, Figure, Forecast
from pytest_mlab.analysis.forecast_setup import PhaseForecast, SetupForecast
from pytest_mlab.core.text import plural
from pytest_mlab.report import format as fmt

PREFIX = "mlab forecast: "
_LISTED = 3
"""Cells named in a line before the rest are counted."""


def _trials(count: int) -> str:
    return plural(count, "trial")


def _past(count: int) -> str:
    return plural(count, "past trial")


def _cells(cells: Sequence[CellForecast]) -> str:
    names = [str(c.cell) for c in cells[:_LISTED]]
    more = len(cells) - _LISTED
    return ", ".join(names) + (f" and {more} more" if more > 0 else "")


def _range(figure: Figure, *, money: bool = False) -> str:
    shown = fmt.money if money else fmt.seconds
    high = shown(figure.high) if figure.high is not None else "no upper end"
    return f"{shown(figure.low)} to {high}"


def _time_lines(result: Forecast) -> list[str]:
    untimed = result.untimed
    timed = result.trials - sum(c.trials for c in untimed)
    lines = []
    if timed:
        if result.workers == 1:
            wall = "one trial at a time"
        elif result.workers:
            wall = (f"wall {fmt.seconds(result.wall.expected)} on {result.workers} workers "
                    f"({_range(result.wall)}, each taking the longest waiting trial next)")
        else:
            wall = f"wall on Ray {_range(result.wall)} (every trial at once to one at a time)"
        scope = f" for the {_trials(timed)} with history" if untimed else ""
        lines.append(
            f"{PREFIX}agent time{scope} {fmt.seconds(result.seconds.expected)} expected "
            f"({_range(result.seconds)}) from {_past(result.seconds.past)}; {wall}")
    if untimed:
        floors = [c for c in untimed if c.floor is not None]
        least = sum(c.trials * (c.floor or 0) for c in floors)
        floor = (f"; at least {fmt.seconds(least)} in all, from the starter's runs in "
                 "validation.json" if floors else "")
        if floors and not timed and (result.workers or 0) > 1:
            floor += f" (wall at least {fmt.seconds(result.wall.low)} on {result.workers} workers)"
        lines.append(f"{PREFIX}no history for {_trials(sum(c.trials for c in untimed))} "
                     f"({_cells(untimed)}): their time is unknown{floor}")
    return lines


_DOING = {"prepare": "preparing data", "baseline": "measuring baselines", "scoring": "scoring"}
_UNKNOWN = {"prepare": "preparing the data of", "baseline": "measuring the baseline of",
            "scoring": "scoring"}


def _known(p: PhaseForecast) -> str:
    what = (_trials(p.needed - sum(p.unknown.values())) if p.phase == "scoring"
            else ", ".join(p.known))
    return f"{_DOING[p.phase]} {fmt.seconds(p.seconds)} ({what})"


def _unknown(p: PhaseForecast) -> str:
    tasks = ", ".join(p.unknown)
    if p.phase == "scoring":
        return f"scoring {_trials(sum(p.unknown.values()))} ({tasks})"
    return f"{_UNKNOWN[p.phase]} {tasks}"


def setup_lines(setup: SetupForecast, result: Forecast) -> list[str]:
    """The time around the trials (data, baselines, scoring) and the run's in all, one
    trial after another; what has no history named as unknown."""
    parts = [_known(p) for p in setup.phases if p.known]
    prepare = next(p for p in setup.phases if p.phase == "prepare")
    if not prepare.needed:
        parts.append("data prepared already")
    lines = [f"{PREFIX}around the trials {fmt.seconds(setup.seconds)} expected: "
             f"{', '.join(parts)}"] if parts else []
    unknown = [_unknown(p) for p in setup.phases if p.unknown]
    if unknown:
        lines.append(f"{PREFIX}no history for {'; '.join(unknown)}: their time is unknown")
    known = result.seconds.expected + setup.seconds
    more = " and more for what has no history" if unknown or result.untimed else ""
    if more and not (parts or result.seconds.past):
        return [*lines, f"{PREFIX}in all: unknown, as no part of the run has history here"]
    lines.append(f"{PREFIX}in all {fmt.seconds(known)} expected{more}, one trial after "
                 "another (agent time, data, baselines and scoring)")
    return lines


def _cost_lines(result: Forecast, cap: float | None) -> list[str]:
    unpriced = result.unpriced
    priced = [c for c in result.cells if c.cost is not None and not c.free]
    lines = []
    if not priced and not unpriced:
        lines.append(f"{PREFIX}cost $0: no agent of the run uses an LLM")
    elif priced:
        tokens = f", {fmt.count(result.tokens)} tokens" if result.tokens else ""
        lines.append(f"{PREFIX}cost {fmt.money(result.cost.expected)} expected "
                     f"({_range(result.cost, money=True)}) from "
                     f"{_past(result.cost.past)}{tokens}")
    if unpriced:
        lines.append(f"{PREFIX}no cost history for {_trials(sum(c.trials for c in unpriced))} "
                     f"({_cells(unpriced)}): their cost is unknown")
    if cap is not None:
        if unpriced:
            lines.append(f"{PREFIX}--mlab-max-session-cost=${cap:g} cannot refuse before the "
                         f"start on the trials without cost history; it still stops new "
                         "trials once the session has spent it")
        elif result.cost.high is not None and result.cost.high > cap:
            lines.append(f"{PREFIX}the cost may pass --mlab-max-session-cost=${cap:g}; "
                         "trials left when it is spent are skipped")
    return lines


def cell_line(c: CellForecast) -> str:
    """One cell, for -v."""
    if c.seconds is None:
        floor = f" (at least {fmt.seconds(c.floor)} each: the starter's run)" if c.floor else ""
        time = f"no history, time unknown{floor}"
    else:
        time = (f"{fmt.seconds(c.seconds.mean)} each ({fmt.seconds(c.seconds.low)} to "
                f"{fmt.seconds(c.seconds.high)}) from {_past(c.seconds.n)}")
    if c.free:
        cost = "no LLM"
    elif c.cost is None:
        cost = "cost unknown"
    else:
        cost = (f"{fmt.money(c.cost.mean)} each ({fmt.money(c.cost.low)} to "
                f"{fmt.money(c.cost.high)})")
    return f"{PREFIX}  {c.cell}: {_trials(c.trials)}, {time}, {cost}"


def forecast_lines(result: Forecast, cap: float | None, *, verbose: bool = False) -> list[str]:
    lines = _time_lines(result) + _cost_lines(result, cap)
    if verbose:
        lines += [cell_line(c) for c in result.cells]
    return lines


def reproduction_lines(
    runs: Mapping[str, tuple[int, float]], floors: Mapping[str, float]
) -> list[str]:
    """The reproduction's cost (--mlab-reproduce): at most one more run of the entry script
    per trial, no LLM call. ``runs``: task -> its trials reproduced and its script time
    limit; ``floors``: task -> its starter's least time in validation.json."""
    if not runs:
        return []
    trials = sum(n for n, _ in runs.values())
    most = sum(n * limit for n, limit in runs.values())
    about = ""
    if all(task in floors for task in runs):
        least = sum(n * floors[task] for task, (n, _) in runs.items())
        about = f", at least {fmt.seconds(least)} from the starter's runs in validation.json"
    return [f"{PREFIX}reproduction: one more run of the entry script after each of "
            f"{_trials(trials)} ({', '.join(sorted(runs))}), at most {fmt.seconds(most)} in "
            f"all (the script time limit each){about}; no LLM cost"]


def refusal(result: Forecast, cap: float) -> str:
    """Why the run does not start, in one sentence."""
    priced = sum(c.trials for c in result.cells if c.cost is not None and not c.free)
    return (f"--mlab-max-session-cost=${cap:g}: the forecast's low end is "
            f"{fmt.money(result.cost.low)} ({_trials(priced)}, each as cheap as the cheapest "
            f"of {_past(result.cost.past)} of its task x agent x llm), above the cap, so "
            "no trial was started; raise the cap or select fewer trials")
