"""Scorers read a copy of the submission: regular files only, up to the task's size, in
a fresh folder that is the scorer's working directory. A link (to the answers by way of
the scorer's folder, to its own memory), a FIFO, a shared hard link or too much data
makes the submission invalid with one sentence; a device cannot even be made. The
trial ends failed with that sentence, never as a harness error."""

from __future__ import annotations

import os
import re
import shutil
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES
from pytest_mlab.core.task import load_task
from pytest_mlab.env.data import prepare_task
from pytest_mlab.env.workspace import provision_workspace
from pytest_mlab.trial.scoring import score_workspace
from pytest_mlab.trial.submission import InvalidCopy, copy_submission

INVALID = "probe: invalid submission: "
SENTENCES = {
    "AnswersLinkAgent": "submission.csv is a symbolic link, not a regular file; only regular "
                        "files are scored",
    "MemoryLinkAgent": "submission.csv is a symbolic link, not a regular file; only regular "
                       "files are scored",
    "FifoAgent": "submission.csv is a FIFO, not a regular file; only regular files are scored",
    "HardLinkAgent": r"(keep|submission)\.csv is a hard link shared with another file; write "
                     r"a file of its own",
    "OversizeAgent": r"the submission's files hold 2\.\d MB, more than the 1 MB this task scores",
}


@pytest.mark.slow
def test_a_submission_that_is_not_a_plain_file_of_its_own_is_invalid(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], kind_args: list[str],
    sandbox_kind: str, mlab_args: list[str], monkeypatch: pytest.MonkeyPatch,
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    task_tree("probe")
    monkeypatch.setenv("MLAB_TEST_LOG", str(pytester.path / "log.jsonl"))
    agents = [*SENTENCES, "DeviceAgent"]
    run = pytester.runpytest("tasks", *(f"--agent=scripted_agents:{a}" for a in agents),
                             *kind_args, *mlab_args)
    run.assert_outcomes(failed=len(agents))
    records = {str(r["agent"]).split(":")[1]: r for r in read_results()}
    assert {r["isolation"] for r in records.values()} == {sandbox_kind}
    for agent, sentence in SENTENCES.items():
        message = str(records[agent]["message"])
        assert re.fullmatch(re.escape(INVALID) + sentence, message), (agent, message)
    # A device node cannot be made in the sandbox: the starter's submission is scored.
    device = records["DeviceAgent"]
    assert re.fullmatch(r"probe: mae=[\d.]+ is 0\.0% better than baseline [\d.]+ \(needed "
                        r"10%\)", str(device["message"])), device["message"]
    log = (pytester.path / "log.jsonl").read_text()
    assert "Operation not permitted" in log


def _guess(tmp_path: Path, score_py: str) -> tuple[Any, Any, Any]:
    root = shutil.copytree(EXAMPLES / "guess", tmp_path / "task")
    (root / "score.py").write_text(score_py)
    task = load_task(root / "task.toml")
    data = prepare_task(task, tmp_path / "cache")
    return task, data, provision_workspace(task, data, tmp_path / "ws")


SHOW_FOLDER = """
import os
from pytest_mlab import InvalidSubmission

def score(workspace, private):
    raise InvalidSubmission(f"cwd={os.getcwd()} given={workspace} files={sorted(os.listdir())}")
"""


def test_the_scorer_reads_a_copy_in_its_own_working_directory(tmp_path: Path) -> None:
    task, data, workspace = _guess(tmp_path, SHOW_FOLDER)
    (workspace.root / "submission.txt").write_text("40\n")
    (workspace.root / "notes.txt").write_text("not part of the submission\n")
    scored = score_workspace(task, workspace, data)
    assert scored.invalid is not None
    folders = re.fullmatch(r"cwd=(\S+) given=(\S+) files=\['data.txt', 'submission.txt'\]",
                           scored.invalid)
    assert folders is not None, scored.invalid
    assert folders[1] == folders[2] and "mlab-score-guess-" in folders[1]
    assert not Path(folders[1]).exists()  # the copy is gone with the scoring


@pytest.mark.skipif(os.geteuid() != 0, reason="only root makes device nodes")
def test_a_device_in_the_submission_is_invalid(tmp_path: Path) -> None:
    task, data, workspace = _guess(tmp_path, SHOW_FOLDER)
    os.mknod(workspace.root / "submission.txt", stat.S_IFCHR | 0o666, os.makedev(1, 5))
    with pytest.raises(InvalidCopy) as caught:
        copy_submission(task, workspace, data, tmp_path / "copy")
    assert str(caught.value) == ("submission.txt is a device, not a regular file; only "
                                 "regular files are scored")
    assert score_workspace(task, workspace, data).invalid == str(caught.value)
