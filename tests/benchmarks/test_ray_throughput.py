"""--mlab-dispatch=ray on a one-machine cluster against -n 2: the same outcomes, and
wall times within 20% of each other, on the CPU-bound lite selection.

Two trials per task: throughput is what is compared, and with one trial each (a minute of
work per core) Ray's fixed costs weigh as much as the work: the cluster's start (5-7 s)
and a pytest process per trial on its node (about 1.5 s each, against one per xdist
worker). Here, with one trial each: -n 2 70.6 s, Ray 94.5 s (1.34). With two, before the
trials kept their submitted order and before the nodes stopped writing a report of their
own: 0.93 (under other load) and 1.24; after: 1.10, 1.19, 1.14, and 0.98 (-n 2 104.7 s,
Ray 102.2 s; its trials themselves ran 9% faster than under -n 2 that time).

Run for figures: pytest tests/benchmarks/test_ray_throughput.py -p no:xdist -s
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).parent.parent.parent
CPU_BOUND = ("fashion-cnn", "contrails", "fashion-multilabel", "review-sentiment")
WITHIN = 0.20


def _run(tmp: Path, name: str, *extra: str) -> tuple[float, list[tuple[str, str]]]:
    reports = tmp / name
    command = [
        sys.executable, "-m", "pytest", *(f"tasks/lite/{task}" for task in CPU_BOUND),
        "--agent=oracle", "--mlab-trials=2", "-p", "no:cacheprovider", "-q",
        f"--mlab-cache-dir={tmp / 'cache'}",
        f"--mlab-report-dir={reports}", "--mlab-keep-workspaces=none", *extra,
    ]
    # The cluster listens on the loopback interface only.
    environ = os.environ | {"PYTEST_ADDOPTS": "", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
                              "RAY_USAGE_STATS_ENABLED": "0"}
    start = time.perf_counter()
    run = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=3000,
                         env=environ)
    seconds = time.perf_counter() - start
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    (results,) = reports.glob("*/results.json")
    records = json.loads(results.read_text())["results"]
    return seconds, sorted((r["nodeid"], r["outcome"]) for r in records)


@pytest.fixture(scope="module")
def timed_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The same selection with -n 2 and on a one-machine Ray cluster, after a warm-up."""
    pytest.importorskip("ray")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two usable cores")
    tmp = tmp_path_factory.mktemp("ray-throughput")
    _run(tmp, "warm-up", "--mlab-trials=1", "-n", "2")  # prepares, times; not counted
    parallel, local = _run(tmp, "xdist", "-n", "2")
    # Without an address the session starts a cluster of this machine's cores.
    cluster, remote = _run(tmp, "ray", "--mlab-dispatch=ray", "-p", "no:xdist")
    print(f"\n-n 2 {parallel:.1f} s, ray {cluster:.1f} s: ray/-n 2 {cluster / parallel:.2f} "
          f"(within {WITHIN:.0%}), load {os.getloadavg()}")
    return {"parallel": parallel, "local": local, "cluster": cluster, "remote": remote}


def test_a_one_machine_cluster_gives_the_outcomes_of_two_workers(
    timed_runs: dict[str, Any],
) -> None:
    assert timed_runs["remote"] == timed_runs["local"]


@pytest.mark.xfail(strict=False, reason=(
    "issue 17, open: Ray's fixed costs (cluster start, a pytest process per trial) leave "
    "little margin; 1.10, 1.19, 1.14 and 0.98 of -n 2 on this machine, where a trial's "
    "own time varies by up to 10% from run to run"))
def test_a_one_machine_cluster_keeps_up_with_two_workers(timed_runs: dict[str, Any]) -> None:
    parallel, cluster = timed_runs["parallel"], timed_runs["cluster"]
    assert abs(cluster - parallel) <= WITHIN * parallel
