"""Whatever an agent leaves in its workspace, the trial ends passed or failed, never as a
harness error: a folder chain 5,000 deep, a path past PATH_MAX, names that are not UTF-8
or hold escape sequences, a FIFO, a socket, link loops, a file named like a scorer's
scratch folder and 100,000 files are snapshotted, diffed and reported (or named as not
kept), and make a submission that holds them invalid with one sentence. Agent text
reaches the terminal, results.json and report.html escaped."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES
from pytest_mlab.core.tree import remove_tree

RAW = ("\x1b", "\x07", "\r")
"""Bytes that drive a terminal; none may reach a record, a report or pytest's output."""


def _run_files(pytester: pytest.Pytester) -> tuple[str, str]:
    run = max(pytester.path.glob("reports/*/results.json"), key=lambda p: p.stat().st_mtime_ns)
    results = run.read_text(encoding="utf-8")
    json.loads(results)
    return results, (run.parent / "report.html").read_text(encoding="utf-8")


def _no_raw(*texts: str) -> None:
    for text in texts:
        for char in RAW:
            assert char not in text, (char, text[max(0, text.find(char) - 80):][:160])


@pytest.fixture
def odd_agents(task_tree: Callable[..., Path], pytester: pytest.Pytester) -> Iterator[None]:
    shutil.copy(EXAMPLES / "odd_agents.py", pytester.path)
    try:
        yield
    finally:
        # pytest's own clean-up of old temporary folders recurses, and a kept workspace
        # 5,000 folders deep would make it raise in a later session.
        for folder in (pytester.path, pytester.path.with_name(f"tmp-{pytester.path.name}")):
            remove_tree(folder)


@pytest.mark.slow
def test_odd_workspace_contents_end_in_a_verdict_and_an_escaped_report(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], odd_agents: None,
    mlab_args: list[str], read_results: Callable[[], list[dict[str, Any]]],
    kind_args: list[str], sandbox_kind: str,
) -> None:
    manifest = task_tree("probe") / "task.toml"
    # Scored by a timing scorer; the odd things lie beside the submission, not in it.
    # The agent makes 100,000 files, past the default limit on files: the task allows more.
    manifest.write_text(manifest.read_text().replace(
        'submission = ["**"]', 'submission = ["submission.csv", "train.py"]').replace(
        "[resources]\n", "[resources]\nfiles = 200000\n"))
    run = pytester.runpytest("tasks", "--agent=odd_agents:EverythingAgent",
                             *kind_args, *mlab_args)
    (record,) = read_results()
    assert record["outcome"] in ("passed", "failed"), record["message"]
    assert re.fullmatch(r"probe: mae=[\d.]+ is [-\d.]+% better than baseline [\d.]+ "
                        r"\(needed [\d.]+%\)", record["message"]), record["message"]
    assert record["isolation"] == sandbox_kind
    results, page = _run_files(pytester)
    _no_raw(results, page, run.stdout.str(), run.stderr.str())
    # The step that made them shows each odd name, escaped.
    for shown in ("added: \\xff.txt", "added: esc\\x1b[31m.txt", "added: .mlab-scoring"):
        assert shown in page, shown
    assert "\\x1b[31mRED\\x1b]8;;http://x\\x1b\\LINK" in page
    # The later steps ran: the deep chain, the long path and the 100,000 files were made.
    assert "added: deep/d/d/d/d/" in page and "added: long/aaaa" in page
    assert "made 100000" in page
    assert record["steps"] == 10


@pytest.mark.slow
@pytest.mark.parametrize("agent, sentence", [
    ("NonUtf8Agent", r"a file name is not valid UTF-8: '\xff.txt'; name the submission's "
                     r"files in UTF-8"),
    ("EscapeNameAgent", r"a file name holds a control character: 'esc\x1b[31m.txt'; name the "
                        r"submission's files in printable characters"),
    ("DeepAgent", r"the path 'deep/d/d/d/.*/d/d/bottom.txt' is 10,015 bytes long, more than "
                  r"the 3,072 a submission's file may have"),
    ("LongPathAgent", r"the path 'long/aaaa.*/end.txt' is 5,032 bytes long, more than the "
                      r"3,072 a submission's file may have"),
    ("LinkLoopAgent", r"loop is a symbolic link, not a regular file; only regular files are "
                      r"scored"),
    ("ScratchNameAgent", r"The submission holds .mlab-scoring, a name the scorer keeps for "
                         r"its own files; remove or rename it."),
])
def test_a_submission_holding_an_odd_name_is_invalid_with_one_sentence(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], odd_agents: None,
    mlab_args: list[str], read_results: Callable[[], list[dict[str, Any]]],
    agent: str, sentence: str, kind_args: list[str],
) -> None:
    task_tree("probe")  # everything the agent writes is scored, by a timing scorer
    run = pytester.runpytest("tasks", f"--agent=odd_agents:{agent}", *kind_args, *mlab_args)
    run.assert_outcomes(failed=1)
    (record,) = read_results()
    assert record["outcome"] == "failed"
    expected = re.escape("probe: invalid submission: ") + _literal_but_dots(sentence)
    assert re.fullmatch(expected, record["message"]), record["message"]
    results, page = _run_files(pytester)
    _no_raw(results, page, run.stdout.str())


def _literal_but_dots(pattern: str) -> str:
    """``pattern`` with everything literal but '.*' and the digit classes."""
    parts = re.split(r"(\.\*|\\d)", pattern)
    return "".join(p if p in (".*", r"\d") else re.escape(p) for p in parts)
