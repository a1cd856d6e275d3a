"""Importing a task's own scripts (prepare.py, score.py) by path, for tests that call them."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def load_script(task: Path, script: str) -> ModuleType:
    """The module of ``task/script``, named after both so that tasks never share one."""
    name = f"{Path(script).stem}_{task.name.replace('-', '_')}"
    spec = importlib.util.spec_from_file_location(name, task / script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
