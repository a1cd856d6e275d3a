from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.core.task import load_task
from pytest_mlab.env.data import prepare_task
from pytest_mlab.env.env_cache import cache_env
from pytest_mlab.env.workspace import provision_workspace

GUESS = Path(__file__).parent / "examples" / "guess"


@pytest.fixture
def big_task(tmp_path: Path) -> Path:
    """The guess task with a large public file next to its small one."""
    import shutil

    root = shutil.copytree(GUESS, tmp_path / "task")
    prepare = root / "prepare.py"
    prepare.write_text(
        prepare.read_text()
        + "\n    (public / 'big.bin').write_bytes(b'x' * (2 << 20))\n"
    )
    return root


def test_public_files_are_copies_that_share_no_inode_with_the_cache(
    big_task: Path, tmp_path: Path
) -> None:
    task = load_task(big_task / "task.toml")
    data = prepare_task(task, tmp_path / "cache")
    workspace = provision_workspace(task, data, tmp_path / "ws")
    big, small = workspace.root / "big.bin", workspace.root / "data.txt"
    assert big.read_bytes() == (data.public / "big.bin").read_bytes()
    for name in ("big.bin", "data.txt"):
        copy, cached = (workspace.root / name).stat(), (data.public / name).stat()
        assert (copy.st_dev, copy.st_ino) != (cached.st_dev, cached.st_ino), name
        assert copy.st_nlink == 1 and cached.st_nlink == 1, name
    assert oct(big.stat().st_mode & 0o777) == "0o444"
    assert not os.access(small, os.W_OK) or os.geteuid() == 0
    assert oct(small.stat().st_mode & 0o777) == "0o444"
    assert (workspace.root / "train.py").read_text() == (big_task / "env" / "train.py").read_text()
    assert set(workspace.protected) == {"big.bin", "data.txt"}
    assert not (workspace.root / "answer.txt").exists()  # private answers stay in the cache
    assert (data.private / "answer.txt").exists()
    assert not data.private.is_relative_to(workspace.root)


def test_changes_to_protected_files_are_found(big_task: Path, tmp_path: Path) -> None:
    task = load_task(big_task / "task.toml")
    workspace = provision_workspace(task, prepare_task(task, tmp_path / "cache"), tmp_path / "ws")
    assert workspace.changed_protected_files() == []
    target = workspace.root / "data.txt"
    target.chmod(0o644)
    target.write_text("1\n")
    (workspace.root / "big.bin").unlink()
    assert workspace.changed_protected_files() == ["big.bin", "data.txt"]


def test_prepare_runs_once_per_content(big_task: Path, tmp_path: Path) -> None:
    task = load_task(big_task / "task.toml")
    first = prepare_task(task, tmp_path / "cache")
    stamp = (first.public / "data.txt").stat().st_mtime_ns
    assert prepare_task(task, tmp_path / "cache") == first
    assert (first.public / "data.txt").stat().st_mtime_ns == stamp
    (big_task / "prepare.py").write_text((big_task / "prepare.py").read_text() + "\n# v2\n")
    second = prepare_task(load_task(big_task / "task.toml"), tmp_path / "cache")
    assert second.public != first.public


@pytest.mark.parametrize(
    ("policy", "kept"),
    [("all", {"oracle", "baseline"}), ("failed", {"baseline"}), ("none", set())],
)
def test_workspaces_are_kept_per_the_retention_setting(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
    policy: str,
    kept: set[str],
) -> None:
    recorded("guess")
    pytester.runpytest(
        "tasks", "--agent=oracle", "--agent=baseline", f"--mlab-keep-workspaces={policy}",
        *mlab_args,
    )
    records = read_results()
    assert {r["agent"] for r in records if r["workspace"]} == kept
    (run_dir,) = [p.parent for p in pytester.path.glob("reports/*/results.json")]
    for record in records:
        if record["workspace"]:
            # In the run folder, not in pytest's temporary folders that later runs delete.
            assert Path(record["workspace"]).is_relative_to(run_dir / "workspaces")
            assert (Path(record["workspace"]) / "submission.txt").exists()
    left = {p.name for p in (run_dir / "workspaces").iterdir()} if kept else set()
    assert len(left) == len(kept)


def test_a_public_file_changed_in_a_workspace_leaves_the_cache_as_it_was(
    big_task: Path, tmp_path: Path
) -> None:
    from pytest_mlab.trial.scoring import score_workspace

    task = load_task(big_task / "task.toml")
    data = prepare_task(task, tmp_path / "cache")
    workspace = provision_workspace(task, data, tmp_path / "ws")
    big = workspace.root / "big.bin"
    big.chmod(0o644)  # what an agent's script running as the file's owner could do
    big.write_bytes(b"y")
    scored = score_workspace(task, workspace, data)
    assert scored.invalid == "read-only file big.bin was changed"
    assert (data.public / "big.bin").read_bytes() == b"x" * (2 << 20)
    fresh = prepare_task(task, tmp_path / "cache")
    assert (fresh.public / "big.bin").read_bytes() == b"x" * (2 << 20)


def test_read_only_env_files_are_copies_that_share_no_inode_with_the_cache(
    tmp_path: Path,
) -> None:
    import shutil

    root = shutil.copytree(GUESS, tmp_path / "task")
    (root / "env" / "helper.py").write_bytes(b"# helper\n" * (300 << 10))
    manifest = root / "task.toml"
    manifest.write_text(manifest.read_text().replace('read_only = ["data.txt"]',
                                                     'read_only = ["data.txt", "helper.py"]'))
    task = load_task(manifest)
    data = prepare_task(task, tmp_path / "cache")
    workspace = provision_workspace(task, data, tmp_path / "ws")
    cached = cache_env(task, data).path("helper.py").stat()
    copy = (workspace.root / "helper.py").stat()
    assert copy.st_size == cached.st_size > 1 << 20
    assert (copy.st_dev, copy.st_ino) != (cached.st_dev, cached.st_ino)
    assert "helper.py" in workspace.protected
