"""Timing a submission's 2-D convolution, each output checked against a trusted one: what
the vectorization scorers (the lite task's and the replacement for MLAgentBench's) share."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from pytest_mlab.core.errors import InvalidSubmission
from pytest_mlab.taskkit.timed_child import ChildProgram, Runner, TimedChild, start_timed_child

Case = tuple[tuple[int, ...], tuple[int, ...], int, int]
"""Shapes of x (batch, height, width, c_in) and weights (k, k, c_in, c_out), stride, padding."""


@dataclass(frozen=True)
class ConvTiming:
    """What a scorer times: ``calls`` calls on ``timed`` inputs after one untimed call on
    ``check`` inputs, with its timeouts; ``what`` names the submission's function in the
    sentences it raises; ``relu``: the output is the convolution after a ReLU."""

    timed: Case
    check: Case
    calls: int
    ready_timeout: float
    call_timeout: float
    total_timeout: float
    what: str
    relu: bool = False


def reference_conv2d(
    x: np.ndarray, weights: np.ndarray, bias: np.ndarray, stride: int, padding: int
) -> np.ndarray:
    """Convolution and bias, every window at once, one contraction over (k, k, c_in)."""
    kh, kw = weights.shape[:2]
    padded = np.pad(x, ((0, 0), (padding, padding), (padding, padding), (0, 0)))
    windows = sliding_window_view(padded, (kh, kw), axis=(1, 2))[:, ::stride, ::stride]
    out: np.ndarray = np.einsum("nhwcij,ijcf->nhwf", windows, weights, optimize=True) + bias
    return out


def _timed_call(
    child: TimedChild, rng: np.random.Generator, case: Case, name: str, timing: ConvTiming
) -> float:
    """One call on fresh random inputs; the parent-measured seconds, once the output is checked."""
    x_shape, w_shape, stride, padding = case
    x, weights = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    bias = rng.standard_normal(w_shape[-1])
    inputs: dict[str, Any] = {"x": x, "weights": weights, "bias": bias, "stride": stride,
                              "padding": padding}
    elapsed, out = child.call(inputs, name, timing.call_timeout)
    want = reference_conv2d(x, weights, bias, stride, padding)
    if timing.relu:
        want = np.maximum(want, 0.0)
    if out.shape != want.shape:
        raise InvalidSubmission(
            f"{timing.what} returned shape {out.shape}, expected {want.shape}.")
    numeric = np.issubdtype(out.dtype, np.floating)
    if not numeric or not np.allclose(out, want, rtol=1e-5, atol=1e-6):
        raise InvalidSubmission(f"{timing.what} returned values that differ from the "
                                "reference convolution.")
    return elapsed


def fastest_conv(
    workspace: Path, runner: Runner, program: ChildProgram, timing: ConvTiming
) -> float:
    """The least parent-timed seconds of ``timing.calls`` calls on fresh random inputs."""
    rng = np.random.default_rng()
    with start_timed_child(workspace, runner, program, timing.total_timeout) as child:
        child.wait_until_ready(timing.ready_timeout)
        _timed_call(child, rng, timing.check, "check", timing)
        times = [_timed_call(child, rng, timing.timed, f"call{i}", timing)
                 for i in range(timing.calls)]
    return min(times)
