"""The replacement scorer of vectorization times Conv2DLayer.forward itself (own starter)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

OVERLAYS = Path(__file__).resolve().parents[2] / "tasks" / "mlagentbench"

# A starter of this test's own, in the original's interface, already vectorised; it writes
# a run time of 0.0 that the scorer must ignore.
TRAIN = """\
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


class Conv2DLayer:
    def __init__(self, c_in, c_out, k, stride, padding, activation="relu"):
        self.kernel_matrices = np.random.randn(k, k, c_in, c_out)
        self.biases = np.random.randn(1, 1, 1, c_out)
        self.stride, self.padding = stride, padding

    def forward(self, x):
        p, k = self.padding, self.kernel_matrices.shape[0]
        padded = np.pad(x, ((0, 0), (p, p), (p, p), (0, 0)))
        win = sliding_window_view(padded, (k, k), axis=(1, 2))[:, ::self.stride, ::self.stride]
        out = np.einsum("nhwcij,ijcf->nhwf", win, self.kernel_matrices) + self.biases
        return out * (out > 0)


if __name__ == "__main__":
    with open("submission.csv", "w") as f:
        f.write("0.0\\n")
"""


def test_the_harness_clock_scores_the_forward_pass(
    pytester: pytest.Pytester, mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    folder = pytester.path / "benchmarks" / "vectorization"
    (folder / "env").mkdir(parents=True)
    (folder / "scripts").mkdir()
    (folder / "env" / "train.py").write_text(TRAIN)
    (folder / "scripts" / "research_problem.txt").write_text("Make forward faster.\n")
    overlays = pytester.path / "overlays"
    shutil.copytree(OVERLAYS / "scorers", overlays / "scorers")
    overlay = (OVERLAYS / "vectorization.toml").read_text()
    (overlays / "vectorization.toml").write_text(
        overlay.replace('versions = { numpy = "<2.4" }', "").replace("runs = 3", "runs = 1"))
    result = pytester.runpytest("benchmarks", f"--mlab-overlays={overlays}", *mlab_args)
    (record,) = read_results()
    # The starter against its own measured time: the verdict is timing noise either way.
    assert record["outcome"] in ("passed", "failed"), result.stdout.str()
    assert 0.0 < record["score"] < 30.0  # seconds measured by the scorer, not the 0.0 written
    assert record["message"].startswith("vectorization: seconds=")
