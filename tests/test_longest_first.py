"""The history of trial lengths in the cache, and the longest-first order it gives."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal

import pytest

from pytest_mlab.core.results import TrialResult
from pytest_mlab.core.trial_seconds import HISTORY, read_history, update_history
from pytest_mlab.plugin.dispatch.longest_first import order_longest_first, worksteal_shares
from pytest_mlab.plugin.keys import TRIAL_KEY

Outcome = Literal["passed", "failed", "error", "skipped"]


def _result(task: str, seconds: float, outcome: Outcome = "passed", llm: str | None = None,
            agent: str = "react") -> TrialResult:
    return TrialResult(nodeid=f"{task}[{agent}]", task=task, agent=agent, llm=llm, trial=0,
                       metric="accuracy", direction="higher", outcome=outcome,
                       success=outcome == "passed", threshold=0.1, seconds=seconds)


def _item(task: str | None, agent: str = "react", llm: str | None = "gpt-4") -> Any:
    """An item as the ordering sees it: a trial's spec in its stash, or none (a test)."""
    stash = pytest.Stash()
    if task is not None:
        spec: Any = SimpleNamespace(task=SimpleNamespace(name=task), agent=agent, llm=llm)
        stash[TRIAL_KEY] = spec
    return SimpleNamespace(stash=stash, name=task or "test_plain")


def test_the_history_keeps_each_keys_median_of_trials_that_ran_to_their_end(
    tmp_path: Path,
) -> None:
    update_history(tmp_path, [
        _result("a", 10.0), _result("a", 30.0, "failed"), _result("a", 20.0),
        _result("a", 999.0, "error"), _result("b", 0.0, "skipped"),
        _result("b", 5.0, llm="gpt-4"),
    ])
    assert read_history(tmp_path) == {"a react -": 20.0, "b react gpt-4": 5.0}
    update_history(tmp_path, [_result("a", 40.0)])  # a later run replaces a key, keeps others
    assert read_history(tmp_path) == {"a react -": 40.0, "b react gpt-4": 5.0}


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"a react -": "long"}', ""])
def test_a_damaged_history_is_no_history(tmp_path: Path, text: str) -> None:
    (tmp_path / HISTORY).write_text(text)
    assert read_history(tmp_path) == {}
    update_history(tmp_path, [_result("a", 3.0)])
    assert read_history(tmp_path) == {"a react -": 3.0}


def test_a_cache_that_cannot_be_written_keeps_the_run_going(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        blocker = tmp_path / "file"
        blocker.write_text("")
        folder = blocker / "cache"  # a file where the folder would be: no one can write it
    else:
        folder = tmp_path / "ro"
        folder.mkdir(mode=0o500)
    update_history(folder, [_result("a", 3.0)])
    assert read_history(folder) == {}


def test_trials_are_ordered_longest_first_with_the_untimed_before_all() -> None:
    items = [_item("short"), _item(None), _item("long"), _item("new"), _item("short"),
             _item("mid"), _item(None)]
    history = {"short react gpt-4": 2.0, "long react gpt-4": 90.0, "mid react gpt-4": 30.0}
    order_longest_first(items, history)
    assert [it.name for it in items] == ["new", "test_plain", "long", "mid", "short", "short",
                                         "test_plain"]


def test_the_key_tells_agents_and_models_apart() -> None:
    items = [_item("t", agent="react", llm="a"), _item("t", agent="react", llm="b"),
             _item("t", agent="baseline", llm=None)]
    order_longest_first(items, {"t react a": 1.0, "t react b": 5.0, "t baseline -": 3.0})
    assert [(it.stash[TRIAL_KEY].agent, it.stash[TRIAL_KEY].llm) for it in items] == [
        ("react", "b"), ("baseline", None), ("react", "a")]


def test_the_history_file_is_plain_sorted_json(tmp_path: Path) -> None:
    update_history(tmp_path, [_result("b", 1.25), _result("a", 2.5)])
    text = (tmp_path / HISTORY).read_text()
    assert json.loads(text) == {"a react -": 2.5, "b react -": 1.25}
    assert text.index('"a react -"') < text.index('"b react -"')


def test_without_any_timed_trial_the_collection_order_stays() -> None:
    items = [_item("b"), _item("a"), _item(None), _item("c")]
    order_longest_first(items, {"other react gpt-4": 5.0}, worksteal_workers=2)
    assert [it.name for it in items] == ["b", "a", "test_plain", "c"]


@pytest.mark.parametrize(("count", "workers", "shares"), [
    (8, 2, [4, 4]), (5, 2, [2, 3]), (7, 3, [2, 2, 3]), (1, 2, [0, 1]), (0, 2, [0, 0]),
])
def test_worksteal_shares_match_what_xdist_deals(count: int, workers: int,
                                                  shares: list[int]) -> None:
    assert worksteal_shares(count, workers) == shares


LITE_SECONDS = {"fcnn react gpt-4": 69.0, "fml react gpt-4": 37.0,
                "contrails react gpt-4": 24.0, "sentiment react gpt-4": 4.0}


def _names(items: list[Any]) -> list[str]:
    return [it.name for it in items]


def test_worksteal_shares_are_balanced_by_time_each_longest_first() -> None:
    # One trial each: fashion-cnn beside the shortest, the two middle ones together
    # (73 s and 61 s of work, where longest first dealt in halves gives 106 s and 28 s).
    items = [_item(name) for name in ("fcnn", "contrails", "fml", "sentiment")]
    order_longest_first(items, LITE_SECONDS, worksteal_workers=2)
    assert _names(items) == ["fcnn", "sentiment", "fml", "contrails"]
    # Two trials each: every worker gets one of each, longest first.
    items = [_item(name) for name in ("fcnn", "contrails", "fml", "sentiment") for _ in "ab"]
    order_longest_first(items, LITE_SECONDS, worksteal_workers=2)
    assert _names(items) == ["fcnn", "fml", "contrails", "sentiment"] * 2


def test_under_worksteal_never_timed_trials_are_dealt_first_as_the_heaviest() -> None:
    items = [_item(name) for name in ("fcnn", "contrails", "new", "sentiment")]
    order_longest_first(items, LITE_SECONDS, worksteal_workers=2)
    assert _names(items) == ["new", "sentiment", "fcnn", "contrails"]
