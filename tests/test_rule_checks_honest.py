"""No false alarms: the starter and the reference solution of every lite task, taken as
the baseline and oracle agents take them, raise no flag (issue 40). The scripts are not
run (a stand-in sandbox answers for them): what is checked is the code the steps name."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from rule_trials import Action, act

from pytest_mlab.core.task import TaskSpec, load_task
from pytest_mlab.sandbox.base import ExecResult
from pytest_mlab.trial.rules import check_trial

LITE = sorted(Path(__file__).parent.parent.glob("tasks/lite/*/task.toml"))
_TEXT = {".py", ".txt", ".md", ".json", ".cfg", ".toml"}


class Unrun:
    """A sandbox that runs nothing and says the script ran."""

    isolation = "none"

    def run(self, argv: Sequence[str], timeout: float) -> ExecResult:
        return ExecResult("trained; validation error 0.1\n", "", 0, 0.1, False)

    def close(self) -> None:
        pass


def _texts(folder: Path) -> dict[str, str]:
    return {path.relative_to(folder).as_posix(): path.read_text(encoding="utf-8")
            for path in sorted(folder.rglob("*"))
            if path.is_file() and path.suffix in _TEXT and "__pycache__" not in path.parts
            and path.stat().st_size < 1 << 20}


def _check(tmp_path: Path, task: TaskSpec, steps: list[Action]) -> list[str]:
    manifest = task.manifest
    evidence = act(tmp_path, steps, files=_texts(task.env_dir), sandbox=Unrun(),
                   submission=manifest.submission, answers=manifest.answers,
                   hidden=manifest.hide)
    return [str(flag) for flag in check_trial(evidence)]


@pytest.mark.parametrize("manifest", LITE, ids=[p.parent.name for p in LITE])
def test_the_starter_and_the_reference_solution_raise_no_flag(
    tmp_path: Path, manifest: Path,
) -> None:
    task = load_task(manifest)
    run_entry: Action = ("Execute Script", {"script_name": task.manifest.entry})
    submit: Action = ("Final Answer", {"final_answer": "done"})
    assert _check(tmp_path / "starter", task, [run_entry, submit]) == []
    writes: list[Action] = [("Write File", {"file_name": rel, "content": text})
                            for rel, text in _texts(task.solution_dir).items()]
    assert _check(tmp_path / "oracle", task, [*writes, run_entry, submit]) == []
