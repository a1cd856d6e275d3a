"""--mlab-dispatch=ray on a one-machine cluster against -n 2: the same outcomes, and
wall times within 20% of each other, on the CPU-bound selection (cpu_bound.py).

The cluster is started once, before the runs, as a user's cluster is there before their
runs: it is throughput that is compared, and a cluster's start (3-5 s here) is a cost
once per session, not per trial; the test prints it. A session's own Ray costs all
count: its job's workers start, and each trial is a pytest process of its own on the
node (about 1 s more per trial than a warm xdist worker).

Figures here, each Ray session starting its own cluster, one run each way: 1.10, 1.19,
1.14, 0.98, 1.2 and 1.09 of -n 2 (the first trial began 9 s into a Ray run, under 2 s
into an xdist one). With the cluster started before, two runs each way (-n 2 / Ray,
seconds): 114.8 + 113.0 / 120.9 + 138.7, 120.7 + 134.8 / 127.6 + 130.3, and in a CI run
131.8 + 108.7 / 123.3 + 126.0: the best of each 1.07, 1.06 and 1.13, the means 1.14,
1.01 and 1.04. One slowed run swung either, hence three runs each and their medians:
127.4 + 131.6 + 132.6 / 146.3 + 154.7 + 152.9 s, 1.16, in a session where every Ray
run's trials took 9-10% longer in sum than every -n 2 run's (259.6-273.6 s against
236.1-249.4 s), and the cluster's own costs added about 8 s more than xdist's.

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
    print(f"\n-n 2 {parallel.shown()}, ray {cluster.shown()}: median ray/-n 2 "
          f"{cluster.median / parallel.median:.2f} (within {WITHIN:.0%}); the cluster "
          f"started in {parallel_runs.cluster_start:.1f} s; load {os.getloadavg()}")
    return parallel, cluster


def test_a_one_machine_cluster_gives_the_outcomes_of_two_workers(
    both: tuple[Timed, Timed],
) -> None:
    parallel, cluster = both
    assert cluster.outcomes == parallel.outcomes


@pytest.mark.xfail(strict=False, reason=(
    "issue 17, open: the margin is thin and not steady. Medians of three runs each came to "
    "1.16 of -n 2 in one session, where Ray's trials themselves ran 10% slower than "
    "under -n 2 in every run; earlier, two runs each gave 1.01-1.14 (means) and "
    "1.06-1.13 (best). Why a trial runs slower on the cluster on some days is not known yet"))
def test_a_one_machine_cluster_keeps_up_with_two_workers(both: tuple[Timed, Timed]) -> None:
    parallel, cluster = both
    assert abs(cluster.median - parallel.median) <= WITHIN * parallel.median
