"""The timing tasks' rules hold inside the scoring child: vectorization is numpy only and
one thread, llama-inference one thread during the call (not only after it). Each hostile
submission here passed, or could have, before the rules moved into the child."""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest
from task_scripts import load_script

from pytest_mlab.core.errors import InvalidSubmission, TaskUnavailable
from pytest_mlab.core.task import load_task
from pytest_mlab.env.data import prepare_task
from pytest_mlab.sandbox import LocalSandbox, SandboxSpec

TASKS = Path(__file__).parent.parent.parent / "tasks" / "lite"
VECTORIZATION = TASKS / "vectorization"
LLAMA = TASKS / "llama-inference"


def _score_module(task: Path) -> ModuleType:
    module = load_script(task, "score.py")
    return module


@pytest.fixture
def score(tmp_path: Path) -> Iterator[Callable[[Path, str, Path], float]]:
    """Score a train.py in ``folder`` with a task's scorer, as the harness would (plain
    processes here, for speed)."""
    boxes: list[LocalSandbox] = []

    def run(task: Path, source: str, private: Path) -> float:
        submission = tmp_path / "submission"
        submission.mkdir(exist_ok=True)
        for helper in (task / "env").glob("*.py"):  # the task's own modules, as in a workspace
            shutil.copy(helper, submission)
        (submission / "train.py").write_text(source)
        boxes.append(LocalSandbox(SandboxSpec(submission, isolation="none")))
        result: float = _score_module(task).score(submission, private, boxes[-1])
        return result

    yield run
    for box in boxes:
        box.close()


def _conv(body: str, head: str = "") -> str:
    """A conv2d_forward that runs ``body`` first, then convolves correctly."""
    solution = (VECTORIZATION / "solution" / "train.py").read_text()
    lines = "".join(f"    {line}\n" for line in body.splitlines())
    marker = "    batch, h_out, w_out, c_out = output_shape(x, weights, stride, padding)\n"
    imports = "import numpy as np\n"
    return solution.replace(marker, lines + marker).replace(imports, imports + head + "\n")


POSIXSUBPROCESS = next(Path(sys.base_prefix, "lib", f"python{sys.version_info[0]}."
                            f"{sys.version_info[1]}", "lib-dynload")
                       .glob("_posixsubprocess*.so"), None)
HOSTILE_CONV: dict[str, tuple[str, str, str]] = {
    "torch's conv2d": (
        "import torch",
        "torch.nn.functional.conv2d(torch.zeros(1, 1, 3, 3), torch.zeros(1, 1, 1, 1))",
        "train.py imports torch, which this task does not allow.",
    ),
    "an import hidden in importlib": (
        "import importlib", "importlib.import_module('scipy.signal')",
        "train.py imports scipy, which this task does not allow.",
    ),
    "an import hidden in __import__": (
        "", "__import__('numexpr')", "train.py imports numexpr, which this task does not allow.",
    ),
    "an extension loaded by its path": (
        "import importlib.machinery, importlib.util",
        f"loader = importlib.machinery.ExtensionFileLoader('_posixsubprocess', "
        f"{str(POSIXSUBPROCESS)!r})\n"
        "importlib.util.module_from_spec(importlib.util.spec_from_loader("
        "'_posixsubprocess', loader))",
        "train.py imports _posixsubprocess, which this task does not allow.",
    ),
    "ctypes, already imported by numpy": (
        "import sys", "sys.modules['ctypes'].CDLL(None).getpid()",
        "train.py uses ctypes, which this task does not allow.",
    ),
    "a shell command": (
        "import os", "os.system('true')",
        "train.py runs a shell command, which this task does not allow.",
    ),
    "a subprocess": (
        "import subprocess", "", "train.py imports subprocess, which this task does not allow.",
    ),
    "a second thread during the call": (
        "import threading, time",
        "worker = threading.Thread(target=time.sleep, args=(0.2,))\n"
        "worker.start()\nworker.join()",
        "train.py ran 2 threads; it must use one.",
    ),
    "a walk over the interpreter's objects": (
        "import sys", "sys.modules['gc'].get_objects() if 'gc' in sys.modules else "
        "__import__('gc')",
        "train.py (walks the interpreter's objects|imports gc), which this task does not allow.",
    ),
}


@pytest.mark.parametrize("case", HOSTILE_CONV)
def test_vectorization_refuses_anything_but_numpy_on_one_thread(
    tmp_path: Path, score: Callable[[Path, str, Path], float], case: str
) -> None:
    head, body, sentence = HOSTILE_CONV[case]
    if "extension" in case and POSIXSUBPROCESS is None:
        pytest.skip("this Python has no _posixsubprocess extension file")
    with pytest.raises(InvalidSubmission) as caught:
        score(VECTORIZATION, _conv(body, head), tmp_path)
    pattern = sentence if "(" in sentence or "*" in sentence else re.escape(sentence)
    assert re.fullmatch(pattern, str(caught.value))


def test_vectorization_still_scores_numpy_and_the_workspace_s_own_modules(
    tmp_path: Path, score: Callable[[Path, str, Path], float]
) -> None:
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "helpers.py").write_text("import math\nSCALE = math.sqrt(1)\n")
    relative = score(VECTORIZATION, _conv("x = x * helpers.SCALE", "import helpers"), tmp_path)
    assert 0 < relative < 1, "the vectorised solution is faster than the starter's loops"


def test_the_vectorization_scorer_s_shortcuts_are_refused(
    tmp_path: Path, score: Callable[[Path, str, Path], float]
) -> None:
    for name, sentence in (("torch-conv2d", "train.py imports torch"),
                           # Two threads beside the main one: the watcher counts 2 or 3
                           # alive, or first sees more CPU time than wall time.
                           ("two-threads", r"train.py ran ([2-9] threads|more than one "
                                           r"thread at once \(.*\)); it must use one")):
        source = (VECTORIZATION / "heuristics" / name / "train.py").read_text()
        with pytest.raises(InvalidSubmission, match=sentence):
            score(VECTORIZATION, source, tmp_path)


@pytest.fixture(scope="module")
def llama_data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    task = load_task(LLAMA / "task.toml")
    try:
        data = prepare_task(task, tmp_path_factory.mktemp("cache"))
    except TaskUnavailable as exc:  # torch or transformers missing
        pytest.skip(str(exc))
    return data.public, data.private


# Both raise torch's threads during the call and put them back before returning, which
# the old check (after the call) let through. In between, an element-wise sum far past
# torch's grain size (32768) is split over both OpenMP threads whatever the machine: a
# matrix product is not (MKL's dynamic threading may use fewer threads than asked),
# nor are the small model's own steps, and a thread that never starts is no rule broken.
MORE_THREADS = {
    "torch.set_num_threads": ("torch.set_num_threads",
                              "The call to generate failed (RuntimeError: "
                              "set_num_threads(2) is refused"),
    "torch._C.set_num_threads": ("torch._C.set_num_threads", "train.py ran 2 threads"),
}
RAISE_THREADS = """
import torch, torch._C
def generate(model, prompt_ids, max_new_tokens):
    {setter}(2)
    torch.ones(1 << 22).add_(1)
    with torch.inference_mode():
        out = model.generate(prompt_ids, attention_mask=torch.ones_like(prompt_ids),
                             max_new_tokens=max_new_tokens, min_new_tokens=max_new_tokens,
                             do_sample=False, num_beams=1, pad_token_id=0)
    {setter}(1)
    return out
"""


@pytest.mark.slow
@pytest.mark.parametrize("case", MORE_THREADS)
def test_llama_inference_refuses_more_threads_during_the_call(
    tmp_path: Path, score: Callable[[Path, str, Path], float], llama_data: tuple[Path, Path],
    case: str,
) -> None:
    public, private = llama_data
    shutil.copytree(public / "llama", tmp_path / "submission" / "llama")
    setter, sentence = MORE_THREADS[case]
    with pytest.raises(InvalidSubmission) as caught:
        score(LLAMA, RAISE_THREADS.format(setter=setter), private)
    assert str(caught.value).startswith(sentence)
