"""Load a Python file as a module of its own: a task's prepare and score scripts, an
original task's eval.py, and the scorers and blankers beside the overlays."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def load_file(path: Path, name: str) -> ModuleType:
    """Run ``path`` as the module ``name``, not registered in ``sys.modules``; whatever it
    raises on import propagates."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
