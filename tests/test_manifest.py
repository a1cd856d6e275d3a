from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pytest_mlab.core import taskkit_use
from pytest_mlab.core.task import TaskFormatError, load_task

GUESS = Path(__file__).parent / "examples" / "guess"


def test_a_valid_manifest_loads_with_defaults() -> None:
    task = load_task(GUESS / "task.toml")
    assert task.name == "guess"
    assert task.manifest.metric.direction == "lower"
    assert task.manifest.limits.max_steps == 10
    assert task.manifest.resources.gpus == 0
    assert task.manifest.entry == "train.py"
    assert task.manifest.read_only == ("data.txt",)


def test_the_content_hash_ignores_the_baseline_record_and_solution(tmp_path: Path) -> None:
    root = shutil.copytree(GUESS, tmp_path / "guess")
    before = load_task(root / "task.toml").content_hash()
    (root / "baseline.json").write_text("{}")
    (root / "solution" / "train.py").write_text("print('other')\n")
    assert load_task(root / "task.toml").content_hash() == before
    (root / "score.py").write_text((root / "score.py").read_text() + "\n# changed\n")
    assert load_task(root / "task.toml").content_hash() != before


def test_the_content_hash_counts_the_task_helpers_its_code_loads_and_no_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    taskkit = shutil.copytree(taskkit_use.TASKKIT, tmp_path / "taskkit")
    monkeypatch.setattr(taskkit_use, "TASKKIT", taskkit)
    root = shutil.copytree(GUESS, tmp_path / "guess")
    # timed_child loads child_driver in turn; nothing here loads child_guard.
    (root / "score.py").write_text(
        (root / "score.py").read_text() + "\nfrom pytest_mlab.taskkit import timed_child\n")
    task = load_task(root / "task.toml")
    before = task.content_hash()
    (taskkit / "child_guard.py").write_text("# changed\n")
    assert task.content_hash() == before
    for loaded in ("child_driver.py", "timed_child.py", "__init__.py"):
        (taskkit / loaded).write_text((taskkit / loaded).read_text() + "\n# changed\n")
        assert task.content_hash() != before, loaded
        before = task.content_hash()


@pytest.mark.parametrize(("source", "loaded"), [
    ("from pytest_mlab.taskkit.submission import read_csv_submission", {"submission"}),
    ("import pytest_mlab.taskkit.arrays as arrays", {"arrays"}),
    ("from pytest_mlab.taskkit import arrays, splits", {"arrays", "splits"}),
    ("import numpy", set()),
    # What cannot be read, or loads the package as a whole, counts every helper.
    ("from pytest_mlab import taskkit", "all"),
    ("def broken(:", "all"),
])
def test_the_helpers_a_file_loads_are_read_from_its_imports(
    tmp_path: Path, source: str, loaded: set[str] | str
) -> None:
    (tmp_path / "score.py").write_text(source + "\n")
    every = {p.stem for p in taskkit_use.TASKKIT.glob("*.py")}
    found = {p.stem for p in taskkit_use.taskkit_files([tmp_path / "score.py"])}
    if isinstance(loaded, str):
        assert found == every
    else:
        assert found == (loaded | {"__init__"} if loaded else set())


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ('direction = "lower"', 'direction = "down"', "key 'metric.direction': Input should be"),
        ('name = "error"\n', "", "key 'metric.name': required but missing"),
        ("[metric]", "bogus = 1\n[metric]", "key 'bogus': unknown key"),
        ("max_steps = 10", "max_steps = -1", "key 'limits.max_steps': Input should be greater"),
        ('name = "guess"', 'name = "Guess Me"', "key 'name': String should match"),
        ('name = "guess"', 'name = "guess"\nentry = "missing.py"', "key 'entry': env/missing.py"),
        ("[baseline]", "[baseline]\nkind = 'typed-in'\n[other]", "key 'baseline.kind'"),
        ("[metric]", "[metric", "not valid TOML"),
    ],
)
def test_a_malformed_manifest_names_the_file_and_key(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    root = shutil.copytree(GUESS, tmp_path / "guess")
    manifest = root / "task.toml"
    text = manifest.read_text()
    assert old in text
    manifest.write_text(text.replace(old, new, 1))
    with pytest.raises(TaskFormatError) as info:
        load_task(manifest)
    message = str(info.value)
    assert message.startswith(f"{manifest}: ")
    assert expected in message
    assert "\n" not in message


@pytest.mark.parametrize("missing", ["score.py", "prepare.py", "env"])
def test_a_task_without_its_parts_is_rejected(tmp_path: Path, missing: str) -> None:
    root = shutil.copytree(GUESS, tmp_path / "guess")
    target = root / missing
    shutil.rmtree(target) if target.is_dir() else target.unlink()
    with pytest.raises(TaskFormatError, match=f"expected {missing} beside it"):
        load_task(root / "task.toml")


def test_collection_error_is_one_clean_line(pytester: pytest.Pytester) -> None:
    shutil.copytree(GUESS, pytester.path / "guess")
    manifest = pytester.path / "guess" / "task.toml"
    manifest.write_text(manifest.read_text().replace('"lower"', '"sideways"'))
    result = pytester.runpytest("guess", "--collect-only")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*ERROR collecting guess/task.toml*"])
    result.stdout.fnmatch_lines(["*guess/task.toml: key 'metric.direction': *'sideways'"])
    assert "Traceback" not in result.stdout.str()
