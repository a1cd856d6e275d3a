"""Replacement scorer of MLAgentBench's vectorization task: the harness times
``Conv2DLayer.forward`` of the submission's train.py with its own clock, in the scoring
sandbox, checks every output against a trusted convolution, and divides the time by its
own loop convolution's, timed beside it (a machine's speed drifts by more than the 10% bar
between runs minutes apart)."""

from __future__ import annotations

from pathlib import Path

from pytest_mlab.taskkit.convolution import ConvTiming, relative_conv
from pytest_mlab.taskkit.timed_child import ChildProgram, Runner

_ADAPTER = r"""
def call(fn, inputs, context):
    w = inputs["weights"]
    k, _, c_in, c_out = w.shape
    layer = fn(c_in, c_out, k, int(inputs["stride"]), int(inputs["padding"]), "relu")
    layer.kernel_matrices = w
    layer.biases = inputs["bias"].reshape(1, 1, 1, c_out)
    return layer.forward(inputs["x"])
"""
PROGRAM = ChildProgram(function="Conv2DLayer", adapter=_ADAPTER)
# The starter's own benchmark: Conv2DLayer(3, 8, 3, 2, 2, 'relu') on a (32, 64, 64, 3) batch,
# after an untimed call with other shapes; the yardstick is a smaller loop convolution
# (about a quarter of a second), which measures the machine as well in less time.
TIMING = ConvTiming(
    timed=((32, 64, 64, 3), (3, 3, 3, 8), 2, 2), check=((2, 13, 11, 4), (4, 4, 4, 5), 3, 1),
    calls=6, ready_timeout=60.0, call_timeout=240.0, total_timeout=570.0,
    what="Conv2DLayer.forward", relu=True, yardstick=((4, 32, 32, 8), (3, 3, 8, 16), 1, 1),
)


def score(workspace: Path, private: Path, runner: Runner) -> float:
    """Harness-timed forward passes on fresh random batches, in three children, each
    child's fastest over the yardstick timed beside it; the median."""
    return relative_conv(workspace, runner, PROGRAM, TIMING)
