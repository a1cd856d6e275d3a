"""Timing a submission's 2-D convolution, each output checked against a trusted one: what
the vectorization scorers (the lite task's and the replacement for MLAgentBench's) share."""

from __future__ import annotations

import statistics
import time
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
    sentences it raises; ``relu``: the output is the convolution after a ReLU;
    ``yardstick``: the case ``relative_conv`` times its own loops on (None: ``timed``)."""

    timed: Case
    check: Case
    calls: int
    ready_timeout: float
    call_timeout: float
    total_timeout: float
    what: str
    relu: bool = False
    yardstick: Case | None = None


def reference_conv2d(
    x: np.ndarray, weights: np.ndarray, bias: np.ndarray, stride: int, padding: int
) -> np.ndarray:
    """Convolution and bias, every window at once, one contraction over (k, k, c_in)."""
    kh, kw = weights.shape[:2]
    padded = np.pad(x, ((0, 0), (padding, padding), (padding, padding), (0, 0)))
    windows = sliding_window_view(padded, (kh, kw), axis=(1, 2))[:, ::stride, ::stride]
    out: np.ndarray = np.einsum("nhwcij,ijcf->nhwf", windows, weights, optimize=True) + bias
    return out


def _draw(
    rng: np.random.Generator, case: Case
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """Fresh random x, weights and bias of ``case``'s shapes, with its stride and padding."""
    x_shape, w_shape, stride, padding = case
    x, weights = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    return x, weights, rng.standard_normal(w_shape[-1]), stride, padding


def _timed_call(
    child: TimedChild, rng: np.random.Generator, case: Case, name: str, timing: ConvTiming
) -> float:
    """One call on fresh random inputs; the parent-measured seconds, once the output is checked."""
    x, weights, bias, stride, padding = _draw(rng, case)
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
    workspace: Path, runner: Runner, program: ChildProgram, timing: ConvTiming,
    calls: int | None = None, total_timeout: float | None = None,
) -> float:
    """The least parent-timed seconds of ``calls`` (default ``timing.calls``) calls on fresh
    random inputs in one child, after its untimed call on the check case."""
    rng = np.random.default_rng()
    total = timing.total_timeout if total_timeout is None else total_timeout
    with start_timed_child(workspace, runner, program, total) as child:
        child.wait_until_ready(timing.ready_timeout)
        _timed_call(child, rng, timing.check, "check", timing)
        times = [_timed_call(child, rng, timing.timed, f"call{i}", timing)
                 for i in range(timing.calls if calls is None else calls)]
    return min(times)


def loop_conv2d(
    x: np.ndarray, weights: np.ndarray, bias: np.ndarray, stride: int, padding: int
) -> np.ndarray:
    """The lite starter's algorithm: Python loops over images, output pixels and filters,
    one numpy product-sum per output value. The scorer's yardstick for the machine's speed."""
    kh, kw, _, c_out = weights.shape
    padded = np.pad(x, ((0, 0), (padding, padding), (padding, padding), (0, 0)))
    h_out = (x.shape[1] + 2 * padding - kh) // stride + 1
    w_out = (x.shape[2] + 2 * padding - kw) // stride + 1
    out = np.zeros((x.shape[0], h_out, w_out, c_out))
    for n in range(x.shape[0]):
        for i in range(h_out):
            for j in range(w_out):
                window = padded[n, i * stride : i * stride + kh, j * stride : j * stride + kw]
                for f in range(c_out):
                    out[n, i, j, f] = np.sum(window * weights[:, :, :, f]) + bias[f]
    return out


def _fastest_yardstick(rng: np.random.Generator, case: Case, calls: int) -> float:
    times = []
    for _ in range(calls):
        inputs = _draw(rng, case)
        start = time.perf_counter()
        loop_conv2d(*inputs)
        times.append(time.perf_counter() - start)
    return min(times)


def relative_conv(
    workspace: Path, runner: Runner, program: ChildProgram, timing: ConvTiming,
    rounds: int = 3, yardstick_calls: int = 2,
) -> float:
    """The submission's time over the harness's own: ``timing.calls`` timed calls split over
    ``rounds`` fresh children, each child's fastest call divided by the fastest run of
    ``loop_conv2d`` (on ``timing.yardstick``) just before or after it; the median of the
    rounds.

    The yardstick runs only while no child is alive, so the submission's code cannot slow
    it down; pairing each child with the yardstick of that moment cancels the machine's
    drift, and the median outvotes a round that another job slowed."""
    rng = np.random.default_rng()
    started = time.monotonic()
    case = timing.timed if timing.yardstick is None else timing.yardstick
    yardsticks = [_fastest_yardstick(rng, case, yardstick_calls)]
    ratios = []
    for _ in range(rounds):
        left = timing.total_timeout - (time.monotonic() - started)
        fastest = fastest_conv(workspace, runner, program, timing,
                               calls=max(1, timing.calls // rounds), total_timeout=left)
        yardsticks.append(_fastest_yardstick(rng, case, yardstick_calls))
        ratios.append(fastest / min(yardsticks[-2:]))
    return statistics.median(ratios)
