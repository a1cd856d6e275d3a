"""Each plugin's header where it applies: the mlab lines in sessions that run tasks (or
are given mlab options), pytest-benchmark's (installed with the test extra) only in
sessions that hold tests of their own, as the benchmarks in tests/benchmarks do.

Headers are printed before collection, so this is decided from the paths given: a
``task.toml`` (or an original task folder) at or a few levels below a path is a task, a
file matching ``python_files`` is a test; a task's own folder is not searched further.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_mlab.core.task_files import MANIFEST
from pytest_mlab.plugin.collection.original import PROBLEM_FILE, is_original

if TYPE_CHECKING:
    from pytest_mlab.core.containment import Attestation

_DEPTH = 4
"""Folders below a path that are searched: tasks/lite/house-price/task.toml from the
repository, MLAgentBench/benchmarks/cifar10/scripts/ from a clone of MLAgentBench."""
_MLAB_OPTIONS = ("--agent", "--llm", "--mlab-", "--max-steps", "--max-time")
_BENCHMARK_HEADER = "benchmark: "


@dataclass(frozen=True)
class Holds:
    tasks: bool = False
    tests: bool = False

    def __or__(self, other: Holds) -> Holds:
        return Holds(self.tasks or other.tasks, self.tests or other.tests)


HOLDS_KEY = pytest.StashKey[Holds]()


def _is_task(folder: Path) -> bool:
    return (folder / MANIFEST).is_file() or is_original(folder)


def _holds_folder(root: Path, tests: list[str], skip: list[str]) -> Holds:
    found = Holds()
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        if _is_task(here):
            found |= Holds(tasks=True)
            dirs.clear()
            continue
        if any(fnmatch.fnmatch(name, pattern) for name in files for pattern in tests):
            found |= Holds(tests=True)
        if found.tasks and found.tests:
            break
        deep = len(here.relative_to(root).parts) >= _DEPTH - 1
        dirs[:] = [] if deep else [d for d in dirs if not d.startswith(".") and not any(
            fnmatch.fnmatch(d, pattern) for pattern in skip)]
    return found


def _holds(config: pytest.Config, arg: str) -> Holds:
    path = (config.invocation_params.dir / arg.partition("::")[0]).resolve()
    tests: list[str] = config.getini("python_files")
    if path.is_file():
        if path.name in (MANIFEST, PROBLEM_FILE):
            return Holds(tasks=True)
        return Holds(tests=path.suffix == ".py")
    if not path.is_dir():
        return Holds()
    if any(_is_task(folder) for folder in [path, *path.parents][:_DEPTH]):
        return Holds(tasks=True)  # in a task's own folder
    return _holds_folder(path, tests, config.getini("norecursedirs"))


def session_holds(config: pytest.Config) -> Holds:
    """What the session's paths hold, found once."""
    if HOLDS_KEY not in config.stash:
        found = Holds()
        for arg in config.args:
            found |= _holds(config, arg)
        config.stash[HOLDS_KEY] = found
    return config.stash[HOLDS_KEY]


def mlab_header_applies(config: pytest.Config) -> bool:
    given = config.invocation_params.args
    return session_holds(config).tasks or any(
        str(arg).startswith(_MLAB_OPTIONS) for arg in given)


@pytest.hookimpl(wrapper=True)
def pytest_report_header(
    config: pytest.Config,
) -> Generator[None, list[str | list[str]], list[str | list[str]]]:
    """Drops pytest-benchmark's header from a session of tasks alone."""
    headers = yield
    holds = session_holds(config)
    if holds.tests or not holds.tasks:
        return headers
    return [h for h in headers if not (isinstance(h, str) and h.startswith(_BENCHMARK_HEADER))]


def containment_lines(record: Attestation, cached: bool) -> list[str]:
    """The attestation the session's trials run under; a weak one says so on a line of
    its own."""
    source = "from the cache" if cached else "probed now"
    lines = [f"mlab: containment {record.summary()} ({source})"]
    if not record.passed:
        lines.append("mlab: WEAK SANDBOX: running only because of --mlab-allow-weak-sandbox; "
                     "every result is marked weak")
    return lines
