"""Time the workspace's conv2d_forward with the scorer's own clock, against a yardstick
timed beside it, and check its output.

The agent's code runs in a child process (pytest_mlab.taskkit.timed_child) that only
sees input files and writes output files; the parent owns the clock, the reference and
the yardstick, so nothing the workspace prints, writes or patches can change the measured
time or the verdict.
"""

from __future__ import annotations

from pathlib import Path

from pytest_mlab.taskkit import child_guard
from pytest_mlab.taskkit.convolution import ConvTiming, relative_conv
from pytest_mlab.taskkit.timed_child import ChildProgram, Runner

# numpy's BLAS runs one thread, as the submission must.
CHILD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

# The child's part: numpy only (child_guard), installed before train.py is imported, and
# one thread, watched from outside (one_thread); one input file holds x, weights, bias,
# stride and padding.
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
PROGRAM = ChildProgram(function="conv2d_forward", adapter=_ADAPTER, env=CHILD_ENV,
                       one_thread=True)
TIMING = ConvTiming(
    timed=((16, 32, 32, 8), (3, 3, 8, 16), 1, 1),
    # Other shapes, stride and padding, so a function that only handles the timed case fails.
    check=((3, 11, 9, 5), (4, 4, 5, 7), 2, 2),
    # Many short calls rather than a few long ones: on a shared machine the fastest of them
    # is the one least slowed by other jobs, which keeps the starter's baseline steady.
    calls=6,
    ready_timeout=60.0,
    call_timeout=120.0,
    # Under the task's score_timeout, so a slow submission is rejected, not an infra error.
    total_timeout=270.0,
    what="conv2d_forward",
)


def score(workspace: Path, private: Path, runner: Runner) -> float:
    """Six parent-timed forward passes on fresh random inputs, in three children, each
    child's fastest over the harness's own loop convolution timed beside it; the median
    (a machine's speed drifts by tens of percent between runs; the ratio does not)."""
    return relative_conv(workspace, runner, PROGRAM, TIMING)
