"""Nothing of the workspace runs in a timing task's child before its guard does.

The child once started with the submission's folder first on its import path, so a
module named like a standard one (``json.py``, which the driver imports on its first
line) ran before the guard, started a thread and a double-forked helper the guard never
saw. Now the child starts isolated and the workspace joins the path after the guard,
last: a module shadowing a standard or installed one is never imported, and one of the
workspace's own runs under the guard."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from task_scripts import load_script

from pytest_mlab.core.errors import InvalidSubmission
from pytest_mlab.sandbox import LocalSandbox, SandboxSpec
from pytest_mlab.sandbox.isolation import available

VECTORIZATION = Path(__file__).parent.parent.parent / "tasks" / "lite" / "vectorization"
SOLUTION = (VECTORIZATION / "solution" / "train.py").read_text()
assert "import numpy as np\n" in SOLUTION
# Leaves a mark beside itself, starts a thread and a double-forked helper that marks
# again a moment later, then (as a shadow would) stands in for nothing.
SHADOW = """
import os as _os, _thread as _t, time as _time
_here = _os.path.dirname(_os.path.abspath(__file__))
open(_os.path.join(_here, "ran-" + __name__), "w").close()
_t.start_new_thread(_time.sleep, (20,))
if _os.fork() == 0:
    if _os.fork() == 0:
        _os.setsid()
        _time.sleep(1)
        open(_os.path.join(_here, "helper-" + __name__), "w").close()
        _time.sleep(20)
    _os._exit(0)
"""
# Imported by the driver, by numpy, by the scorer's setup, by site, or by train.py below.
SHADOWED = ("json", "threading", "random", "zipfile", "numpy", "pickle", "sitecustomize",
            "usercustomize", "accelerate", "_distutils_hack")
Score = Callable[[str, dict[str, str]], float]


def _importing(modules: str) -> str:
    """The solution, importing ``modules`` too."""
    return SOLUTION.replace("import numpy as np\n", f"import numpy as np\nimport {modules}\n", 1)


@pytest.fixture(params=["none", "bwrap"])
def score(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Score]:
    """Score a train.py beside ``files`` with vectorization's scorer, in a sandbox."""
    if request.param == "bwrap" and not available("bwrap"):
        pytest.skip("bubblewrap is not available: apt-get install bubblewrap")
    boxes: list[LocalSandbox] = []
    submission = tmp_path / "submission"

    def run(source: str, files: dict[str, str]) -> float:
        submission.mkdir()
        for helper in (VECTORIZATION / "env").glob("*.py"):
            shutil.copy(helper, submission)
        for name, text in {**files, "train.py": source}.items():
            (submission / name).write_text(text)
        boxes.append(LocalSandbox(SandboxSpec(submission, isolation=request.param)))
        result: float = load_script(VECTORIZATION, "score.py").score(
            submission, tmp_path, boxes[-1])
        return result

    yield run
    for box in boxes:
        box.close()


def _marks(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir()
                  if path.name.startswith(("ran-", "helper-")))


def test_a_module_shadowing_a_standard_one_is_never_imported(
    tmp_path: Path, score: Score
) -> None:
    files = {f"{name}.py": SHADOW for name in SHADOWED}
    files["shadow.pth"] = "import json\n"
    relative = score(_importing("threading, random, json, zipfile, pickle"), files)
    assert 0 < relative < 1, "the vectorised solution is faster than the starter's loops"
    time.sleep(1.5)  # past the moment a helper that got away would have marked
    assert _marks(tmp_path / "submission") == []


@pytest.mark.parametrize(("module", "sentence"), [
    ("_t.start_new_thread(_time.sleep, (20,))", r"train.py ran [2-9] threads; it must use one"),
    ("_os.fork()", "train.py forks the process, which this task does not allow"),
])
def test_a_module_of_the_workspace_runs_under_the_guard(
    tmp_path: Path, score: Score, module: str, sentence: str
) -> None:
    helper = f"import os as _os, _thread as _t, time as _time\n{module}\n_time.sleep(0.5)\n"
    with pytest.raises(InvalidSubmission, match=sentence):
        score(_importing("helper"), {"helper.py": helper})
