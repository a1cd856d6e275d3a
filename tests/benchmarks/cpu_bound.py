"""The CPU-bound lite selection of issue 17, timed in each way it can run: serially, with
-n 2, and on a one-machine Ray cluster.

Four lite tasks with the oracle agent, two trials each. One warm-up run, not counted,
prepares the data and times the trials, so that parallel runs start the longest first.
On this shared machine a run now and then is slowed as a whole (two runs of one way, back
to back, differed by 14% and by 21%), as much as the margins compared. So the two
parallel ways alternate, three runs each, and each way is taken at its median run, which
sets such a run aside without favouring either way.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import loopback_ray
import pytest

REPO = Path(__file__).parent.parent.parent
TASKS = ("fashion-cnn", "contrails", "fashion-multilabel", "review-sentiment")
ROUNDS = 3

Outcomes = list[tuple[str, str]]


@dataclass
class Timed:
    """One way's runs: wall seconds and the outcome of each trial, run by run."""

    seconds: list[float] = field(default_factory=list)
    outcomes: list[Outcomes] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    def shown(self) -> str:
        return " + ".join(f"{seconds:.1f}" for seconds in self.seconds) + " s"


@dataclass(frozen=True)
class Selection:
    """The selection, its data prepared in ``folder`` (the warm-up's cache)."""

    folder: Path

    def run(self, name: str, *extra: str) -> tuple[float, Outcomes]:
        reports = self.folder / name
        command = [
            sys.executable, "-m", "pytest", *(f"tasks/lite/{task}" for task in TASKS),
            "--agent=oracle", "--mlab-trials=2", "-p", "no:cacheprovider", "-q",
            f"--mlab-cache-dir={self.folder / 'cache'}", f"--mlab-report-dir={reports}",
            "--mlab-keep-workspaces=none", *extra,
        ]
        start = time.perf_counter()
        run = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=3000,
                             env=os.environ | {"PYTEST_ADDOPTS": ""} | loopback_ray.VARIABLES)
        seconds = time.perf_counter() - start
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
        (results,) = reports.glob("*/results.json")
        records = json.loads(results.read_text())["results"]
        return seconds, sorted((r["nodeid"], r["outcome"]) for r in records)

    def time(self, timed: Timed, name: str, *extra: str) -> None:
        seconds, outcomes = self.run(name, *extra)
        timed.seconds.append(seconds)
        timed.outcomes.append(outcomes)


@dataclass
class SideBySide:
    """-n 2's runs, and the cluster's where Ray is installed, alternating."""

    parallel: Timed
    cluster: Timed | None
    cluster_start: float
    """Seconds the cluster took to start, before the runs."""


@contextmanager
def one_machine_cluster() -> Iterator[tuple[str | None, float]]:
    """A Ray head with this process's cores on the loopback interface, started before the
    runs as a user's cluster is: its address (None without Ray) and its start in seconds."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in loopback_ray.VARIABLES.items():
            patch.setenv(name, value)
        try:
            from ray import cluster_utils
        except ImportError:
            yield None, 0.0
            return
        start = time.perf_counter()
        cluster = cluster_utils.Cluster(initialize_head=True, head_node_args={
            "num_cpus": len(os.sched_getaffinity(0)), **loopback_ray.NODE})
        try:
            cluster.wait_for_nodes()
            yield cluster.address, time.perf_counter() - start
        finally:
            cluster.shutdown()  # type: ignore[no-untyped-call]


def side_by_side(selection: Selection) -> SideBySide:
    """ROUNDS runs with -n 2 and, where Ray is installed, as many on a one-machine
    cluster, alternating; the cluster is gone once they end."""
    parallel = Timed()
    with one_machine_cluster() as (address, started):
        cluster = Timed() if address else None
        for round_ in range(ROUNDS):
            selection.time(parallel, f"xdist-{round_}", "-n", "2")
            if cluster is not None:
                selection.time(cluster, f"ray-{round_}", f"--mlab-dispatch=ray:{address}",
                               "-p", "no:xdist")
    return SideBySide(parallel, cluster, started)
