"""Replacement scorer of MLAgentBench's vectorization task: the harness times
``Conv2DLayer.forward`` of the submission's train.py with its own clock, in the scoring
sandbox, and checks every output against a trusted convolution."""

from __future__ import annotations

from pathlib import Path

from pytest_mlab.taskkit.convolution import ConvTiming, fastest_conv
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
# after an untimed call with other shapes.
TIMING = ConvTiming(
    timed=((32, 64, 64, 3), (3, 3, 3, 8), 2, 2), check=((2, 13, 11, 4), (4, 4, 4, 5), 3, 1),
    calls=3, ready_timeout=60.0, call_timeout=240.0, total_timeout=570.0,
    what="Conv2DLayer.forward", relu=True,
)


def score(workspace: Path, private: Path, runner: Runner) -> float:
    """Least harness-timed seconds of one forward pass over fresh random batches."""
    return fastest_conv(workspace, runner, PROGRAM, TIMING)
