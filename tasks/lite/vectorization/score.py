"""Time the workspace's conv2d_forward with the scorer's own clock and check its output.

The agent's code runs in a child process (pytest_mlab.taskkit.timed_child) that only
sees input files and writes output files; the parent owns the clock and the reference,
so nothing the workspace prints, writes or patches can change the measured time or the
verdict.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from pytest_mlab import InvalidSubmission
from pytest_mlab.taskkit import child_guard
from pytest_mlab.taskkit.timed_child import ChildProgram, Runner, TimedChild, start_timed_child

# Many short calls rather than a few long ones: on a shared machine the fastest of them
# is the one least slowed by other jobs, which keeps the starter's baseline steady.
TIMED_CALLS = 6
X_SHAPE = (4, 32, 32, 8)
W_SHAPE = (3, 3, 8, 16)
STRIDE, PADDING = 1, 1
# An untimed call with other shapes, so a function that only handles the timed case fails.
CHECK_X_SHAPE = (3, 11, 9, 5)
CHECK_W_SHAPE = (4, 4, 5, 7)
CHECK_STRIDE, CHECK_PADDING = 2, 2
READY_TIMEOUT = 60.0
CALL_TIMEOUT = 120.0
# Stays under the task's score_timeout so a slow submission is rejected, not an infra error.
TOTAL_TIMEOUT = 270.0

# numpy's BLAS runs one thread, as the submission must.
CHILD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

# The child's part: numpy only, one thread (child_guard), installed before train.py is
# imported; one input file holds x, weights, bias, stride and padding.
_ADAPTER = child_guard.source() + r"""
SETUP_FAILURE = "Starting the scoring process failed"

def setup(workspace):
    import numpy.lib.format, zipfile  # what the driver's np.load and np.save use
    install(proto.fileno(), allowed=("numpy",), denied=DENIED_EXTRA,
            library_dirs=(os.path.dirname(np.__file__),))

def call(fn, inputs, context):
    x, w, b = inputs["x"], inputs["weights"], inputs["bias"]
    return fn(x, w, b, int(inputs["stride"]), int(inputs["padding"]))
"""
PROGRAM = ChildProgram(function="conv2d_forward", adapter=_ADAPTER, env=CHILD_ENV)


def reference(
    x: np.ndarray, weights: np.ndarray, bias: np.ndarray, stride: int, padding: int
) -> np.ndarray:
    """The trusted convolution: every window at once, one contraction over (k, k, c_in)."""
    kh, kw = weights.shape[:2]
    padded = np.pad(x, ((0, 0), (padding, padding), (padding, padding), (0, 0)))
    windows = sliding_window_view(padded, (kh, kw), axis=(1, 2))[:, ::stride, ::stride]
    out: np.ndarray = np.einsum("nhwcij,ijcf->nhwf", windows, weights, optimize=True) + bias
    return out


def _timed_conv(
    child: TimedChild,
    rng: np.random.Generator,
    shapes: tuple[tuple[int, ...], tuple[int, ...]],
    stride: int,
    padding: int,
    name: str,
) -> float:
    """One call on fresh random inputs; the parent-measured seconds, once the output is checked."""
    x_shape, w_shape = shapes
    x, weights = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    bias = rng.standard_normal(w_shape[-1])
    inputs = {"x": x, "weights": weights, "bias": bias, "stride": stride, "padding": padding}
    elapsed, out = child.call(inputs, name, CALL_TIMEOUT)
    want = reference(x, weights, bias, stride, padding)
    if out.shape != want.shape:
        raise InvalidSubmission(
            f"conv2d_forward returned shape {out.shape}, expected {want.shape}."
        )
    numeric = np.issubdtype(out.dtype, np.floating)
    if not numeric or not np.allclose(out, want, rtol=1e-5, atol=1e-6):
        raise InvalidSubmission("conv2d_forward returned values that differ from the reference.")
    return elapsed


def score(workspace: Path, private: Path, runner: Runner) -> float:
    """Minimum over six fresh random inputs of the parent-timed seconds of one forward pass."""
    rng = np.random.default_rng()
    with start_timed_child(workspace, runner, PROGRAM, TOTAL_TIMEOUT) as child:
        child.wait_until_ready(READY_TIMEOUT)
        check_shapes = (CHECK_X_SHAPE, CHECK_W_SHAPE)
        _timed_conv(child, rng, check_shapes, CHECK_STRIDE, CHECK_PADDING, "check")
        times = [
            _timed_conv(child, rng, (X_SHAPE, W_SHAPE), STRIDE, PADDING, f"call{i}")
            for i in range(TIMED_CALLS)
        ]
    return min(times)
