"""The columns of the results table, defined once: report.html, the terminal summary and
the markdown summary each show those marked for them, with the same cells."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
    when: Callable[[Sequence[Row]], bool] | None = None
    """Shown only for rows where this holds; None: always."""


def _errored(rows: Sequence[Row]) -> bool:
    return any(row.errors for row in rows)


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
    # Beside the rates over the trials that ran: each error counted as a failed trial.
    Column("success w/ errors", lambda r: f"{r.passed}/{r.ran + r.errors}",
           lambda r: r.success_with_errors if r.errors else r.success_rate, when=_errored),
    Column("pass@k w/ errors",
           lambda r: fmt.percent(r.pass_at_k_with_errors if r.errors else r.pass_at_k),
           lambda r: r.pass_at_k_with_errors if r.errors else r.pass_at_k, when=_errored),
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


def columns(view: View, rows: Sequence[Row] = ()) -> tuple[Column, ...]:
    """The columns ``view`` shows for ``rows``."""
    return tuple(column for column in COLUMNS if view in column.views
                 and (column.when is None or column.when(rows)))


def table(rows: list[Row], view: View) -> list[list[str]]:
    """The header and one line of cells per row, as ``view`` shows them."""
    shown = columns(view, rows)
    return [[c.header for c in shown], *([c.cell(row) for c in shown] for row in rows)]
