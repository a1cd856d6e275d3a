"""Collects MLAgentBench's own task folders (``pytest MLAgentBench/benchmarks``).

A folder with ``env/`` and ``scripts/research_problem.txt`` is collected through its
``research_problem.txt`` as one file of trials, like a ``task.toml``, when an overlay of
ours names it; the rest of the folder (the starter's code, the hidden scripts) is never
collected as tests.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_mlab.plugin.keys import SETTINGS_KEY, TRIAL_KEY
from pytest_mlab.plugin.warnings import MlabWarning

if TYPE_CHECKING:
    from pytest_mlab.plugin.collection.original_collect import OriginalTaskFile

PROBLEM_FILE = "research_problem.txt"
DEFAULT_OVERLAYS = Path(__file__).resolve().parents[3] / "tasks" / "mlagentbench"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mlab-original", "pytest-mlab: MLAgentBench's own task folders")
    group.addoption("--mlab-accept-rules", dest="mlab_accept_rules", action="store_true",
                    help="Answer the consent questions of the original prepare.py scripts: "
                    "say you have accepted each Kaggle competition's rules.")
    group.addoption("--mlab-overlays", dest="mlab_overlays", type=Path, metavar="DIR",
                    help="Folder of the overlays (<task folder>.toml) that make original "
                    f"task folders runnable. Default: {DEFAULT_OVERLAYS}.")
    group.addoption("--mlab-original-data", dest="mlab_original_data", type=Path,
                    metavar="DIR", help="Prepare original tasks from this offline bundle "
                    "(python -m pytest_mlab bundle CHECKOUT --out DIR), never the network.")
    group.addoption("--mlab-skip-heavy-envs", dest="mlab_skip_heavy_envs",
                    action="store_true", help="Skip original tasks whose own environment "
                    "is large or builds from source (their overlay's heavy_env says why).")
    parser.addini("mlab_overlays", "Folder of the overlays (see --mlab-overlays).")
    parser.addini("mlab_original_data", "Offline bundle of the original tasks' data (see "
                  "--mlab-original-data).")


def is_original(folder: Path) -> bool:
    """A folder of MLAgentBench's own task format (cheap: nothing of the task is read)."""
    return (folder / "env").is_dir() and (folder / "scripts" / PROBLEM_FILE).is_file()


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    """The starter's code and the hidden scripts are a task's content, not tests."""
    for folder in [collection_path, *collection_path.parents][:12]:
        if folder.name in ("env", "scripts") and is_original(folder.parent):
            if folder.name == "env":
                return True
            wanted = folder == collection_path or collection_path.name == PROBLEM_FILE
            return None if wanted else True
    return None


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Where original tasks' data comes from, when not from the network; a synthetic
    bundle's scores are not the tasks', and the run says so first."""
    if not (config.getoption("mlab_original_data") or config.getini("mlab_original_data")):
        return []
    from pytest_mlab.plugin.collection.original_data import original_bundle  # pydantic: only here

    bundle = original_bundle(config)
    if bundle is None:
        return []
    if bundle.kind == "synthetic":
        return [f"mlab: original tasks prepared from the SYNTHETIC bundle {bundle.root}: "
                "their scores are those of tiny synthetic data, not of the tasks' own"]
    return [f"mlab: original tasks prepared from the offline bundle {bundle.root} "
            f"({len(bundle.files)} files), never the network"]


def overlay_dir(config: pytest.Config) -> Path:
    chosen = config.getoption("mlab_overlays") or config.getini("mlab_overlays")
    return Path(chosen).expanduser().resolve() if chosen else DEFAULT_OVERLAYS


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> OriginalTaskFile | None:
    if file_path.name != PROBLEM_FILE or file_path.parent.name != "scripts":
        return None
    folder = file_path.parent.parent
    if not is_original(folder):
        return None
    overlays = overlay_dir(parent.config)
    if not (overlays / f"{folder.name}.toml").is_file():
        warnings.warn(MlabWarning(f"{folder.name}: not collected, pytest-mlab has no overlay "
                                  f"for it in {overlays}"), stacklevel=1)
        return None
    from pytest_mlab.plugin.collection.original_collect import OriginalTaskFile

    return OriginalTaskFile.from_parent(parent, path=file_path, overlays=overlays)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """An original task whose modules went missing after its data was prepared skips with
    the sentence the preparation would give, instead of erroring in its scripts (before
    preparing, the preparation itself says so, with whatever else is missing)."""
    spec = item.stash.get(TRIAL_KEY, None)
    if spec is None or not is_original(spec.task.root):
        return
    from pytest_mlab.core.original_task import OriginalTask
    from pytest_mlab.env.data import is_prepared

    task, settings = spec.task, item.config.stash[SETTINGS_KEY]
    if not isinstance(task, OriginalTask):
        return
    # A task with an environment of its own makes it here, before anything runs in it.
    reason = task.unmet_requirements()
    own = task.interpreter_of is not None
    if reason and (own or is_prepared(task, settings.cache_dir, settings.data_key)):
        pytest.skip(reason)
