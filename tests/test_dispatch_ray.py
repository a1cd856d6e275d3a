"""--mlab-dispatch=ray on a local cluster of a head and two worker nodes, each holding one
trial at a time (one declared CPU); the second also declares a GPU."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import loopback_ray
import pytest
from docker_engine import require_docker_engine
from llm_server import LLMServer, Reply
from loopback_ray import ClusterProcess
from react_trial import answer

from pytest_mlab.plugin.dispatch.remote_scratch import scratch_root

pytestmark = pytest.mark.slow
GIB = 1 << 30
GPU_NODE = {"num_cpus": 1, "num_gpus": 1, "memory": 8 * GIB}


@dataclass
class Cluster:
    """The keeper of the cluster, and the node declared with a GPU."""

    nodes: ClusterProcess
    gpu_node: str

    @property
    def address(self) -> str:
        return self.nodes.address


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """Head (no CPUs for trials), node A (1 CPU), node B (1 CPU and 1 declared GPU), all
    on the loopback interface (the variable keeps Ray from swapping in another one)."""
    if importlib.util.find_spec("ray") is None:
        pytest.skip("Ray is not installed: pip install 'pytest-mlab[ray]'")
    os.environ.update(loopback_ray.VARIABLES)  # read by the controllers the tests start
    nodes = ClusterProcess(num_cpus=0)
    try:
        nodes.add_node(num_cpus=1, memory=8 * GIB)
        yield Cluster(nodes, nodes.add_node(**GPU_NODE))
    finally:
        nodes.shutdown()


def _where(pytester: pytest.Pytester) -> dict[str, list[str]]:
    (path,) = pytester.path.glob("reports/*/dispatch.json")
    nodes: dict[str, list[str]] = json.loads(path.read_text())["nodes"]
    return nodes


def test_more_trials_than_a_node_holds_end_as_locally(
    pytester: pytest.Pytester, cluster: Cluster, recorded: Callable[[str], Path],
    mlab_args: list[str], read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    recorded("guess")
    args = ["tasks", "--agent=oracle", "--agent=baseline", "--mlab-trials=2", *mlab_args]
    pytester.runpytest_subprocess(*args, f"--mlab-dispatch=ray:{cluster.address}",
                                  timeout=600).assert_outcomes(passed=2, failed=2)
    remote = read_results()
    assert len({node for nodes in _where(pytester).values() for node in nodes}) == 2
    for record in remote:  # the trial's files came back to the controller's run folder
        assert Path(record["trace"]).is_file(), record["trace"]
    pytester.runpytest_subprocess(*args).assert_outcomes(passed=2, failed=2)
    local = read_results()
    assert [(r["nodeid"], r["outcome"], r["message"]) for r in remote] == [
        (r["nodeid"], r["outcome"], r["message"]) for r in local
    ]


def _gpu_trials_on_the_cluster(pytester: pytest.Pytester, cluster: Cluster, root: Path,
                               trials: int, mlab_args: list[str]) -> None:
    """Run ``trials`` oracle trials of the task at ``root``, made to ask for a GPU."""
    manifest = root / "task.toml"
    manifest.write_text(manifest.read_text().replace("[baseline]",
                                                     "[resources]\ngpus = 1\n\n[baseline]"))
    pytester.runpytest_subprocess(
        "tasks", "--agent=oracle", f"--mlab-trials={trials}", *mlab_args,
        f"--mlab-dispatch=ray:{cluster.address}", timeout=600,
    ).assert_outcomes(passed=trials)


def test_a_gpu_task_runs_only_where_a_gpu_is_declared(
    pytester: pytest.Pytester, cluster: Cluster, recorded: Callable[[str], Path],
    mlab_args: list[str],
) -> None:
    _gpu_trials_on_the_cluster(pytester, cluster, recorded("guess"), 2, mlab_args)
    gpu_node = cluster.gpu_node[:12]
    assert all(nodes == [nodes[0]] and gpu_node in nodes[0]
               for nodes in _where(pytester).values()), _where(pytester)


def _first_step(trace: Path) -> float:
    started: float = json.loads(trace.read_text().splitlines()[0])["started"]
    return started


@pytest.mark.expensive
def test_trials_that_wait_for_one_node_start_in_the_order_submitted(
    pytester: pytest.Pytester, cluster: Cluster, recorded: Callable[[str], Path],
    mlab_args: list[str], read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    """The controller submits the longest first (here, none timed: collection order);
    the cluster must keep that order. Every ray.remote() was a scheduling class of its
    own, and Ray started those in no set order."""
    # Only the GPU node takes them: one at a time.
    _gpu_trials_on_the_cluster(pytester, cluster, recorded("guess"), 6, mlab_args)
    records = sorted(read_results(), key=lambda r: _first_step(Path(r["trace"])))
    assert [r["trial"] for r in records] == list(range(6)), [r["nodeid"] for r in records]


def _lose_a_node_mid_run(
    pytester: pytest.Pytester, cluster: Cluster, mlab_args: list[str],
    monkeypatch: pytest.MonkeyPatch, *extra: str,
) -> str:
    """Two waiting trials, one on each worker node; the GPU node is removed once both have
    started (and added again after the run). Returns the lost node's id."""
    probes = pytester.mkdir("probes")
    monkeypatch.setenv("MLAB_PROBE_DIR", str(probes))  # reaches the nodes' sessions
    output = (pytester.path / "output.txt").open("w")
    run = pytester.popen([
        sys.executable, "-m", "pytest", "tasks", "--agent=scripted_agents:WaitingAgent",
        "--mlab-trials=2", "--mlab-isolation=none", "--mlab-allow-weak-sandbox", *mlab_args,
        f"--mlab-dispatch=ray:{cluster.address}", *extra,
    ], stdout=output, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while len(list(probes.iterdir())) < 2 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert len(list(probes.iterdir())) == 2, "the two trials never started"
    doomed = cluster.gpu_node
    cluster.nodes.remove_node(doomed)
    try:
        run.wait(timeout=300)
    finally:
        output.close()
        cluster.gpu_node = cluster.nodes.add_node(**GPU_NODE)
    return doomed[:12]


@pytest.mark.expensive
def test_a_lost_node_errors_its_trial_naming_it_and_the_run_goes_on(
    pytester: pytest.Pytester, cluster: Cluster, recorded: Callable[[str], Path],
    mlab_args: list[str], read_results: Callable[[], list[dict[str, Any]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorded("guess")
    lost = _lose_a_node_mid_run(pytester, cluster, mlab_args, monkeypatch)
    outcomes = sorted((r["outcome"], r["message"]) for r in read_results())
    assert [outcome for outcome, _ in outcomes] == ["error", "failed"], (
        outcomes, (pytester.path / "output.txt").read_text()[-3000:])
    assert lost in outcomes[0][1]


@pytest.mark.expensive
def test_a_trial_lost_with_its_node_runs_again_with_retries(
    pytester: pytest.Pytester, cluster: Cluster, recorded: Callable[[str], Path],
    mlab_args: list[str], read_results: Callable[[], list[dict[str, Any]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorded("guess")
    lost = _lose_a_node_mid_run(pytester, cluster, mlab_args, monkeypatch,
                                "--mlab-ray-retries=1")
    outcomes = [r["outcome"] for r in read_results()]
    assert outcomes == ["failed", "failed"], (
        read_results(), (pytester.path / "output.txt").read_text()[-3000:])
    # The retried trial ran twice: first on the lost node, then on another one.
    runs = [nodes for nodes in _where(pytester).values() if len(nodes) == 2]
    assert len(runs) == 1 and lost in runs[0][0] and lost not in runs[0][1], _where(pytester)
    assert len(list((pytester.path / "probes").iterdir())) == 3


def test_a_killed_worker_ends_its_trials_session_and_the_next_trial_clears_its_folder(
    pytester: pytest.Pytester, cluster: Cluster, recorded: Callable[[str], Path],
    mlab_args: list[str], read_results: Callable[[], list[dict[str, Any]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The OOM killer's case: one trial's Ray worker dies, its node lives. The trial is an
    error naming the node; its session does not run on unseen, and removes its container
    on the way out; what it left in the node's temporary folder goes once another trial
    starts there."""
    require_docker_engine()
    import docker

    recorded("guess")
    # Each of its 10 steps waits 6 s: a session that outlived its worker would be seen.
    monkeypatch.setenv("MLAB_WAIT_SECONDS", "6")
    probes = pytester.mkdir("probes")
    monkeypatch.setenv("MLAB_PROBE_DIR", str(probes))
    run = pytester.popen([
        sys.executable, "-m", "pytest", "tasks", "--agent=scripted_agents:WaitingAgent",
        "--mlab-trials=2", "--mlab-sandbox=docker", *mlab_args,
        f"--mlab-dispatch=ray:{cluster.address}",
    ], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while len(list(probes.iterdir())) < 2 and time.monotonic() < deadline:
        time.sleep(0.5)
    session, worker, run_id, _ = next(probes.iterdir()).read_text().split()
    os.kill(int(worker), signal.SIGKILL)
    killed = time.monotonic()
    while Path(f"/proc/{session}").exists() and time.monotonic() < killed + 40:
        time.sleep(0.2)
    assert not Path(f"/proc/{session}").exists(), "the trial's session ran on"
    running = docker.from_env().containers.list(
        all=True, filters={"label": f"pytest-mlab.run={run_id}"})
    assert len(running) == 1, running  # the other trial's, which still runs
    (pytester.path / "release").touch()  # the other trial need not wait its minute out
    assert run.wait(timeout=300) == 1
    records = sorted(read_results(), key=lambda r: r["outcome"])
    assert [r["outcome"] for r in records] == ["error", "failed"], records
    assert "lost the worker on node " in records[0]["message"], records[0]["message"]
    pytester.runpytest_subprocess("tasks", "--agent=oracle", *mlab_args,
                                  f"--mlab-dispatch=ray:{cluster.address}", timeout=600,
                                  ).assert_outcomes(passed=1)
    left = list(scratch_root().glob(f"*/reports/{run_id}"))
    assert left == [], left


@pytest.mark.expensive
def test_docker_trials_side_by_side_on_one_machine_keep_their_containers(
    pytester: pytest.Pytester, cluster: Cluster, recorded: Callable[[str], Path],
    mlab_args: list[str], read_results: Callable[[], list[dict[str, Any]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Both worker nodes use this machine's Docker engine. The trial that ends first
    clears what its session left, and must leave the other trial's container alone: it
    was removed, and the other's next script was killed (a failure read as the agent's)."""
    require_docker_engine()
    recorded("guess")
    monkeypatch.setenv("MLAB_PROBE_DIR", str(pytester.mkdir("probes")))
    pytester.runpytest_subprocess(
        "tasks", "--agent=oracle", "--agent=scripted_agents:WaitingAgent",
        "--mlab-sandbox=docker",
        *mlab_args, f"--mlab-dispatch=ray:{cluster.address}", timeout=600)
    outcomes = sorted((r["agent"], r["outcome"], r["message"]) for r in read_results())
    assert [outcome for _, outcome, _ in outcomes] == ["passed", "failed"], outcomes


def test_the_session_cost_cap_counts_what_every_node_spent(
    pytester: pytest.Pytester, cluster: Cluster, recorded: Callable[[str], Path],
    mlab_args: list[str], read_results: Callable[[], list[dict[str, Any]]],
    server: LLMServer,
) -> None:
    recorded("guess")
    # Each trial's first call fits its budget and, as its usage says, spends all of it.
    spends_all = Reply(answer("List Files", {"dir_path": "."}).content, usage=(19_990, 10))
    server.script.replies += [spends_all] * 3
    # Two trials start at once, one a node, and spend past the cap; the third starts on
    # whichever node frees first, whose own sessions never spent a thing there.
    pytester.runpytest_subprocess(
        "tasks", "--agent=react", "--llm=gpt-4", f"--mlab-llm-api-base={server.url}",
        "--mlab-llm-backoff=0.01", "--mlab-trials=3", "--mlab-max-tokens=20000",
        "--mlab-max-session-cost=0.000001", *mlab_args,
        f"--mlab-dispatch=ray:{cluster.address}", timeout=600,
    ).assert_outcomes(failed=2, skipped=1)
    skipped = [r for r in read_results() if r["outcome"] == "skipped"]
    assert "the session's LLM budget of $1e-06 is spent" in skipped[0]["message"]
    assert len(server.requests) == 2


def test_a_trial_on_a_node_runs_at_the_priority_it_has_locally(
    pytester: pytest.Pytester, cluster: Cluster, recorded: Callable[[str], Path],
    mlab_args: list[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ray starts its workers at niceness 15; a trial's session and scripts, started by
    one, would yield their leased cores to every other process on the node."""
    recorded("guess")
    probes = pytester.mkdir("probes")
    monkeypatch.setenv("MLAB_PROBE_DIR", str(probes))
    monkeypatch.setenv("MLAB_WAIT_SECONDS", "0")
    pytester.runpytest_subprocess(
        "tasks", "--agent=scripted_agents:WaitingAgent", "--mlab-isolation=none",
        "--mlab-allow-weak-sandbox", *mlab_args, f"--mlab-dispatch=ray:{cluster.address}",
        timeout=600,
    ).assert_outcomes(failed=1)
    (probe,) = probes.iterdir()
    session_niceness = int(probe.read_text().split()[3])
    assert session_niceness == os.nice(0)


def test_remote_trials_show_their_steps_live_at_verbose(
    pytester: pytest.Pytester, cluster: Cluster, recorded: Callable[[str], Path],
    mlab_args: list[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorded("guess")
    monkeypatch.setenv("MLAB_PROBE_DIR", str(pytester.mkdir("probes")))
    run = pytester.runpytest_subprocess(
        "tasks", "--agent=scripted_agents:WaitingAgent", "--mlab-isolation=none", "-v",
        "--mlab-allow-weak-sandbox", *mlab_args, f"--mlab-dispatch=ray:{cluster.address}",
        timeout=600)
    run.assert_outcomes(failed=1)
    steps = [line for line in run.outlines if line.startswith("[mlab] ") and " step " in line]
    # The agent takes a step a second up to the task's 10; each one the node saw is
    # shown once, in order.
    assert len(steps) >= 3, run.outlines[-40:]
    numbers = [int(line.split(" step ")[1].split()[0]) for line in steps]
    assert numbers == sorted(set(numbers)) and numbers[-1] <= 10, steps
