"""The terminal's choice among the report's columns: those that fit its width.

The essential columns are always shown; the rest join them, in order of use, while the
table fits; a column that is 0 or empty on every row is left out, since it says nothing.
One line names what was left out and where to see it: under -v, the columns left out for
room follow in tables of their own, keyed by task, agent and llm; report.html has them all.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pytest_mlab.core.plain_text import one_line
from pytest_mlab.core.text import aligned
from pytest_mlab.report.columns import Column, columns
from pytest_mlab.report.rows import Row

ESSENTIAL = ("task", "agent", "llm", "success", "95% CI", "k", "pass@k", "norm. score",
             "errors")
"""Shown whatever the width ("errors" only where a trial errored)."""
_KEYS = ("task", "agent", "llm")
_LIFTABLE = ("agent", "llm", "k")
_PRIORITY = ("success w/ errors", "pass@k w/ errors", "mean improvement", "valid", "pass^k",
             "mean steps", "mean time", "mean cost", "mean tokens", "unreproduced", "flagged",
             "skipped")
"""The order in which the other columns claim the room left."""
_ZERO: dict[str, Callable[[Row], float | None]] = {
    "mean tokens": lambda r: r.mean_tokens, "mean cost": lambda r: r.mean_cost,
    "unreproduced": lambda r: r.unreproduced, "flagged": lambda r: r.flagged,
    "errors": lambda r: r.errors, "skipped": lambda r: r.skipped,
}
"""Columns left out where every row has 0 or nothing: no LLM called, no trial flagged..."""
_GAP = 2


@dataclass(frozen=True)
class TerminalTable:
    table: list[str]
    note: list[str]
    """Which columns were left out, and where to see them."""
    more: list[str]
    """Under -v, the tables of the columns left out for room."""
    shown: tuple[str, ...]
    narrowed: tuple[str, ...]
    """Left out for room."""
    zero: tuple[str, ...]
    """Left out as 0 or empty on every row."""


def _cells(rows: Sequence[Row], shown: Sequence[Column]) -> list[list[str]]:
    return [[c.header for c in shown], *([one_line(c.cell(row)) for c in shown] for row in rows)]


def _width(cells: list[list[str]], index: int) -> int:
    return max(len(line[index]) for line in cells)


def _fitted(rows: Sequence[Row], candidates: Sequence[Column], fixed: set[str],
            width: int | None) -> tuple[list[Column], list[Column]]:
    """The columns shown (``fixed`` ones, then the others by priority while they fit) and
    those left out, each in the table's order."""
    cells = _cells(rows, candidates)
    widths = {c.header: _width(cells, i) for i, c in enumerate(candidates)}
    used = sum(widths[h] + _GAP for h in fixed) - _GAP
    taken = set(fixed)
    for header in sorted(widths.keys() - fixed, key=_rank):
        if width is None or used + _GAP + widths[header] <= width:
            taken.add(header)
            used += _GAP + widths[header]
    return ([c for c in candidates if c.header in taken],
            [c for c in candidates if c.header not in taken])


def _lifted(rows: Sequence[Row], essential: Sequence[Column],
            width: int | None) -> dict[str, str]:
    """Where even the essential columns do not fit: those of them with one value on every
    row (the llm, the agent, k), widest first until they fit, each with its value."""
    cells = _cells(rows, essential)
    widths = {c.header: _width(cells, i) for i, c in enumerate(essential)}
    used = sum(w + _GAP for w in widths.values()) - _GAP
    lifted: dict[str, str] = {}
    for i in sorted((i for i, c in enumerate(essential) if c.header in _LIFTABLE and rows
                     and len({line[i] for line in cells[1:]}) == 1),
                    key=lambda i: -widths[essential[i].header]):
        if width is None or used <= width:
            break
        lifted[essential[i].header] = cells[1][i]
        used -= widths[essential[i].header] + _GAP
    return lifted


def _rank(header: str) -> int:
    return _PRIORITY.index(header) if header in _PRIORITY else len(_PRIORITY)


def _note(narrowed: Sequence[str], zero: Sequence[str], verbose: bool,
          width: int | None) -> list[str]:
    parts = []
    if narrowed:
        where = "below" if verbose else "with -v"
        parts.append(f"{', '.join(narrowed)} (no room: shown {where} and in report.html)")
    if zero:
        parts.append(f"{', '.join(zero)} (0 on every row)")
    if not parts:
        return []
    text = f"columns left out: {'; '.join(parts)}"
    return [text] if width is None else textwrap.wrap(text, width, subsequent_indent="  ")


def _more(rows: Sequence[Row], keys: list[Column], rest: list[Column],
          width: int | None) -> list[str]:
    """The columns left out for room, after the task, agent and llm, in as few tables as fit."""
    lines: list[str] = []
    while rest:
        shown, rest_after = _fitted(rows, [*keys, *rest], {c.header for c in keys}, width)
        if len(shown) == len(keys):  # not even one fits beside the keys: show it anyway
            shown, rest_after = [*keys, rest[0]], rest[1:]
        lines += ["", *aligned(_cells(rows, shown))]
        rest = rest_after
    return lines


def terminal_table(rows: Sequence[Row], width: int | None = None,
                   verbose: bool = False) -> TerminalTable:
    """The terminal's table of ``rows`` in ``width`` characters (None: no limit)."""
    every = columns("terminal", rows)
    zero = tuple(c.header for c in every if c.header in _ZERO
                 and all(not _ZERO[c.header](row) for row in rows))
    candidates = [c for c in every if c.header not in zero]
    lifted = _lifted(rows, [c for c in candidates if c.header in ESSENTIAL], width)
    candidates = [c for c in candidates if c.header not in lifted]
    fixed = {c.header for c in candidates if c.header in ESSENTIAL}
    shown, narrowed = _fitted(rows, candidates, fixed, width)
    lines = aligned(_cells(rows, shown))
    if lifted:
        lines.append("on every row: " + ", ".join(f"{h} {v}" for h, v in lifted.items()))
    keys = [c for c in shown if c.header in _KEYS]
    more = _more(rows, keys, narrowed, width) if verbose else []
    note = _note([c.header for c in narrowed], zero, verbose, width)
    return TerminalTable(table=lines, note=note, more=more,
                         shown=tuple(c.header for c in shown),
                         narrowed=tuple(c.header for c in narrowed), zero=zero)
