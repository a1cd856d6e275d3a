"""Under -n: one run and results file, baselines measured once, GPUs never shared."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.core.results import SCHEMA_VERSION

pytestmark = pytest.mark.slow


def test_outcomes_are_the_same_and_one_results_file_holds_every_item(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    recorded("guess")
    args = ["tasks", "--agent=oracle", "--agent=baseline", "--mlab-trials=2", *mlab_args]
    pytester.runpytest_subprocess(*args, "-n", "2").assert_outcomes(passed=2, failed=2)
    parallel = read_results()
    assert len(list(pytester.path.glob("reports/*/results.json"))) == 1
    assert sorted(r["nodeid"] for r in parallel) == [
        f"tasks/guess/task.toml::guess[{agent}-t{k}]"
        for agent in ("baseline", "oracle") for k in (0, 1)
    ]
    pytester.runpytest_subprocess(*args).assert_outcomes(passed=2, failed=2)
    serial = read_results()
    assert [(r["nodeid"], r["outcome"], r["message"]) for r in serial] == [
        (r["nodeid"], r["outcome"], r["message"]) for r in parallel
    ]


def test_a_per_session_baseline_is_measured_once_per_session(
    pytester: pytest.Pytester,
    task_tree: Callable[..., Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    root = task_tree("timed")
    counter = pytester.path / "starter-runs.txt"
    (root / "env" / "counter-path.txt").write_text(str(counter))
    result = pytester.runpytest_subprocess(
        "tasks", "--agent=oracle", "--mlab-trials=4", "-n", "2", "--mlab-isolation=none",
        "--mlab-allow-weak-sandbox", *mlab_args,
    )
    result.assert_outcomes(passed=4)
    assert counter.read_text().splitlines() == ["starter", "starter"]  # runs = 2, once
    records = read_results()
    assert {(r["baseline_mean"], r["baseline_n"]) for r in records} == {(1.0, 2)}
    assert {r["baseline_source"] for r in records} == {"per-session"}
    assert all(r["improvement"] == pytest.approx(1.0) for r in records)
    # A new session measures again: the baseline is per session and machine.
    pytester.runpytest_subprocess(
        "tasks", "--agent=oracle", "--mlab-isolation=none", "--mlab-allow-weak-sandbox", *mlab_args
    ).assert_outcomes(passed=1)
    assert len(counter.read_text().splitlines()) == 4


def test_a_per_machine_baseline_is_measured_once_and_kept_across_sessions(
    pytester: pytest.Pytester,
    task_tree: Callable[..., Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    root = task_tree("timed")
    manifest = root / "task.toml"
    manifest.write_text(manifest.read_text().replace('kind = "per-session"',
                                                     'kind = "per-machine"'))
    counter = pytester.path / "starter-runs.txt"
    (root / "env" / "counter-path.txt").write_text(str(counter))
    args = ["tasks", "--agent=oracle", "--mlab-isolation=none", "--mlab-allow-weak-sandbox",
            *mlab_args]
    pytester.runpytest_subprocess(*args, "--mlab-trials=2", "-n", "2").assert_outcomes(passed=2)
    pytester.runpytest_subprocess(*args).assert_outcomes(passed=1)
    assert counter.read_text().splitlines() == ["starter", "starter"]  # runs = 2, once
    (record,) = read_results()
    assert (record["baseline_source"], record["baseline_n"]) == ("per-machine", 2)
    assert record["baseline_machine"]
    # Another version of the task is another baseline.
    (root / "env" / "note.txt").write_text("changed\n")
    pytester.runpytest_subprocess(*args).assert_outcomes(passed=1)
    assert len(counter.read_text().splitlines()) == 4


GPUS = "[resources]\ngpus = {}\n\n[baseline]"
GPU_PROBE = """
import os, time
start = time.time()
time.sleep(0.3)
with open({log!r}, "a") as log:
    log.write(f"{{os.environ['CUDA_VISIBLE_DEVICES']}} {{start}} {{time.time()}}\\n")
"""


def test_gpu_leases_are_never_shared_across_workers(
    pytester: pytest.Pytester,
    task_tree: Callable[..., Path],
    mlab_args: list[str],
) -> None:
    root = task_tree("timed")
    manifest = root / "task.toml"
    manifest.write_text(manifest.read_text().replace("[baseline]", GPUS.format(1)))
    log = pytester.path / "gpu-log.txt"
    (root / "env" / "gpu_probe.py").write_text(GPU_PROBE.format(log=str(log)))
    result = pytester.runpytest_subprocess(
        "tasks", "--agent=scripted_agents:GpuAgent", "--mlab-trials=8", "--mlab-gpus=0,1",
        "-n", "4", "--mlab-isolation=none", "--mlab-allow-weak-sandbox", *mlab_args,
    )
    result.assert_outcomes(failed=8)  # it only runs the starter: no improvement
    spans: dict[str, list[tuple[float, float]]] = {}
    for line in log.read_text().splitlines():
        gpu, start, end = line.split()
        spans.setdefault(gpu, []).append((float(start), float(end)))
    assert set(spans) == {"0", "1"}
    assert sum(len(s) for s in spans.values()) == 8
    for intervals in spans.values():
        intervals.sort()
        for (_, end), (start, _) in itertools.pairwise(intervals):
            assert start >= end, f"two trials held one GPU at once: {intervals}"


def test_a_task_needing_more_gpus_than_the_machine_has_is_skipped(
    pytester: pytest.Pytester,
    task_tree: Callable[..., Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    root = task_tree("timed")
    manifest = root / "task.toml"
    manifest.write_text(manifest.read_text().replace("[baseline]", GPUS.format(3)))
    pytester.runpytest("tasks", "--agent=oracle", "--mlab-gpus=0,1", *mlab_args).assert_outcomes(
        skipped=1
    )
    (record,) = read_results()
    assert record["message"].startswith("timed needs 3 GPUs, this machine has 2 GPUs")


def test_results_json_is_valid_and_versioned(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str]
) -> None:
    from pytest_mlab.core.results import RunResults

    recorded("guess")
    pytester.runpytest("tasks", "--agent=oracle", *mlab_args)
    (path,) = [p for p in pytester.path.glob("reports/*/results.json")]
    loaded = RunResults.read(path)
    assert loaded.schema_version == SCHEMA_VERSION == loaded.results[0].schema_version
    assert (loaded.run.selected, loaded.run.complete, loaded.run.interrupted) == (1, True, False)
    assert json.loads(path.read_text())["run"]["command"][1:3] == ["tasks", "--agent=oracle"]


@pytest.mark.parametrize(("extra", "scheduler"), [
    ((), "WorkStealingScheduling"),  # trials of uneven length: idle workers take waiting ones
    (("--dist", "load"), "LoadScheduling"),  # what the user asks for stands
])
def test_workers_take_waiting_trials_unless_told_otherwise(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    extra: tuple[str, ...], scheduler: str,
) -> None:
    recorded("guess")
    run = pytester.runpytest_subprocess("tasks", "--agent=oracle", "--mlab-trials=2", "-n", "2",
                                        "-v", *extra, *mlab_args)
    run.assert_outcomes(passed=2)
    run.stdout.fnmatch_lines([f"scheduling tests via {scheduler}"])


def _run_order(pytester: pytest.Pytester, *args: str) -> list[str]:
    """The tasks of the trials in the order they ran (one worker: the order they passed)."""
    run = pytester.runpytest_subprocess("tasks", "--agent=oracle", "-v", *args)
    run.assert_outcomes(passed=2)
    # "[gw0] [ 50%] PASSED tasks/guess/..." under xdist, "tasks/guess/... PASSED" without.
    found = re.findall(r"PASSED tasks/(\w+)/|tasks/(\w+)/\S+ PASSED", run.stdout.str())
    return [under_xdist or serial for under_xdist, serial in found]


def test_parallel_trials_start_longest_first_by_what_they_took_before(
    pytester: pytest.Pytester, recorded: Callable[[str], Path],
    task_tree: Callable[..., Path], mlab_args: list[str],
) -> None:
    from pytest_mlab.core.trial_seconds import HISTORY, read_history

    recorded("guess")
    task_tree("timed")
    args = ("-n", "1", "--mlab-isolation=none", "--mlab-allow-weak-sandbox", *mlab_args)
    history = pytester.path / "cache" / HISTORY
    history.unlink(missing_ok=True)
    assert _run_order(pytester, *args) == ["guess", "timed"]  # never timed: collection order
    assert set(read_history(pytester.path / "cache")) == {"guess oracle -", "timed oracle -"}
    history.write_text(json.dumps({"guess oracle -": 1.0, "timed oracle -": 100.0}))
    assert _run_order(pytester, *args) == ["timed", "guess"]
    history.write_text(json.dumps({"timed oracle -": 100.0}))
    assert _run_order(pytester, *args) == ["guess", "timed"]  # the untimed one may be longest
    history.write_text(json.dumps({"guess oracle -": 1.0, "timed oracle -": 100.0}))
    assert _run_order(pytester, "--mlab-isolation=none", "--mlab-allow-weak-sandbox",
                      *mlab_args) == ["guess", "timed"]
    history.write_text("{not json")
    assert _run_order(pytester, *args) == ["guess", "timed"]
