from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, ScriptedLLM, serve

# The example task trees are inputs to pytester runs, not tests of this session.
collect_ignore = ["examples"]

EXAMPLES = Path(__file__).parent / "examples"


# Plugins that come in with dependencies and that no pytester run needs (pytester clears
# PYTEST_ADDOPTS when it starts, so it is set again for each test that uses it).
UNUSED_PLUGINS = "-p no:langsmith_plugin -p no:anyio -p no:benchmark"
# Sessions a test starts without pytester (the originals' grid, a Ray node's trials) skip
# them too: langsmith's alone costs each such process most of a second.
os.environ.setdefault("PYTEST_ADDOPTS", UNUSED_PLUGINS)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A module that says RUN_FIRST, then modules with slow tests, each kept whole (for its
    module fixtures): under -n the longest then run beside the many short ones, not last
    and alone on one worker."""
    slow_modules = {item.module for item in items
                    if isinstance(item, pytest.Function) and item.get_closest_marker("slow")}

    def order(item: pytest.Item) -> tuple[bool, bool]:
        module = getattr(item, "module", None)
        return not getattr(module, "RUN_FIRST", False), module not in slow_modules

    items.sort(key=order)


@pytest.fixture(autouse=True)
def _pytester_runs(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if "pytester" not in request.fixturenames:
        return
    # A run's report and gate import scipy, and with it numpy, which refuses to be imported
    # twice in one process; pytester forgets the modules an in-process run imported, so
    # the next run would import numpy again. Loaded before pytester looks, they stay.
    import scipy.stats  # noqa: F401

    request.getfixturevalue("pytester")
    monkeypatch.setenv("PYTEST_ADDOPTS", UNUSED_PLUGINS)


@pytest.fixture
def off_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """As off CI: pytest cuts its short summary's lines only where CI and BUILD_NUMBER are
    unset, and a CI machine sets one of them."""
    for name in ("CI", "BUILD_NUMBER"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def task_tree(pytester: pytest.Pytester) -> Callable[..., Path]:
    """Copy an example task into the pytester directory under tasks/."""
    for module in ("scripted_agents.py", "hostile.py"):
        shutil.copy(EXAMPLES / module, pytester.path)
    pytester.syspathinsert()

    def copy(name: str, dest: str | None = None) -> Path:
        target = pytester.path / "tasks" / (dest or name)
        shutil.copytree(EXAMPLES / name, target)
        return target

    return copy


@pytest.fixture
def server() -> Iterator[LLMServer]:
    """A loopback OpenAI-compatible server; tests script its replies."""
    yield from serve(ScriptedLLM())


@pytest.fixture
def mlab_args(pytester: pytest.Pytester) -> list[str]:
    """Keep prepared data and reports inside the pytester directory."""
    return [f"--mlab-cache-dir={pytester.path / 'cache'}", "-p", "no:cacheprovider"]


@pytest.fixture
def read_results(pytester: pytest.Pytester) -> Callable[[], list[dict[str, Any]]]:
    """The records of the newest run under reports/ (each run has its own folder)."""

    def read() -> list[dict[str, Any]]:
        paths = sorted(
            pytester.path.glob("reports/*/results.json"), key=lambda p: p.stat().st_mtime_ns
        )
        results: list[dict[str, Any]] = json.loads(paths[-1].read_text())["results"]
        return results

    return read


@pytest.fixture
def recorded(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], mlab_args: list[str]
) -> Callable[[str], Path]:
    """An example task with its baseline recorded by the real command."""

    def make(name: str) -> Path:
        root = task_tree(name)
        run = pytester.runpytest(
            str(root), "--agent=baseline", "--mlab-record-baseline=2",
            "--mlab-report-dir=baseline-runs", *mlab_args,
        )
        run.assert_outcomes(passed=2)
        assert (root / "baseline.json").exists()
        return root

    return make
