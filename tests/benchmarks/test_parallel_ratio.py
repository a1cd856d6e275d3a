"""-n 2 against a serial run on the CPU-bound selection (cpu_bound.py), as a ratio of
wall times.

Each trial holds its share of the cores (pinned, thread pools sized to match), so two
workers no longer fight over every core. The warm-up times the trials, so the -n 2 runs
start them longest first. In collection order the two fashion-cnn trials (69 s each on
one core) queued on one worker and the run ended with one trial alone: 165.8 s against
224.4 s serial (1.35) here; longest first, 128.9 s against 216.7 s (1.68).
Two trials, not one: xdist deals every worker two items before it starts one, so with
four items the split is fixed at the start. With eight, idle workers take waiting trials.
The serial run is one; -n 2 is taken at the median of its runs (cpu_bound.py). On a day
when one trial gained 1.5x from its second core (fashion-cnn 40 s serial against 61 s on
one core), the ceiling, 2 / 1.5, was reached: serial 169.6 s, -n 2 120.7 and 134.8 s
(1.33 of their mean).

Run for figures: pytest tests/benchmarks/test_parallel_ratio.py -p no:xdist -s
"""

from __future__ import annotations

import os

import pytest
from cpu_bound import Selection, SideBySide

pytestmark = pytest.mark.slow
TARGET = 1.2
"""-n 2 at least this many times faster than serial (issue 17)."""


def test_two_workers_beat_a_serial_run(selection: Selection,
                                       parallel_runs: SideBySide) -> None:
    serial, _ = selection.run("serial", "-p", "no:xdist")
    parallel = parallel_runs.parallel
    ratio = serial / parallel.median
    print(f"\nserial {serial:.1f} s, -n 2 {parallel.shown()}: ratio {ratio:.2f} "
          f"(target {TARGET}) on {len(os.sched_getaffinity(0))} cores, load {os.getloadavg()}")
    assert ratio >= TARGET
