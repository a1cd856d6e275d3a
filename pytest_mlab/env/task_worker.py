"""Runs a task's ``prepare()`` or ``score()`` in a process of its own.

Usage: ``python -m pytest_mlab.env.task_worker VERB TASK_SCRIPT DIR_A DIR_B RESULT_JSON``,
VERB being prepare or score.
The outcome goes to RESULT_JSON, not stdout, because task code may print freely.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

from pytest_mlab.core.errors import InvalidSubmission, TaskUnavailable


def _load(script: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"mlab_task_{script.stem}", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(verb: str, script: Path, first: Path, second: Path) -> dict[str, Any]:
    module = _load(script)
    if verb == "prepare":
        module.prepare(first, second)
        return {"ok": True}
    value = float(module.score(first, second))
    return {"score": value}


def main(argv: list[str]) -> int:
    verb, script, first, second, out = argv
    result: dict[str, Any]
    try:
        result = _run(verb, Path(script), Path(first), Path(second))
    except InvalidSubmission as exc:
        result = {"invalid": str(exc) or type(exc).__name__}
    except TaskUnavailable as exc:
        result = {"unavailable": str(exc) or type(exc).__name__}
    except BaseException as exc:  # a crash of task code is reported, never hidden
        tail = traceback.format_exc(limit=-3)
        result = {"crash": f"{type(exc).__name__}: {exc}", "traceback": tail}
    Path(out).write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
