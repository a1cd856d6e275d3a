"""The columns of the results table, defined once: report.html, the terminal summary and
the markdown summary each show those marked for them, with the same cells."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pytest_mlab.report import format as fmt
from pytest_mlab.report.rows import Row, task_label

View = Literal["html", "terminal", "markdown"]
_ALL: frozenset[View] = frozenset({"html", "terminal", "markdown"})
_DETAIL: frozenset[View] = frozenset({"html", "terminal"})


@dataclass(frozen=True)
class Column:
    header: str
    cell: Callable[[Row], str]
    sort_key: Callable[[Row], float | None] | None = None
    """What report.html sorts by; None sorts by the text."""
    text: bool = False
    """Left-aligned words rather than a number."""
    views: frozenset[View] = _ALL


COLUMNS: tuple[Column, ...] = (
    Column("task", task_label, text=True),
    Column("agent", lambda r: r.agent, text=True),
    Column("llm", lambda r: r.llm or fmt.DASH, text=True),
    Column("success", lambda r: f"{r.passed}/{r.ran}", lambda r: r.success_rate),
    Column("rate", lambda r: fmt.percent(r.success_rate), lambda r: r.success_rate,
           views=frozenset({"html"})),
    Column("95% CI", lambda r: fmt.interval(r.success_low, r.success_high),
           lambda r: r.success_low, views=_DETAIL),
    Column("valid", lambda r: fmt.percent(r.valid_rate), lambda r: r.valid_rate,
           views=_DETAIL),
    Column("mean improvement", lambda r: fmt.percent(r.mean_improvement, signed=True),
           lambda r: r.mean_improvement),
    Column("k", lambda r: str(r.pass_k), lambda r: r.pass_k),
    Column("pass@k", lambda r: fmt.percent(r.pass_at_k), lambda r: r.pass_at_k),
    Column("pass^k", lambda r: fmt.percent(r.pass_hat_k), lambda r: r.pass_hat_k,
           views=_DETAIL),
    Column("norm. score", lambda r: fmt.normalised(r.mean_normalised),
           lambda r: r.mean_normalised),
    Column("mean steps", lambda r: fmt.count(r.mean_steps), lambda r: r.mean_steps,
           views=_DETAIL),
    Column("mean time", lambda r: fmt.seconds(r.mean_seconds), lambda r: r.mean_seconds,
           views=_DETAIL),
    Column("mean tokens", lambda r: fmt.count(r.mean_tokens), lambda r: r.mean_tokens,
           views=_DETAIL),
    Column("mean cost", lambda r: fmt.money(r.mean_cost), lambda r: r.mean_cost,
           views=_DETAIL),
    Column("unreproduced", lambda r: str(r.unreproduced), lambda r: r.unreproduced),
    Column("flagged", lambda r: str(r.flagged), lambda r: r.flagged),
    Column("errors", lambda r: str(r.errors), lambda r: r.errors),
    Column("skipped", lambda r: str(r.skipped), lambda r: r.skipped),
)


def columns(view: View) -> tuple[Column, ...]:
    return tuple(column for column in COLUMNS if view in column.views)


def table(rows: list[Row], view: View) -> list[list[str]]:
    """The header and one line of cells per row, as ``view`` shows them."""
    shown = columns(view)
    return [[c.header for c in shown], *([c.cell(row) for c in shown] for row in rows)]
