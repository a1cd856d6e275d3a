"""Per-step overhead and provisioning, each beside a naive copy-everything version.

Run for figures: pytest tests/benchmarks -p no:xdist --benchmark-only
Each test here is one column of the comparison; ``test_ratios`` measures both sides in
the same run and checks the targets as ratios (never as absolute times).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.core.fingerprint import write_hashes
from pytest_mlab.core.task import load_task
from pytest_mlab.core.trace import Step, Trace
from pytest_mlab.env.data import PreparedData
from pytest_mlab.env.snapshotter import Snapshotter
from pytest_mlab.env.workspace import provision_workspace

pytestmark = pytest.mark.slow
GUESS = Path(__file__).parent.parent / "examples" / "guess"
MB = 1 << 20


def _fill(folder: Path, files: int, total_bytes: int) -> None:
    size = total_bytes // files
    block = bytes(range(256)) * (size // 256 + 1)
    for n in range(files):
        path = folder / f"part{n % 10}" / f"file{n:04d}.bin"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(n.to_bytes(4, "little") + block[: size - 4])


@pytest.fixture(scope="module")
def workspace_1000(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace of 1,000 files and 200 MB, all of them the agent's to change."""
    root = tmp_path_factory.mktemp("ws1000")
    _fill(root, 1000, 200 * MB)
    (root / "train.py").write_text("print('step 0')\n")
    return root


@pytest.fixture(scope="module")
def prepared_1gb(tmp_path_factory: pytest.TempPathFactory) -> PreparedData:
    """Public data of 1 GB in 100 files, as prepare_task leaves it in the cache."""
    root = tmp_path_factory.mktemp("cache")
    data = PreparedData(public=root / "public", private=root / "private")
    data.private.mkdir(parents=True)
    _fill(data.public, 100, 1024 * MB)
    write_hashes(data.public, data.public_hashes)
    return data


def step_with_snapshots(
    workspace: Path, out: Path, *, script: bool = False, watch: bool = True
) -> Callable[[int], None]:
    """An edit step (Write File: only that file is looked at) or, with ``script``, a step
    that ran code (the files inotify names are looked at; without ``watch``, every file
    is stat'ed and only changed ones are read)."""
    snapshots = Snapshotter(out / "objects", out / "manifests", workspace, {}, watch=watch)
    trace = Trace(out / "trace.jsonl")
    snapshots.take(0)

    def step(n: int) -> None:
        (workspace / "train.py").write_text(f"print('step {n}')\n")
        action = "Execute Script" if script else "Write File"
        trace.append(Step(n, action, {"file_name": "train.py"}, "ok", 0.0, 0.0))
        snapshots.take(n, None if script else ["train.py"])

    return step


def step_copying_everything(workspace: Path, out: Path) -> Callable[[int], None]:
    def step(n: int) -> None:
        (workspace / "train.py").write_text(f"print('step {n}')\n")
        shutil.copytree(workspace, out / f"step_{n}_files")

    return step


def provision(data: PreparedData, root: Path) -> None:
    task = load_task(GUESS / "task.toml")
    provision_workspace(task, data, root)


def provision_copying(data: PreparedData, root: Path) -> None:
    shutil.copytree(GUESS / "env", root)
    shutil.copytree(data.public, root, dirs_exist_ok=True)


def _rounds(benchmark: Any, make: Callable[[Path], Callable[[int], None]], tmp: Path) -> None:
    counter = iter(range(1, 1_000_000))
    step = make(tmp)
    benchmark.pedantic(lambda: step(next(counter)), rounds=5, iterations=1)


def test_step_overhead_snapshots(benchmark: Any, workspace_1000: Path, tmp_path: Path) -> None:
    benchmark.group = "per-step overhead, 1,000 files / 200 MB"
    _rounds(benchmark, lambda out: step_with_snapshots(workspace_1000, out), tmp_path)


def test_step_overhead_snapshots_after_a_script(
    benchmark: Any, workspace_1000: Path, tmp_path: Path
) -> None:
    benchmark.group = "per-step overhead, 1,000 files / 200 MB"
    _rounds(
        benchmark, lambda out: step_with_snapshots(workspace_1000, out, script=True), tmp_path
    )


def test_step_overhead_snapshots_after_a_script_without_inotify(
    benchmark: Any, workspace_1000: Path, tmp_path: Path
) -> None:
    benchmark.group = "per-step overhead, 1,000 files / 200 MB"
    _rounds(benchmark, lambda out: step_with_snapshots(
        workspace_1000, out, script=True, watch=False), tmp_path)


def test_step_overhead_copy_everything(
    benchmark: Any, workspace_1000: Path, tmp_path: Path
) -> None:
    benchmark.group = "per-step overhead, 1,000 files / 200 MB"
    _rounds(benchmark, lambda out: step_copying_everything(workspace_1000, out), tmp_path)


def test_provisioning_hardlinks(
    benchmark: Any, prepared_1gb: PreparedData, tmp_path: Path
) -> None:
    benchmark.group = "provisioning, 1 GB in 100 files"
    roots = (tmp_path / f"ws{n}" for n in range(1_000_000))
    benchmark.pedantic(lambda: provision(prepared_1gb, next(roots)), rounds=3, iterations=1)


def test_provisioning_copy_everything(
    benchmark: Any, prepared_1gb: PreparedData, tmp_path: Path
) -> None:
    benchmark.group = "provisioning, 1 GB in 100 files"
    roots = (tmp_path / f"ws{n}" for n in range(1_000_000))
    benchmark.pedantic(
        lambda: provision_copying(prepared_1gb, next(roots)), rounds=3, iterations=1
    )


def _best(action: Callable[[], None], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def test_ratios(workspace_1000: Path, prepared_1gb: PreparedData, tmp_path: Path) -> None:
    """Both sides measured in this run; the targets are ratios, never absolute times."""
    counter = iter(range(1, 1_000_000))
    ours = step_with_snapshots(workspace_1000, tmp_path / "ours")
    after_script = step_with_snapshots(workspace_1000, tmp_path / "script", script=True)
    walking = step_with_snapshots(workspace_1000, tmp_path / "walk", script=True, watch=False)
    naive = step_copying_everything(workspace_1000, tmp_path / "naive")
    copying = _best(lambda: naive(next(counter)), 3)
    step_ratio = copying / _best(lambda: ours(next(counter)), 9)
    script_ratio = copying / _best(lambda: after_script(next(counter)), 9)
    walk_ratio = copying / _best(lambda: walking(next(counter)), 9)
    roots = (tmp_path / f"ws{n}" for n in range(1_000_000))
    # Hardlinking takes milliseconds, so a burst of load swamps one sample: take many.
    fast = _best(lambda: provision(prepared_1gb, next(roots)), 25)
    slow = _best(lambda: provision_copying(prepared_1gb, next(roots)), 2)
    print(f"\nper-step overhead: copy-everything / snapshots = {step_ratio:.0f}x")
    print(f"after a script (files inotify names): {script_ratio:.0f}x")
    print(f"after a script without inotify (every file stat'ed): {walk_ratio:.0f}x")
    print(f"provisioning 1 GB: copy-everything / hardlinks = {slow / fast:.0f}x")
    assert step_ratio >= 100
    assert script_ratio >= 100
    # The fallback stats every file (about 2 us each here).
    assert walk_ratio >= 10
    assert slow / fast >= 50
