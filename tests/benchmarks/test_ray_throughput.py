"""--mlab-dispatch=ray on a one-machine cluster against -n 2: the same outcomes, and
wall times within 20% of each other, on the CPU-bound selection (cpu_bound.py).

The cluster is started once, before the runs, as a user's cluster is there before their
runs: it is throughput that is compared, and a cluster's start (3-5 s here) is a cost
once per session, not per trial; the test prints it. A session's own Ray costs all
count: its job's workers start, and each trial is a pytest process of its own on the
node (about 1 s more per trial than a warm xdist worker).

Figures here, each Ray session starting its own cluster, one run each way: 1.10, 1.19,
1.14, 0.98, 1.2 and 1.09 of -n 2 (the first trial began 9 s into a Ray run, under 2 s
into an xdist one). With the cluster started before and the best of two runs each: 1.07
(the mean of the two, 1.14: one Ray run's trials took 14% longer than the other's).

Run for figures: pytest tests/benchmarks/test_ray_throughput.py -p no:xdist -s
"""

from __future__ import annotations

import os

import pytest
from cpu_bound import SideBySide, Timed

pytestmark = pytest.mark.slow
WITHIN = 0.20


@pytest.fixture(scope="module")
def both(parallel_runs: SideBySide) -> tuple[Timed, Timed]:
    if parallel_runs.cluster is None:
        pytest.skip("needs Ray: pip install 'pytest-mlab[ray]'")
    parallel, cluster = parallel_runs.parallel, parallel_runs.cluster
    print(f"\n-n 2 {parallel.shown()}, ray {cluster.shown()}: best ray/-n 2 "
          f"{cluster.best / parallel.best:.2f} (within {WITHIN:.0%}), mean "
          f"{cluster.mean / parallel.mean:.2f}; the cluster started in "
          f"{parallel_runs.cluster_start:.1f} s; load {os.getloadavg()}")
    return parallel, cluster


def test_a_one_machine_cluster_gives_the_outcomes_of_two_workers(
    both: tuple[Timed, Timed],
) -> None:
    parallel, cluster = both
    assert cluster.outcomes == parallel.outcomes


def test_a_one_machine_cluster_keeps_up_with_two_workers(both: tuple[Timed, Timed]) -> None:
    parallel, cluster = both
    assert abs(cluster.best - parallel.best) <= WITHIN * parallel.best
