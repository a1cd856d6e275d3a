"""The trial's limit on files (inodes): set per task, counted by the workspace's walk and
in the sandbox's /tmp, and named in one sentence once passed."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from filelock import FileLock

from pytest_mlab.core.task import TaskFormatError, TrialLimits, load_task
from pytest_mlab.env.workspace import Workspace
from pytest_mlab.sandbox import resources
from pytest_mlab.sandbox.bwrap import bwrap_argv
from pytest_mlab.sandbox.disk_usage import Usage, usage
from pytest_mlab.sandbox.isolation import available
from pytest_mlab.sandbox.resources import GIB, DiskQuota, ResourceLimits
from pytest_mlab.sandbox.spec import spec_from_json, spec_to_json
from pytest_mlab.sandbox.tmp_files import TmpFiles
from pytest_mlab.trial.provision import sandbox_spec

GUESS = Path(__file__).parent.parent / "examples" / "guess"


class Eager(DiskQuota):
    """Walks at every call after the first."""

    PAUSE_FACTOR = 0.0


class Patient(DiskQuota):
    """Waits for ages after a walk, unless the file system says the limits may be passed."""

    PAUSE_FACTOR = 1e9


def _touch(folder: Path, count: int, prefix: str = "f") -> None:
    for n in range(count):
        (folder / f"{prefix}{n}").touch()


def _sentence(files: int, limit: int) -> str:
    return (f"the workspace and /tmp gained {files:,} files, more than the trial's limit of "
            f"{limit:,}; delete files to go on")


def test_the_walk_counts_every_inode_once(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "d" / "e").mkdir(parents=True)
    (root / "a").write_text("a")
    os.link(root / "a", root / "a-again")
    (root / "link").symlink_to("nowhere")
    os.mkfifo(root / "d" / "fifo")
    # root, d, e, a (once for both names), link, fifo
    assert usage(root).files == 6


def test_files_gained_past_the_limit_are_named_with_it(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    _touch(tmp_path / "data", 500)  # there before the trial: not the trial's
    quota = Eager(tmp_path, GIB, files=100)
    assert quota() is None
    _touch(tmp_path, 101)
    assert quota() == _sentence(101, 100)
    (tmp_path / "f0").unlink()
    assert quota() is None  # the limit itself is allowed


def test_tmp_counts_with_the_workspace(tmp_path: Path) -> None:
    in_tmp = 95
    quota = Eager(tmp_path, GIB, files=100, tmp=lambda: in_tmp)
    _touch(tmp_path, 5)
    assert quota() is None
    in_tmp = 96
    assert quota() == _sentence(101, 100)


@pytest.fixture
def shm_folder() -> Iterator[Path]:
    """A folder on a file system of its own that the test's neighbours hardly write to,
    so that its counts move only with the test. One such test at a time: under -n, another
    one's clean-up deleting files hid this one's growth from the file system's counts."""
    if not os.access("/dev/shm", os.W_OK):
        pytest.skip("no writable /dev/shm")
    with FileLock("/dev/shm/mlab-file-limit.lock"):
        folder = Path(tempfile.mkdtemp(dir="/dev/shm", prefix="mlab-file-limit-"))
        yield folder
        shutil.rmtree(folder)


def test_a_walk_comes_early_when_the_file_system_grew_past_the_room_left(
    shm_folder: Path
) -> None:
    workspace, beside = shm_folder / "ws", shm_folder / "beside"
    workspace.mkdir()
    beside.mkdir()
    quota = Patient(workspace, GIB, files=100)
    assert quota() is None
    # Files of others on the same file system are a reason to walk, never a verdict.
    _touch(beside, 500)
    assert quota() is None
    _touch(workspace, 101)
    assert quota() == _sentence(101, 100)


def test_the_room_left_counts_the_files_in_tmp(shm_folder: Path) -> None:
    quota = Patient(shm_folder, GIB, files=100, tmp=lambda: 99)
    assert quota() is None
    _touch(shm_folder, 2)
    assert quota() == _sentence(101, 100)


def test_a_walk_waits_while_the_file_system_has_room_left(
    shm_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    walks: list[Path] = []

    def walk(root: Path) -> Usage:
        walks.append(root)
        return usage(root)

    monkeypatch.setattr(resources, "usage", walk)
    quota = Patient(shm_folder, GIB, files=1000)
    assert quota() is None and len(walks) == 2  # the start, and the first check
    _touch(shm_folder, 3)
    (shm_folder / "big").write_bytes(b"1" * (1 << 20))
    # Well within both limits: the pause after the first walk holds.
    assert quota() is None and quota() is None and len(walks) == 2


@pytest.mark.skipif(not available("bwrap"), reason="bubblewrap is not available")
def test_a_sandboxs_tmp_is_counted_from_the_host(tmp_path: Path) -> None:
    workspace, other = tmp_path / "ws", tmp_path / "other"
    workspace.mkdir()
    other.mkdir()
    script = "mkdir /tmp/d && touch /tmp/d/a /tmp/b && ln -s b /tmp/c && echo ready && sleep 60"
    argv = [*bwrap_argv(workspace, (), {"PATH": "/usr/bin:/bin"}), "sh", "-c", script]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        # The four the script made; a loaded machine's tmpfs may show an inode or two of
        # its own as well (6 in one CI run).
        assert 4 <= TmpFiles(workspace)() <= 6
        # Neither the host's /tmp nor the sandbox of another workspace.
        assert TmpFiles(other)() == 0
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 5
    while TmpFiles(workspace)() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert TmpFiles(workspace)() == 0


def _guess(tmp_path: Path, files: str) -> Path:
    root = shutil.copytree(GUESS, tmp_path / "guess")
    manifest = root / "task.toml"
    manifest.write_text(manifest.read_text() + f"\n[resources]\nfiles = {files}\n")
    return manifest


def test_a_task_sets_its_trials_file_limit(tmp_path: Path) -> None:
    task = load_task(_guess(tmp_path, "5000"))
    spec = sandbox_spec(task, Workspace(tmp_path), (), TrialLimits(), isolation="bwrap",
                        image="", run_id="r", seed=0, prepared=tmp_path)
    assert spec.resources.files == 5000
    assert spec_from_json(spec_to_json("local", spec))[1].resources.files == 5000
    assert ResourceLimits().files == load_task(GUESS / "task.toml").manifest.resources.files
    assert ResourceLimits().files == 100_000


@pytest.mark.parametrize(("value", "error"), [
    ("0", "Input should be greater than 0, got 0"),
    ("2.5", "Input should be a valid integer, got 2.5"),
    ('"5000"', "Input should be a valid integer, got '5000'"),
    ("true", "Input should be a valid integer, got True"),
])
def test_a_bad_file_limit_is_one_sentence_naming_the_key(
    tmp_path: Path, value: str, error: str
) -> None:
    manifest = _guess(tmp_path, value)
    with pytest.raises(TaskFormatError) as raised:
        load_task(manifest)
    assert str(raised.value) == f"{manifest}: key 'resources.files': {error}"


def test_a_workspace_over_its_quota_is_walked_again_before_it_is_said(tmp_path: Path) -> None:
    quota = Patient(tmp_path, 1 << 20, files=1000)
    assert quota() is None
    (tmp_path / "big").write_bytes(b"1" * (2 << 20))
    assert quota() is not None
    (tmp_path / "big").unlink()
    # The pause after that walk has ages to run, but an old count must not stop the
    # script that cleaned up.
    assert quota() is None
