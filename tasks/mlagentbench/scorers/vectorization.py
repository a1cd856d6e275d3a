"""Replacement scorer of MLAgentBench's vectorization task: the harness times
``Conv2DLayer.forward`` of the submission's train.py with its own clock, in the scoring
sandbox, and checks every output against a trusted convolution."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from pytest_mlab import InvalidSubmission
from pytest_mlab.taskkit.timed_child import ChildProgram, Runner, TimedChild, start_timed_child

TIMED_CALLS = 3
# The starter's own benchmark: Conv2DLayer(3, 8, 3, 2, 2, 'relu') on a (32, 64, 64, 3) batch.
TIMED = ((32, 64, 64, 3), (3, 3, 3, 8), 2, 2)
CHECK = ((2, 13, 11, 4), (4, 4, 4, 5), 3, 1)
READY_TIMEOUT = 60.0
CALL_TIMEOUT = 240.0
TOTAL_TIMEOUT = 570.0

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


def reference(x: np.ndarray, weights: np.ndarray, bias: np.ndarray, stride: int,
              padding: int) -> np.ndarray:
    """Convolution, bias and ReLU, every window at once."""
    k = weights.shape[0]
    padded = np.pad(x, ((0, 0), (padding, padding), (padding, padding), (0, 0)))
    windows = sliding_window_view(padded, (k, k), axis=(1, 2))[:, ::stride, ::stride]
    out: np.ndarray = np.einsum("nhwcij,ijcf->nhwf", windows, weights, optimize=True) + bias
    return np.maximum(out, 0.0)


def _call(child: TimedChild, rng: np.random.Generator,
          case: tuple[tuple[int, ...], tuple[int, ...], int, int], name: str) -> float:
    x_shape, w_shape, stride, padding = case
    x, weights = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    bias = rng.standard_normal(w_shape[-1])
    inputs = {"x": x, "weights": weights, "bias": bias, "stride": stride, "padding": padding}
    elapsed, out = child.call(inputs, name, CALL_TIMEOUT)
    want = reference(x, weights, bias, stride, padding)
    if out.shape != want.shape:
        raise InvalidSubmission(f"Conv2DLayer.forward returned shape {out.shape}, "
                                f"expected {want.shape}.")
    if not np.issubdtype(out.dtype, np.floating) or not np.allclose(out, want, rtol=1e-5,
                                                                    atol=1e-6):
        raise InvalidSubmission("Conv2DLayer.forward returned values that differ from the "
                                "reference convolution.")
    return elapsed


def score(workspace: Path, private: Path, runner: Runner) -> float:
    """Least harness-timed seconds of one forward pass over fresh random batches."""
    rng = np.random.default_rng()
    with start_timed_child(workspace, runner, PROGRAM, TOTAL_TIMEOUT) as child:
        child.wait_until_ready(READY_TIMEOUT)
        _call(child, rng, CHECK, "check")
        return min(_call(child, rng, TIMED, f"call{i}") for i in range(TIMED_CALLS))
