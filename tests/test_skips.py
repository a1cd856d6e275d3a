"""A missing prerequisite skips the trial, saying what fixes it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_no_recorded_baseline_skips_with_the_command_that_records_one(
    pytester: pytest.Pytester,
    task_tree: Callable[..., Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    root = task_tree("guess")
    result = pytester.runpytest("tasks", "--agent=oracle", "-rs", *mlab_args)
    result.assert_outcomes(skipped=1)
    (record,) = read_results()
    assert record["outcome"] == "skipped"
    assert record["message"] == (
        f"guess has no recorded baseline; validate the task, which records it: "
        f"pytest {root} --mlab-validate"
    )


def test_a_missing_python_module_skips_with_the_install_command(
    pytester: pytest.Pytester,
    task_tree: Callable[..., Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    root = task_tree("guess")
    _edit(root / "task.toml", "requirements = []", 'requirements = ["no_such_module_xyz"]')
    pytester.runpytest("tasks", "--agent=oracle", *mlab_args).assert_outcomes(skipped=1)
    (record,) = read_results()
    assert record["message"] == (
        "guess needs the Python modules no_such_module_xyz: pip install 'pytest-mlab[tasks]'"
    )


def test_prepare_saying_unavailable_skips(
    pytester: pytest.Pytester,
    task_tree: Callable[..., Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    root = task_tree("guess")
    _edit(
        root / "prepare.py", "    rng = random.Random(7)",
        "    from pytest_mlab import TaskUnavailable\n"
        "    raise TaskUnavailable('needs network: run with network access once')\n"
        "    rng = random.Random(7)",
    )
    pytester.runpytest("tasks", "--agent=oracle", *mlab_args).assert_outcomes(skipped=1)
    (record,) = read_results()
    assert record["message"] == "guess: needs network: run with network access once"


def test_a_gpu_task_on_a_machine_without_gpus_is_skipped(
    pytester: pytest.Pytester,
    task_tree: Callable[..., Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    root = task_tree("timed")
    _edit(root / "task.toml", "[baseline]", "[resources]\ngpus = 1\n\n[baseline]")
    result = pytester.runpytest("tasks", "--agent=oracle", "--mlab-gpus=none", *mlab_args)
    result.assert_outcomes(skipped=1)
    (record,) = read_results()
    assert record["message"] == (
        "timed needs 1 GPU, this machine has no GPU (set --mlab-gpus or CUDA_VISIBLE_DEVICES)"
    )
