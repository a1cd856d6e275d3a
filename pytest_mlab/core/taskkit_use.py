"""Which task helpers (``pytest_mlab.taskkit``) a task's code loads, read from its imports.

A task's hash counts these modules, and only these: a change to a helper the task never
loads must not make its data or its recorded baseline stale.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from pathlib import Path

# Read as files, not imported: the task helpers stand apart from the harness.
TASKKIT = Path(__file__).resolve().parent.parent / "taskkit"
_PACKAGE = "pytest_mlab.taskkit"


def _every_module() -> set[str]:
    return {path.stem for path in TASKKIT.glob("*.py")}


def _imported(source: str) -> set[str]:
    """The taskkit modules one file imports (all of them where the file cannot be read as
    Python, or imports the package as a whole)."""
    named = _named(source)
    return _every_module() if named is None else set(named)


# A task's hash is asked for several times a trial; parsing its files and the helpers
# they import is most of that, and the answer follows from the text alone.
@functools.lru_cache(maxsize=128)
def _named(source: str) -> frozenset[str] | None:
    """The taskkit modules ``source`` names; None: every one."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [alias.name for alias in node.names]
            if node.module == _PACKAGE:
                found.update(names)
            elif node.module.startswith(_PACKAGE + "."):
                found.add(node.module.split(".")[2])
            elif node.module == "pytest_mlab" and "taskkit" in names:
                return None
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == _PACKAGE:
                    return None
                if alias.name.startswith(_PACKAGE + "."):
                    found.add(alias.name.split(".")[2])
    # The package's __init__ runs before any of its modules.
    return frozenset(found | {"__init__"} if found else found)


def taskkit_files(sources: Iterable[Path], modules: Iterable[str] = ()) -> list[Path]:
    """The taskkit files that ``sources`` (Python files) and ``modules`` load, and those
    that these load in turn."""
    wanted = set(modules)
    for path in sources:
        wanted |= _imported(path.read_text("utf-8", errors="replace"))
    found: list[Path] = []
    seen: set[str] = set()
    while wanted - seen:
        name = min(wanted - seen)
        seen.add(name)
        path = TASKKIT / f"{name}.py"
        if path.is_file():
            found.append(path)
            wanted |= _imported(path.read_text("utf-8"))
    return sorted(found)
