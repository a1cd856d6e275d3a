"""The data key: made once per cache, 0600, agreed on by racing processes, pinned by
MLAB_DATA_KEY; another key prepares other answers, the same key the same; and the key is
in no workspace file and no sandbox's environment."""

from __future__ import annotations

import multiprocessing
import shutil
import sys
from pathlib import Path

import pytest

from pytest_mlab.core.data_key import (
    FILE,
    VARIABLE,
    DataKeyError,
    cache_key,
    data_key,
    key_id,
    parse_key,
)
from pytest_mlab.core.task import load_task
from pytest_mlab.env.data import prepare_task, prepared_root
from pytest_mlab.env.workspace import provision_workspace
from pytest_mlab.sandbox import LocalSandbox, SandboxSpec

EXAMPLE = Path(__file__).parent / "examples" / "guess"
PREPARE = '''
from pathlib import Path
from pytest_mlab.taskkit.secret import secret_rng

def prepare(public: Path, private: Path) -> None:
    values = secret_rng("keyed").normal(50.0, 5.0, 200)
    (public / "data.txt").write_text("\\n".join(f"{v:.4f}" for v in values[:150]) + "\\n")
    (private / "answer.txt").write_text(f"{values[150:].mean():.6f}\\n")
'''


@pytest.fixture
def keyed_task(tmp_path: Path) -> Path:
    """The guess example, drawing its data from the data key."""
    root = tmp_path / "keyed"
    shutil.copytree(EXAMPLE, root)
    (root / "prepare.py").write_text(PREPARE, encoding="utf-8")
    return root / "task.toml"


@pytest.fixture(autouse=True)
def _no_pinned_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(VARIABLE, raising=False)


def test_the_cache_key_is_made_once_readable_by_its_owner_alone(tmp_path: Path) -> None:
    first = cache_key(tmp_path / "cache")
    assert len(first) == 32
    assert cache_key(tmp_path / "cache") == first
    assert (tmp_path / "cache" / FILE).stat().st_mode & 0o777 == 0o600
    assert cache_key(tmp_path / "other") != first


def _race(cache: str) -> str:
    return cache_key(Path(cache)).hex()


def test_processes_racing_to_make_the_key_agree(tmp_path: Path) -> None:
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        keys = pool.map(_race, [str(tmp_path / "cache")] * 8)
    assert len(set(keys)) == 1
    assert keys[0] == (tmp_path / "cache" / FILE).read_text().strip()


def test_a_pinned_key_wins_and_a_malformed_one_is_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pinned = "ab" * 32
    monkeypatch.setenv(VARIABLE, pinned)
    assert data_key(tmp_path) == bytes.fromhex(pinned)
    assert not (tmp_path / FILE).exists()
    assert data_key(tmp_path, b"\x01" * 32) == b"\x01" * 32
    monkeypatch.setenv(VARIABLE, "not hex")
    with pytest.raises(DataKeyError, match=r"^MLAB_DATA_KEY: a data key is 64 hex digits"):
        data_key(tmp_path)
    with pytest.raises(ValueError):
        parse_key("ab" * 31)


def test_a_key_readable_by_others_is_refused(tmp_path: Path) -> None:
    cache_key(tmp_path)
    (tmp_path / FILE).chmod(0o644)
    with pytest.raises(DataKeyError, match="chmod 600"):
        cache_key(tmp_path)


def test_another_key_prepares_other_answers_the_same_key_the_same(
    keyed_task: Path, tmp_path: Path
) -> None:
    task = load_task(keyed_task)
    one, two = b"\x01" * 32, b"\x02" * 32
    first = prepare_task(task, tmp_path / "a", one)
    again = prepare_task(task, tmp_path / "b", one)
    other = prepare_task(task, tmp_path / "a", two)
    answer = (first.private / "answer.txt").read_text()
    assert (again.private / "answer.txt").read_text() == answer
    assert (other.private / "answer.txt").read_text() != answer
    assert prepared_root(task, tmp_path / "a", one) != prepared_root(task, tmp_path / "a", two)
    assert key_id(one) in str(first.public) and one.hex() not in str(first.public)


def test_the_key_is_in_no_workspace_file_and_no_sandbox_environment(
    keyed_task: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = load_task(keyed_task)
    key = cache_key(tmp_path / "cache")
    workspace = provision_workspace(task, prepare_task(task, tmp_path / "cache"),
                                    tmp_path / "ws")
    for path in workspace.root.rglob("*"):
        if path.is_file():
            content = path.read_bytes()
            assert key not in content and key.hex().encode() not in content, path
    monkeypatch.setenv(VARIABLE, key.hex())  # pinned: in the harness's own environment
    (workspace.root / "env.py").write_text("import os; print(sorted(os.environ.items()))\n")
    result = LocalSandbox(SandboxSpec(workspace.root)).run([sys.executable, "env.py"],
                                                           timeout=30)
    assert result.returncode == 0, result.stderr
    assert "PATH" in result.stdout
    assert key.hex() not in result.stdout and VARIABLE not in result.stdout
