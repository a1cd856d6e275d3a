"""The terminal's table fits the terminal: the essential columns always, the rest while
there is room, none that is 0 on every row, and one line saying what was left out."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_mlab.core.results import Outcome, TrialResult
from pytest_mlab.report.rows import rows_of
from pytest_mlab.report.terminal import summary_lines
from pytest_mlab.report.terminal_table import terminal_table


def _trial(trial: int, outcome: Outcome, *, agent: str = "react", llm: str | None = None,
           tokens: int = 0, cost: float = 0.0) -> TrialResult:
    return TrialResult(
        nodeid=f"house-prices[{agent}-t{trial}]", task="house-prices", agent=agent, llm=llm,
        trial=trial, metric="rmse", direction="lower", outcome=outcome,
        success=outcome == "passed", score=0.5, baseline_mean=1.0, reference_mean=0.2,
        threshold=0.1, improvement=0.5, normalised_score=0.625, steps=12, seconds=75.0,
        tokens_in=tokens, cost=cost,
    )


def _trials(llm: str | None = None, tokens: int = 0, cost: float = 0.0) -> list[TrialResult]:
    outcomes: list[Outcome] = ["passed", "failed", "passed", "error"]
    return [_trial(i, outcome, llm=llm, tokens=tokens, cost=cost)
            for i, outcome in enumerate(outcomes)]


def test_the_table_fits_80_columns_and_says_once_what_it_left_out() -> None:
    rows = rows_of(_trials(llm="openai/gpt-4o-mini"))
    lines = summary_lines(rows, 80)
    header, row = lines[:2]
    end = next(i for i, line in enumerate(lines) if line.startswith("mean normalised score"))
    assert all(len(line) <= 80 for line in lines[:end])
    note = " ".join(line.strip() for line in lines[3:end])
    for name in ("task", "agent", "success", "95% CI", "pass@k", "norm. score", "errors"):
        assert name in header
    # Even the essential columns fit only with the one llm of every row said once.
    assert row.startswith("house-prices  react  2/3")
    assert lines[2] == "on every row: llm openai/gpt-4o-mini"
    # No LLM call cost a token, nothing was flagged or skipped: those columns say nothing.
    assert note.startswith("columns left out: ")
    assert note.endswith("; mean tokens, mean cost, unreproduced, flagged, skipped "
                         "(0 on every row)")
    assert "(no room: shown with -v and in report.html)" in note
    assert sum("columns left out" in line for line in lines) == 1


def test_under_v_the_columns_left_out_for_room_follow_in_tables_that_fit() -> None:
    rows = rows_of(_trials())
    shown = terminal_table(rows, 80, verbose=True)
    assert shown.narrowed and "mean steps" in shown.narrowed
    note = " ".join(line.strip() for line in shown.note)
    assert note.startswith(f"columns left out: {shown.narrowed[0]}")
    assert "(no room: shown below and in report.html)" in note
    tables = "\n".join(shown.more)
    for name in shown.narrowed:
        assert name in tables
    assert all(len(line) <= 80 for line in shown.more)
    assert all(line.startswith(("house-prices  react  -", "task  ")) for line in shown.more
               if line)
    assert "1m15s" in tables  # the mean time of every trial that ran


def test_tokens_and_cost_are_shown_where_an_llm_was_called() -> None:
    rows = rows_of(_trials(llm="openai/gpt-4o-mini", tokens=1500, cost=0.25))
    shown = terminal_table(rows)  # no width: every column that says something
    assert "mean tokens" in shown.shown and "mean cost" in shown.shown
    assert shown.zero == ("unreproduced", "flagged", "skipped")
    assert shown.narrowed == ()
    header, row = shown.table
    assert "1,500" in row and "$0.2500" in row and "mean tokens" in header


def test_a_run_in_an_80_column_terminal_prints_a_table_that_fits(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorded("guess")
    monkeypatch.setenv("COLUMNS", "80")
    result = pytester.runpytest("tasks", "--agent=oracle", "--mlab-trials=2", *mlab_args)
    result.assert_outcomes(passed=2)
    lines = result.stdout.lines
    start = lines.index(next(line for line in lines if line.startswith("task ")))
    end = lines.index(next(line for line in lines if line.startswith("results: ")))
    assert lines[start + 2].startswith("columns left out: ")  # under the header and one row
    assert all(len(line) <= 80 for line in lines[start:end])
    assert "pass@k" in lines[start] and "norm. score" in lines[start]
    assert "mean tokens, mean cost" in " ".join(lines[start + 2:end])  # no LLM was called
    result.stdout.fnmatch_lines(["view: python -m pytest_mlab view */reports"])
