"""What the original tasks' code was measured to need beyond what it imports by name
(issue 41) is in their overlays: the task's environment installs it, and the harness
checks for its modules before a trial."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

from pytest_mlab.core.overlay import read_overlay
from pytest_mlab.env.task_requirements import task_requirements

OVERLAYS = Path(__file__).resolve().parents[2] / "tasks" / "mlagentbench"


@pytest.mark.parametrize(("overlay", "distributions", "modules"), [
    # transformers' Trainer raises ImportError without accelerate; the accuracy metric's
    # accuracy.py imports scikit-learn.
    ("babylm.toml", {"accelerate": "", "scikit-learn": ""}, ("accelerate", "sklearn")),
    # tensorflow_datasets fails to read CLRS-30 with protobuf 7, and building a split
    # imports importlib_resources.
    ("CLRS.toml", {"protobuf": "<7", "importlib-resources": ""}, ("importlib_resources",)),
])
def test_the_measured_needs_are_installed_and_checked(
    overlay: str, distributions: dict[str, str], modules: tuple[str, ...],
) -> None:
    task = read_overlay(OVERLAYS / overlay)
    installed = {Requirement(word).name.lower().replace("_", "-"): Requirement(word).specifier
                 for word in task_requirements(task)}
    for name, specifier in distributions.items():
        assert installed.get(name) == SpecifierSet(specifier), (overlay, name, installed)
    assert set(modules) <= set(task.requirements)
    assert task.install.startswith("pip install ")
