"""Per-step overhead and provisioning, each beside a naive copy-everything version.

Run for figures: pytest tests/benchmarks -p no:xdist --benchmark-only
Each test here is one column of the comparison; ``test_ratios`` and
``test_ratios_with_a_checkpoint`` measure both sides in the same run and check the
targets as ratios (never as absolute times).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.core.fingerprint import write_hashes
from pytest_mlab.core.task import TaskSpec, load_task
from pytest_mlab.core.trace import Step, Trace
from pytest_mlab.env.data import PreparedData, prepare_task
from pytest_mlab.env.env_cache import cache_env
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


def _best(
    action: Callable[[], None], repeats: int, before: Callable[[], None] | None = None
) -> float:
    """The fastest of ``repeats`` runs of ``action``; ``before`` runs untimed ahead of each."""
    times = []
    for _ in range(repeats):
        if before is not None:
            before()
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def _best_of_both(
    ours: Callable[[], None], theirs: Callable[[], None], repeats: int
) -> tuple[float, float]:
    """The fastest runs of each, taken in turns after a sync, so that neither pays for
    the other's writes or meets a quieter machine."""
    pairs = [(_best(ours, 1, before=os.sync), _best(theirs, 1, before=os.sync))
             for _ in range(repeats)]
    return min(p[0] for p in pairs), min(p[1] for p in pairs)


def test_ratios(workspace_1000: Path, prepared_1gb: PreparedData, tmp_path: Path) -> None:
    """Both sides measured in this run; the targets are ratios, never absolute times."""
    counter = iter(range(1, 1_000_000))
    ours = step_with_snapshots(workspace_1000, tmp_path / "ours")
    after_script = step_with_snapshots(workspace_1000, tmp_path / "script", script=True)
    walking = step_with_snapshots(workspace_1000, tmp_path / "walk", script=True, watch=False)
    naive = step_copying_everything(workspace_1000, tmp_path / "naive")
    copying = _best(lambda: naive(next(counter)), 3)
    # The copies' 600 MB are written back before the steps are timed, not during. Steps
    # and hardlinking take milliseconds, so a burst of load swamps one sample: take many
    # (the best of nine steps once gave 89x, on a nearly full disk, where it is 136x).
    os.sync()
    step_ratio = copying / _best(lambda: ours(next(counter)), 25)
    script_ratio = copying / _best(lambda: after_script(next(counter)), 25)
    walk_ratio = copying / _best(lambda: walking(next(counter)), 25)
    roots = (tmp_path / f"ws{n}" for n in range(1_000_000))
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


@pytest.fixture(scope="module")
def imported_task(tmp_path_factory: pytest.TempPathFactory) -> tuple[TaskSpec, PreparedData]:
    """A task laid out as MLAgentBench ships one: 990 small files and 190 MB of
    read-only data in env/ (its ``read_only`` patterns name the data)."""
    root = shutil.copytree(GUESS, tmp_path_factory.mktemp("imported") / "task")
    for n in range(989):  # and train.py
        path = root / "env" / f"pkg{n % 10}" / f"mod{n:04d}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"# module {n}\n" + "x = 1\n" * 600)
    _fill(root / "env" / "data", 10, 190 * MB)
    manifest = root / "task.toml"
    manifest.write_text(manifest.read_text().replace('"data.txt"', '"data.txt", "data/*/*"'))
    task = load_task(manifest)
    data = prepare_task(task, tmp_path_factory.mktemp("imported-cache"))
    cache_env(task, data)  # once per machine per task content, as the preparation is
    return task, data


def set_up_trial(task: TaskSpec, data: PreparedData, root: Path) -> Snapshotter:
    """What a trial does before its first step: provision, then snapshot 0."""
    workspace = provision_workspace(task, data, root / "workspace")
    snapshots = Snapshotter.of(workspace, root / "objects", root / "manifests")
    snapshots.take(0)
    return snapshots


def set_up_copying(task: TaskSpec, root: Path) -> None:
    """The original's setup: a plain copy of the task's environment folder."""
    shutil.copytree(task.env_dir, root / "workspace")


def checkpoint_steps(
    task: TaskSpec, data: PreparedData, root: Path
) -> tuple[Callable[[], None], Callable[[], None], Callable[[], None]]:
    """A trial whose script rewrites a 100 MB checkpoint every step: (rewrite it, our
    snapshot after the script, a copy of the whole workspace as the original keeps)."""
    snapshots = set_up_trial(task, data, root)
    checkpoint = snapshots.workspace / "checkpoint.pt"
    weights = bytearray(b"w" * (100 * MB))
    counter = iter(range(1, 1_000_000))
    steps: list[int] = [0]

    def rewrite() -> None:
        steps.append(next(counter))
        weights[:8] = steps[-1].to_bytes(8, "little")
        checkpoint.write_bytes(weights)

    def snapshot() -> None:
        snapshots.take(steps[-1], None)

    def copy() -> None:
        shutil.copytree(snapshots.workspace, root / "copies" / f"step_{steps[-1]}")

    return rewrite, snapshot, copy


def test_trial_setup(
    benchmark: Any, imported_task: tuple[TaskSpec, PreparedData], tmp_path: Path
) -> None:
    benchmark.group = "trial setup, 990 files + 190 MB read-only"
    roots = (tmp_path / f"trial{n}" for n in range(1_000_000))
    benchmark.pedantic(lambda: set_up_trial(*imported_task, next(roots)).close(),
                       rounds=3, iterations=1)


def test_trial_setup_copy_everything(
    benchmark: Any, imported_task: tuple[TaskSpec, PreparedData], tmp_path: Path
) -> None:
    benchmark.group = "trial setup, 990 files + 190 MB read-only"
    roots = (tmp_path / f"trial{n}" for n in range(1_000_000))
    benchmark.pedantic(lambda: set_up_copying(imported_task[0], next(roots)),
                       rounds=3, iterations=1)


def test_checkpoint_step(
    benchmark: Any, imported_task: tuple[TaskSpec, PreparedData], tmp_path: Path
) -> None:
    benchmark.group = "step rewriting a 100 MB checkpoint"
    rewrite, snapshot, _ = checkpoint_steps(*imported_task, tmp_path)
    benchmark.pedantic(snapshot, setup=rewrite, rounds=5, iterations=1)


def test_checkpoint_step_copy_everything(
    benchmark: Any, imported_task: tuple[TaskSpec, PreparedData], tmp_path: Path
) -> None:
    benchmark.group = "step rewriting a 100 MB checkpoint"
    rewrite, _, copy = checkpoint_steps(*imported_task, tmp_path)
    benchmark.pedantic(copy, setup=rewrite, rounds=3, iterations=1)


def test_ratios_with_a_checkpoint(
    imported_task: tuple[TaskSpec, PreparedData], tmp_path: Path
) -> None:
    """Trial setup and a step that rewrote a 100 MB checkpoint, each beside the
    copy-based original, measured in this run."""
    task, data = imported_task
    roots = (tmp_path / f"trial{n}" for n in range(1_000_000))
    ours_setup, copying_setup = _best_of_both(
        lambda: set_up_trial(task, data, next(roots)).close(),
        lambda: set_up_copying(task, next(roots)), 7)
    rewrite, snapshot, copy = checkpoint_steps(task, data, tmp_path / "steps")
    ours_step = _best(snapshot, 9, before=rewrite)
    copying_step = _best(copy, 3, before=rewrite)
    print(f"\ntrial setup: ours {ours_setup * 1e3:.0f} ms, copying the env folder "
          f"{copying_setup * 1e3:.0f} ms: {copying_setup / ours_setup:.1f}x")
    print(f"step rewriting a 100 MB checkpoint: ours {ours_step * 1e3:.1f} ms, copying "
          f"everything {copying_step * 1e3:.0f} ms: {copying_step / ours_step:.0f}x")
    # No slower: both sides create the same 990 files, most of the cost on a loaded disk
    # (there ours is 1.1x faster, 1.3x on a quiet one); ours links the read-only data
    # instead of copying it and hashes nothing. The margin is for noise.
    assert copying_setup / ours_setup >= 0.9
    # Ours stats the checkpoint; the original copies the workspace, checkpoint and all.
    assert copying_step / ours_step >= 20
