from __future__ import annotations

import mmap
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_mlab.core.snapshots import Manifest
from pytest_mlab.env.snapshotter import Snapshotter
from pytest_mlab.env.watch import WorkspaceWatch


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "a" / "b").mkdir(parents=True)
    (root / "top.txt").write_text("top")
    (root / "a" / "one.txt").write_text("one")
    (root / "a" / "b" / "two.txt").write_text("two")
    return root


def _watch(root: Path) -> WorkspaceWatch:
    watch = WorkspaceWatch.start(root)
    if watch is None:
        pytest.skip("inotify is not available here (Linux only)")
    return watch


def _full(root: Path, tmp_path: Path) -> Manifest:
    out = tmp_path / "reference"
    shutil.rmtree(out, ignore_errors=True)
    with Snapshotter(out / "objects", out / "manifests", root, {}, watch=False) as reference:
        return reference.take(0)


def test_the_watch_names_exactly_what_a_process_changed(workspace: Path) -> None:
    watch = _watch(workspace)
    assert watch.changes() == set()
    script = (
        "import os, pathlib\n"
        "pathlib.Path('a/b/two.txt').write_text('changed')\n"
        "os.remove('top.txt')\n"
        "os.makedirs('new/deep')\n"
        "pathlib.Path('new/deep/x.txt').write_text('x')\n"
    )
    subprocess.run([sys.executable, "-c", script], cwd=workspace, check=True)
    assert watch.changes() == {"a/b/two.txt", "top.txt", "new/"}
    (workspace / "new" / "deep" / "later.txt").write_text("seen by the new watch")
    assert watch.changes() == {"new/deep/later.txt"}
    watch.close()
    assert watch.changes() is None


def test_a_moved_folder_asks_for_a_full_walk(workspace: Path) -> None:
    watch = _watch(workspace)
    (workspace / "a").rename(workspace / "renamed")
    assert watch.changes() is None
    (workspace / "renamed" / "b" / "two.txt").write_text("the watch was rebuilt")
    assert watch.changes() == {"renamed/b/two.txt"}


def test_an_overflowing_queue_asks_for_a_full_walk(workspace: Path) -> None:
    watch = _watch(workspace)
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    if limit > 50_000:
        pytest.skip(f"the event queue holds {limit} events; too many to overflow quickly")
    for n in range(limit // 2 + 10):
        (workspace / f"f{n}").touch()
    assert watch.changes() is None
    assert watch.changes() == set()


def _random_step(root: Path, rng: random.Random) -> None:
    files = [p for p in root.rglob("*") if p.is_file()]
    folders = [root, *(p for p in root.rglob("*") if p.is_dir())]
    choice = rng.randrange(6)
    if choice == 0 and files:
        rng.choice(files).write_text(str(rng.random()))
    elif choice == 1 and files:
        rng.choice(files).unlink()
    elif choice == 2:
        folder = rng.choice(folders) / f"d{rng.randrange(1000)}"
        folder.mkdir(exist_ok=True)
        (folder / "inside.txt").write_text("new folder")
    elif choice == 3 and len(folders) > 1:
        shutil.rmtree(rng.choice(folders[1:]), ignore_errors=True)
    elif choice == 4 and files:
        source = rng.choice(files)
        source.rename(source.with_name(f"moved{rng.randrange(1000)}"))
    else:
        (rng.choice(folders) / f"f{rng.randrange(1000)}.txt").write_text("new file")


@pytest.mark.parametrize("seed", range(5))
def test_snapshots_from_the_watch_match_a_full_walk(
    workspace: Path, tmp_path: Path, seed: int
) -> None:
    _watch(workspace).close()
    rng = random.Random(seed)
    out = tmp_path / "watched"
    with Snapshotter(out / "objects", out / "manifests", workspace, {}) as snapshots:
        snapshots.take(0)
        for step in range(1, 40):
            for _ in range(rng.randrange(1, 4)):
                _random_step(workspace, rng)
            assert snapshots.take(step) == _full(workspace, tmp_path), f"step {step}"


def test_writes_through_a_memory_map_are_seen(workspace: Path, tmp_path: Path) -> None:
    _watch(workspace).close()
    target = workspace / "mapped.bin"
    target.write_bytes(b"\0" * 4096)
    out = tmp_path / "mapped"
    with Snapshotter(out / "objects", out / "manifests", workspace, {}) as snapshots:
        before = snapshots.take(0)["mapped.bin"]
        with target.open("r+b") as handle, mmap.mmap(handle.fileno(), 0) as mapped:
            mapped[:5] = b"hello"  # the file was opened for writing during this step
        after = snapshots.take(1)["mapped.bin"]
    assert after != before
    assert after == _full(workspace, tmp_path)["mapped.bin"]
