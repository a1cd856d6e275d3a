"""vectorization's score is the submission's time over a yardstick timed beside it: the
yardstick runs only while none of the submission's code is alive (so that code cannot slow
it down and look faster), and a round that another job slowed is outvoted."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from task_scripts import load_script

from pytest_mlab.taskkit import convolution
from pytest_mlab.taskkit.convolution import ConvTiming, loop_conv2d, reference_conv2d
from pytest_mlab.taskkit.timed_child import ChildProgram

VECTORIZATION = Path(__file__).parent.parent.parent / "tasks" / "lite" / "vectorization"


class _Runner:
    """Plain processes in the submission's folder, each one remembered."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.started: list[subprocess.Popen[bytes]] = []

    def start(self, argv: Sequence[str]) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(list(argv), cwd=self.folder, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.started.append(proc)
        return proc


def _scorer() -> tuple[ChildProgram, ConvTiming]:
    """The lite scorer's program and timing."""
    module = load_script(VECTORIZATION, "score.py")
    return module.PROGRAM, module.TIMING


def test_the_yardstick_is_the_starter_s_convolution() -> None:
    rng = np.random.default_rng(0)
    x, weights, bias = rng.standard_normal((2, 6, 5, 3)), rng.standard_normal((3, 3, 3, 4)), \
        rng.standard_normal(4)
    for stride, padding in ((1, 0), (2, 1)):
        assert np.allclose(loop_conv2d(x, weights, bias, stride, padding),
                           reference_conv2d(x, weights, bias, stride, padding))


def test_the_yardstick_runs_only_while_no_child_is_alive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    submission = shutil.copytree(VECTORIZATION / "env", tmp_path / "submission")
    shutil.copy(VECTORIZATION / "solution" / "train.py", submission)
    runner = _Runner(submission)
    alive_during_yardstick: list[int] = []
    yardstick = convolution.loop_conv2d

    def watched(*args: object) -> np.ndarray:
        alive_during_yardstick.extend(p.pid for p in runner.started if p.poll() is None)
        return yardstick(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(convolution, "loop_conv2d", watched)
    relative = convolution.relative_conv(submission, runner, *_scorer())
    assert len(runner.started) == 3, "one child a round"
    assert alive_during_yardstick == []
    assert 0 < relative < 1, "the vectorised solution is faster than the loops"


def test_the_median_round_is_the_score(monkeypatch: pytest.MonkeyPatch) -> None:
    # Three rounds at 0.3 s, 0.9 s (another job held the core) and 0.3 s, every yardstick
    # 0.3 s: the slowed round is outvoted.
    child_times = iter([0.3, 0.9, 0.3])
    monkeypatch.setattr(convolution, "fastest_conv", lambda *a, **k: next(child_times))
    monkeypatch.setattr(convolution, "_fastest_yardstick", lambda *a: 0.3)
    relative = convolution.relative_conv(Path("."), _Runner(Path(".")), *_scorer())
    assert relative == pytest.approx(1.0)


def test_a_round_is_paired_with_the_faster_yardstick_beside_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The machine runs at half speed from the second round on: each round is divided by a
    # yardstick of its own moment (the faster of the two beside it), not by the first one.
    child_times = iter([0.3, 0.6, 0.6])
    yardsticks = iter([0.3, 0.3, 0.6, 0.6])
    monkeypatch.setattr(convolution, "fastest_conv", lambda *a, **k: next(child_times))
    monkeypatch.setattr(convolution, "_fastest_yardstick", lambda *a: next(yardsticks))
    relative = convolution.relative_conv(Path("."), _Runner(Path(".")), *_scorer())
    assert relative == pytest.approx(1.0)
