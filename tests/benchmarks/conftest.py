"""The timed runs of the CPU-bound selection, shared by the ratio benchmarks."""

from __future__ import annotations

import os

import pytest
from cpu_bound import Selection, SideBySide, side_by_side


@pytest.fixture(scope="session")
def selection(tmp_path_factory: pytest.TempPathFactory) -> Selection:
    """The selection after its warm-up, on a machine with two usable cores."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two usable cores")
    prepared = Selection(tmp_path_factory.mktemp("cpu-bound"))
    prepared.run("warm-up", "--mlab-trials=1", "-n", "2")
    return prepared


@pytest.fixture(scope="session")
def parallel_runs(selection: Selection) -> SideBySide:
    return side_by_side(selection)
